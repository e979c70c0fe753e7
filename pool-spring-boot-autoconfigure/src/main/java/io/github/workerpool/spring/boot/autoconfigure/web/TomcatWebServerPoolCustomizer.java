package io.github.workerpool.spring.boot.autoconfigure.web;

import org.apache.catalina.Engine;
import org.apache.catalina.connector.Connector;

import org.springframework.boot.tomcat.ConfigurableTomcatWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.core.Ordered;

/**
 * Runs Tomcat's request processing on the web server pool: the pool becomes the executor of
 * every connector's protocol handler, the main one's as Spring Boot's own customizer does for
 * virtual threads, and those the application adds (a second port, an HTTP to HTTPS redirect).
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
        factory.addProtocolHandlerCustomizers((protocolHandler) -> protocolHandler.setExecutor(this.pool.executor()));
        // Boot customizes the main connector only. The others' requests pass the admission filter
        // too, and would count against the pool's capacity while running on threads of their own.
        // They are in the service by the time the context is prepared, before any starts.
        factory.addContextCustomizers((context) -> {
            Engine engine = (Engine) context.getParent().getParent();
            for (Connector connector : engine.getService().findConnectors()) {
                connector.getProtocolHandler().setExecutor(this.pool.executor());
            }
        });
    }

    @Override
    public int getOrder() {
        return ORDER;
    }

}
