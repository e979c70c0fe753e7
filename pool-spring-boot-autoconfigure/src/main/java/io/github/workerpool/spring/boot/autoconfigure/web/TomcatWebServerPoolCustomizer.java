package io.github.workerpool.spring.boot.autoconfigure.web;

import org.apache.catalina.Engine;
import org.apache.catalina.connector.Connector;
import org.apache.coyote.AbstractProtocol;
import org.apache.coyote.UpgradeProtocol;
import org.apache.coyote.http2.Http2Protocol;

import io.github.workerpool.spring.boot.autoconfigure.PoolConfigurationException;

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
            int http2Streams = 0;
            for (Connector connector : connectors) {
                refuseNio2(connector);
                connector.getProtocolHandler().setExecutor(this.pool.executor());
                long max = (connector.getProtocolHandler() instanceof AbstractProtocol<?> protocol)
                        ? protocol.getMaxConnections() : -1;
                // An HTTP/2 connection queues a task for each stream it runs at once, besides its
                // own: maxConcurrentStreamExecution, unless it is not below maxConcurrentStreams
                // (Tomcat then throttles nothing: every stream may be running).
                long streams = 0;
                for (UpgradeProtocol upgrade : connector.findUpgradeProtocols()) {
                    if (upgrade instanceof Http2Protocol http2) {
                        long running = Math.min(Math.max(0, http2.getMaxConcurrentStreamExecution()),
                                Math.max(0, http2.getMaxConcurrentStreams()));
                        streams = Math.max(streams, running);
                    }
                }
                http2Streams = (int) Math.min(Integer.MAX_VALUE, Math.max(http2Streams, streams));
                // In longs, saturated: a limit of Integer.MAX_VALUE streams must not wrap to no limit.
                total = (total < 0 || max < 0) ? -1 : Math.min(Integer.MAX_VALUE, total + max * (1 + streams));
            }
            // Each connection may have a task waiting in the queue: the rule counts them all.
            int added = connectors.length - 1;
            this.pool.connectors((int) Math.min(Integer.MAX_VALUE, total), WebServerKind.TOMCAT.maxConnectionsProperty()
                    + ((added > 0) ? " and the maxConnections of the " + added + " connector(s) the application added" : ""),
                    null, http2Streams);
        });
    }

    /**
     * Tomcat's NIO2 connector needs an executor of its own (its log says so): at max-connections
     * its acceptor parks a thread of the executor, uncounted, until a connection closes.
     */
    private void refuseNio2(Connector connector) {
        String protocol = connector.getProtocolHandler().getClass().getName();
        if (protocol.contains("Nio2")) {
            throw new PoolConfigurationException(WebServerPool.POOL_PROPERTY, this.pool.name(),
                    "Tomcat's connector on port " + connector.getPort() + " uses " + protocol + ", whose acceptor blocks "
                            + "a thread of its executor at max-connections; the NIO2 connector needs an executor of its own",
                    "Use the NIO connector (Tomcat's default, org.apache.coyote.http11.Http11NioProtocol), or remove "
                            + WebServerPool.POOL_PROPERTY + ".");
        }
    }

    @Override
    public int getOrder() {
        return ORDER;
    }

}
