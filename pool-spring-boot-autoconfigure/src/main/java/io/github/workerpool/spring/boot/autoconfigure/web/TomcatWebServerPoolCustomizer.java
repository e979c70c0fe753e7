package io.github.workerpool.spring.boot.autoconfigure.web;

import org.apache.catalina.Engine;
import org.apache.catalina.connector.Connector;
import org.apache.coyote.AbstractProtocol;

import org.springframework.boot.tomcat.ConfigurableTomcatWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.core.Ordered;

/**
 * Runs Tomcat's request processing on the web server pool: the pool becomes the executor of
 * every connector's protocol handler, the main one's (where Spring Boot's own customizer puts its
 * virtual threads) and those the application adds (a second port, an HTTP to HTTPS redirect).
 */
final class TomcatWebServerPoolCustomizer
        implements WebServerFactoryCustomizer<ConfigurableTomcatWebServerFactory>, Ordered {

    /*
     * Ordered after Spring Boot's customizers (0, and 1 for the virtual-thread executor that
     * spring.threads.virtual.enabled sets), so that this executor is the one Tomcat keeps when
     * both are configured. Tomcat does not shut down an executor it was given: the pool stops in
     * its own lifecycle phase, after the web server.
     */

    static final int ORDER = 10;

    private final WebServerPool pool;

    TomcatWebServerPoolCustomizer(WebServerPool pool) {
        this.pool = pool;
    }

    @Override
    public void customize(ConfigurableTomcatWebServerFactory factory) {
        // Every connector, once all are made: a protocol-handler customizer reaches the main one
        // only, and the others' requests pass the admission filter too (they would count against
        // the pool's capacity while running on threads of their own). They are in the service by
        // the time the context is prepared, before any starts, and after the protocol-handler
        // customizers ran, so this executor also wins over spring.threads.virtual.enabled's.
        factory.addContextCustomizers((context) -> {
            context.getPipeline().addValve(new RefusedUploadValve());
            Engine engine = (Engine) context.getParent().getParent();
            Connector[] connectors = engine.getService().findConnectors();
            long total = 0;
            for (Connector connector : connectors) {
                connector.getProtocolHandler().setExecutor(this.pool.executor());
                int max = (connector.getProtocolHandler() instanceof AbstractProtocol<?> protocol)
                        ? protocol.getMaxConnections() : -1;
                total = (total < 0 || max < 0) ? -1 : total + max;
            }
            // Each connection may have a task waiting in the queue: the rule counts them all.
            this.pool.connectors((int) Math.min(Integer.MAX_VALUE, total), connectors.length - 1);
        });
    }

    @Override
    public int getOrder() {
        return ORDER;
    }

}
