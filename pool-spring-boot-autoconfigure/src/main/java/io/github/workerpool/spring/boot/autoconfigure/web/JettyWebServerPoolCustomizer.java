package io.github.workerpool.spring.boot.autoconfigure.web;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.NetworkConnectionLimit;
import org.eclipse.jetty.server.NetworkConnector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.component.Container;
import org.eclipse.jetty.util.component.ContainerLifeCycle;
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
        LifeCycle.Listener threadsListener = threadPool.connectorStartListener();
        factory.addServerCustomizers((server) -> {
            LifeCycle.Listener startListener = new LifeCycle.Listener() {

                @Override
                public void lifeCycleStarting(LifeCycle connector) {
                    checkConnectionLimits(server);
                    threadsListener.lifeCycleStarting(connector);
                }

                @Override
                public void lifeCycleStarted(LifeCycle connector) {
                    threadsListener.lifeCycleStarted(connector);
                }

                @Override
                public void lifeCycleFailure(LifeCycle connector, Throwable failure) {
                    threadsListener.lifeCycleFailure(connector, failure);
                }

            };
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

    /**
     * Checks, as each connector starts, that the pool's queue holds a task for every connection
     * the network connectors keep open. Spring Boot applies server.jetty.max-connections as a
     * NetworkConnectionLimit over the connectors made by then: one the application adds in a
     * server customizer (or server.ssl's, made after the limit) has no limit unless it is given
     * one, and a limit in force is a bean of each connector it covers once the server started.
     * Throwing here fails the connector's start, and so the application's.
     */
    private void checkConnectionLimits(Server server) {
        Set<NetworkConnectionLimit> limits = Collections.newSetFromMap(new IdentityHashMap<>());
        List<String> unlimited = new ArrayList<>();
        Connector[] connectors = server.getConnectors();
        for (int i = 0; i < connectors.length; i++) {
            if (!(connectors[i] instanceof NetworkConnector connector)) {
                continue; // a LocalConnector or the like: no sockets
            }
            Collection<NetworkConnectionLimit> own = (connector instanceof ContainerLifeCycle container)
                    ? container.getBeans(NetworkConnectionLimit.class) : List.of();
            if (own.isEmpty()) {
                unlimited.add("connector " + i + " " + connector.getProtocols()
                        + ((connector.getPort() > 0) ? " on port " + connector.getPort() : ""));
            }
            limits.addAll(own);
        }
        long total = 0;
        for (NetworkConnectionLimit limit : limits) {
            total = Math.min(Integer.MAX_VALUE, total + Math.max(0, limit.getMaxNetworkConnectionCount()));
        }
        if (!unlimited.isEmpty()) {
            String names = String.join(", ", unlimited);
            this.pool.connectors(-1, ", which does not limit " + names,
                    ", or give " + ((unlimited.size() == 1) ? "that connector a limit of its own" : "those connectors limits of their own")
                            + " where the application adds it (server.addBean(new NetworkConnectionLimit(n, connector))), "
                            + "the limits together no larger than the queue.", 0);
        }
        else if (!limits.isEmpty()) {
            this.pool.connectors((int) total, (limits.size() > 1) ? " and the NetworkConnectionLimit(s) the application added" : "", null, 0);
        }
    }

    @Override
    public int getOrder() {
        return ORDER;
    }

}
