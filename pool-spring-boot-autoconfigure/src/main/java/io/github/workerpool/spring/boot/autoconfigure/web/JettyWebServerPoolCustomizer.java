package io.github.workerpool.spring.boot.autoconfigure.web;

import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.util.component.Container;
import org.eclipse.jetty.util.component.LifeCycle;

import org.springframework.boot.jetty.ConfigurableJettyWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.core.Ordered;

/**
 * Runs Jetty's request processing on the web server pool: a {@link JettyPoolThreadPool} over the
 * pool becomes the server's thread pool, as Spring Boot's own customizer does for virtual threads.
 */
final class JettyWebServerPoolCustomizer
        implements WebServerFactoryCustomizer<ConfigurableJettyWebServerFactory>, Ordered {

    /*
     * Ordered after Spring Boot's customizers (0, which sets a QueuedThreadPool from
     * server.jetty.threads.*, and 1 for the VirtualThreadPool of spring.threads.virtual.enabled),
     * so that this thread pool is the one Jetty keeps. The server customizer runs once the
     * connectors are made and before they start, and marks their start for the thread pool, and
     * that of every connector added to the server after it (the application's own). Jetty
     * does not stop a thread pool that is not a LifeCycle: the pool stops in its own lifecycle
     * phase, after the web server.
     */

    static final int ORDER = 10;

    private final WebServerPool pool;

    JettyWebServerPoolCustomizer(WebServerPool pool) {
        this.pool = pool;
    }

    @Override
    public void customize(ConfigurableJettyWebServerFactory factory) {
        JettyPoolThreadPool threadPool = new JettyPoolThreadPool(this.pool);
        factory.setThreadPool(threadPool);
        LifeCycle.Listener startListener = threadPool.connectorStartListener();
        factory.addServerCustomizers((server) -> {
            for (Connector connector : server.getConnectors()) {
                connector.addEventListener(startListener);
            }
            // A connector the application adds later (a customizer of its own, which runs after
            // this one, adding a second port) is marked as it is added: unmarked, its acceptors
            // and selectors would hold pool threads for ever.
            server.addEventListener(new Container.Listener() {

                @Override
                public void beanAdded(Container parent, Object child) {
                    if (child instanceof Connector connector) {
                        connector.addEventListener(startListener);
                    }
                }

                @Override
                public void beanRemoved(Container parent, Object child) {
                    if (child instanceof Connector connector) {
                        connector.removeEventListener(startListener);
                    }
                }

            });
        });
    }

    @Override
    public int getOrder() {
        return ORDER;
    }

}
