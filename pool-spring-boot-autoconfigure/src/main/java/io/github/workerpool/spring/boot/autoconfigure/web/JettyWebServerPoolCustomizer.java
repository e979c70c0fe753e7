package io.github.workerpool.spring.boot.autoconfigure.web;

import java.util.ArrayList;
import java.util.List;

import org.eclipse.jetty.server.ConnectionFactory;
import org.eclipse.jetty.server.ConnectionLimit;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.NetworkConnectionLimit;
import org.eclipse.jetty.server.NetworkConnector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.component.Container;
import org.eclipse.jetty.util.component.ContainerLifeCycle;
import org.eclipse.jetty.util.component.LifeCycle;

import io.github.workerpool.spring.boot.autoconfigure.PoolConfigurationException;

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
            if (server.getThreadPool() != threadPool) {
                // An application's customizer ordered after this one (unordered ones are) set a
                // thread pool of its own: requests would run there, while the admission filter
                // still counted them against this pool (helper-171: 503s with its threads idle).
                throw new PoolConfigurationException(WebServerPool.POOL_PROPERTY, this.pool.name(),
                        "Jetty's thread pool was replaced by a " + server.getThreadPool().getClass().getName()
                                + " (a WebServerFactoryCustomizer that calls setThreadPool after the starter's, order "
                                + ORDER + "), so requests would not run on pool '" + this.pool.name()
                                + "', while its admission filter counts them against it",
                        "Remove that setThreadPool call and size the pool under pools.instances." + this.pool.name()
                                + ", or remove " + WebServerPool.POOL_PROPERTY + " to keep Jetty's own threads.");
            }
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
     * one, and a limit in force is a bean of each connector it covers once the server started
     * (the deprecated ConnectionLimit too: it adds itself to them as it starts, before them).
     * Throwing here fails the connector's start, and so the application's.
     */
    private void checkConnectionLimits(Server server) {
        List<NetworkConnector> network = new ArrayList<>();
        List<String> unlimited = new ArrayList<>();
        List<Limit> limits = new ArrayList<>();
        Connector[] connectors = server.getConnectors();
        for (int i = 0; i < connectors.length; i++) {
            if (!(connectors[i] instanceof NetworkConnector connector)) {
                continue; // a LocalConnector or the like: no sockets
            }
            List<Limit> own = limitsOf(connector);
            if (own.isEmpty()) {
                unlimited.add("connector " + i + " " + connector.getProtocols()
                        + ((connector.getPort() > 0) ? " on port " + connector.getPort() : ""));
            }
            network.add(connector);
            for (Limit limit : own) {
                if (limits.stream().noneMatch((l) -> l.bean() == limit.bean())) {
                    limits.add(limit);
                }
            }
        }
        // helper-149: an HTTP/2 connection runs a task for each of its streams at once, besides
        // its own; they queue as Tomcat's do, so the rule counts them as Tomcat's customizer does.
        int streams = 0;
        for (NetworkConnector connector : network) {
            streams = Math.max(streams, http2Streams(connector));
        }
        String property = WebServerKind.JETTY.maxConnectionsProperty();
        if (!unlimited.isEmpty() && limits.isEmpty() && limitsOf(server).isEmpty()) {
            // No limit at all (server.jetty.max-connections unset): the property is the fix.
            this.pool.connectors(-1, property, null, streams);
        }
        else if (!unlimited.isEmpty()) {
            String names = String.join(", ", unlimited);
            boolean one = unlimited.size() == 1;
            this.pool.connectors(-1, property + ", which does not limit " + names,
                    ", or give " + (one ? "that connector a limit of its own" : "those connectors limits of their own")
                            + " in a JettyServerCustomizer (server.addBean(new NetworkConnectionLimit(n, connector))), "
                            + "the limits together no larger than the queue: Spring Boot applies " + property
                            + " to the connectors made before the customizers run, not to one the application adds nor "
                            + "to server.ssl's.", streams);
        }
        else if (!limits.isEmpty()) {
            // Spring Boot's limit is a NetworkConnectionLimit of the property's value: without one
            // in force, only the application's limits bound the connections, and lowering the
            // property would change nothing.
            int fromProperty = this.pool.propertyConnections();
            boolean propertyInForce = fromProperty >= 0 && limits.stream()
                .anyMatch((l) -> l.bean() instanceof NetworkConnectionLimit && l.max() == fromProperty);
            String limitedBy = !propertyInForce ? "the connection limit(s) the application added to its connectors"
                    : property + ((limits.size() > 1) ? " and the connection limit(s) the application added" : "");
            long tasks = (long) mostConnections(network, limits) * (1L + streams);
            this.pool.connectors((int) Math.min(Integer.MAX_VALUE, tasks), limitedBy, null, streams);
        }
    }

    /**
     * The most streams an HTTP/2 connection of the connector runs at once, 0 without HTTP/2 (its
     * module is optional, so it is read by name: every HTTP/2 server factory, h2 and h2c, is an
     * AbstractHTTP2ServerConnectionFactory). No limit counts as Integer.MAX_VALUE.
     */
    static int http2Streams(Connector connector) {
        int most = 0;
        for (ConnectionFactory factory : connector.getConnectionFactories()) {
            for (Class<?> type = factory.getClass(); type != null; type = type.getSuperclass()) {
                if (HTTP2_FACTORY.equals(type.getName())) {
                    try {
                        int streams = (Integer) type.getMethod("getMaxConcurrentStreams").invoke(factory);
                        most = Math.max(most, (streams < 0) ? Integer.MAX_VALUE : streams);
                    }
                    catch (ReflectiveOperationException | ClassCastException ex) {
                        most = Integer.MAX_VALUE; // unknown: as no limit, which asks for an unbounded queue
                    }
                    break;
                }
            }
        }
        return most;
    }

    private static final String HTTP2_FACTORY = "org.eclipse.jetty.http2.server.AbstractHTTP2ServerConnectionFactory";

    /** A connection limit in force over some connectors, and the most connections it lets them keep open. */
    record Limit(Object bean, int max) {
    }

    /** The connection limits that are beans of a connector (or of the server), of either kind. */
    @SuppressWarnings("deprecation") // ConnectionLimit: applications written for Jetty 10 and 11 still add it
    static List<Limit> limitsOf(Object container) {
        if (!(container instanceof ContainerLifeCycle beans)) {
            return List.of();
        }
        List<Limit> limits = new ArrayList<>();
        for (NetworkConnectionLimit limit : beans.getBeans(NetworkConnectionLimit.class)) {
            limits.add(new Limit(limit, limit.getMaxNetworkConnectionCount()));
        }
        for (ConnectionLimit limit : beans.getBeans(ConnectionLimit.class)) {
            limits.add(new Limit(limit, limit.getMaxConnections()));
        }
        return limits;
    }

    /**
     * Most connections the connectors may keep open together, on the safe side: the least sum
     * of whole limits that cover them all (each limit bounds the connectors it covers together:
     * one over every connector bounds them all by itself). Exact unless limits partly overlap
     * ({A,B}, {B,C}, {A,C} of n each: 2n, where 1.5n is the true most); over 12 limits, the sum
     * of them all.
     */
    static int mostConnections(List<NetworkConnector> connectors, List<Limit> limits) {
        int k = limits.size();
        if (k > 12) {
            return (int) Math.min(Integer.MAX_VALUE, limits.stream().mapToLong((l) -> Math.max(0, l.max())).sum());
        }
        long best = Long.MAX_VALUE;
        for (int subset = 1; subset < (1 << k); subset++) {
            boolean coversAll = true;
            for (NetworkConnector connector : connectors) {
                boolean covered = false;
                for (int j = 0; j < k && !covered; j++) {
                    covered = (subset & (1 << j)) != 0 && ((ContainerLifeCycle) connector).contains(limits.get(j).bean());
                }
                coversAll &= covered;
            }
            if (coversAll) {
                long sum = 0;
                for (int j = 0; j < k; j++) {
                    if ((subset & (1 << j)) != 0) {
                        sum += Math.max(0, limits.get(j).max());
                    }
                }
                best = Math.min(best, sum);
            }
        }
        return (int) Math.min(Integer.MAX_VALUE, best);
    }

    @Override
    public int getOrder() {
        return ORDER;
    }

}
