package io.github.workerpool.spring.boot.autoconfigure.web;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.function.BiFunction;

import io.github.workerpool.MultiPool;
import io.github.workerpool.Pool;
import io.github.workerpool.PoolConfig;
import io.github.workerpool.spring.boot.autoconfigure.PoolConfigurationException;

import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ListableBeanFactory;

/**
 * The pool named by {@code pools.web-server.pool}, checked once at startup, and the admission
 * limit that follows from its live capacity.
 */
final class WebServerPool implements BiFunction<String, PoolConfig, String> {

    /*
     * Sizing. The pool is the connector's executor: every socket event (a request arriving on a
     * new or kept-alive connection, an async dispatch, a close) is one task on it. The connector
     * must never see a rejection, since Tomcat closes the socket of a task its executor refuses
     * (AbstractEndpoint.processSocket) and Jetty closes a refused task (AdaptiveExecutionStrategy);
     * so the pool must be blocking, with no maxBlockingTasks and no blockingTimeout. When every
     * thread is busy a task waits in the pool's queue. The queue must hold a task for every
     * connection (server.tomcat.max-connections, server.jetty.max-connections), or be unbounded as
     * Tomcat's and Jetty's own executors' queues are: were it full, Tomcat's poller or Jetty's
     * selector would wait in execute for a thread, and while it waits it cannot
     * wake the request threads blocked on a socket read or write, which may be the very threads
     * it waits for.
     *
     * The 503 is decided by the admission filter, on a pool thread, where a response can still be
     * written: it lets in a request while fewer than capacity - reservedThreads requests are in
     * the application. So at least reservedThreads threads are never held by the application:
     * they answer the 503s and run the connector's other tasks, each in microseconds, and the
     * queue stays short. The limit is read from the pool on every request, so a tune moves it at
     * once; a capacity at or below the reserve leaves one request in.
     */

    static final String POOL_PROPERTY = "pools.web-server.pool";

    static final String RESERVED_PROPERTY = "pools.web-server.reserved-threads";

    static final int UNBOUNDED_QUEUE = Integer.MAX_VALUE;

    private final String name;

    private final Pool pool;

    private final Executor executor;

    private final int reservedThreads;

    private final boolean fromInstances;

    private final WebServerKind server;

    /** Most connections the server keeps open, -1 for no limit; its connectors' total once they are made. */
    private volatile int maxConnections;

    /** The connection limit the property sets, -1 for none: the server's own limit, before the connectors are seen. */
    private final int propertyConnections;

    /**
     * What limits the connections, as the rule's message says it: the property, with what limits
     * them besides it (Tomcat: the connectors the application added; Jetty: the connection limits
     * it added, or the connectors that no limit covers), or only the limits the application added.
     */
    private volatile String limitedBy;

    /** How to bound the connections, if not by the property (Jetty's connectors that no limit covers); null: the property. */
    private volatile @Nullable String connectionsFix;

    /**
     * Streams an HTTP/2 connection runs at once, each a task of its own besides the connection's
     * (Tomcat's maxConcurrentStreamExecution); 0 without HTTP/2. Counted in maxConnections.
     */
    private volatile int http2Streams;

    private final AdaptiveMinimum adaptiveMinimum;

    private WebServerPool(String name, Pool pool, Executor executor, int reservedThreads, boolean fromInstances,
            WebServerKind server, int maxConnections, AdaptiveMinimum adaptiveMinimum) {
        this.name = name;
        this.pool = pool;
        this.executor = executor;
        this.reservedThreads = reservedThreads;
        this.fromInstances = fromInstances;
        this.server = server;
        this.maxConnections = maxConnections;
        this.propertyConnections = maxConnections;
        this.limitedBy = server.maxConnectionsProperty();
        this.adaptiveMinimum = adaptiveMinimum;
    }

    /**
     * Finds and checks the pool.
     * @param instances the names in {@code pools.instances}, to name the property a fix changes
     * @param server the web server whose executor the pool becomes
     * @param maxConnections most connections the server keeps open; -1 for no limit
     * @param adaptiveMinimum the least capacity adaptive sizing may set; null if it is not sized adaptively
     * @throws PoolConfigurationException naming the property, the value and the fix, if there is no
     *         such pool, it cannot run tasks, it may refuse the connector's tasks, or it has no room
     *         beyond the reserved threads
     */
    static WebServerPool resolve(WebServerPoolProperties properties, ListableBeanFactory beanFactory,
            Set<String> instances, WebServerKind server, int maxConnections, AdaptiveMinimum adaptiveMinimum) {
        String name = properties.getPool();
        properties.check();
        List<String> pools = Arrays.asList(beanFactory.getBeanNamesForType(Pool.class, false, false));
        if (!pools.contains(name)) { // another spelling of a key of pools.instances: the pool's alias
            for (String pool : pools) {
                if (Arrays.asList(beanFactory.getAliases(pool)).contains(name)) {
                    name = pool;
                    break;
                }
            }
        }
        if (!pools.contains(name)) {
            throw new PoolConfigurationException(POOL_PROPERTY, name,
                    "there is no pool named '" + name + "'; pools: " + pools,
                    "Set " + POOL_PROPERTY + " to one of " + pools + ", or add pools.instances." + name
                            + ".capacity to create it.");
        }
        Pool pool = beanFactory.getBean(name, Pool.class);
        if (!(pool instanceof Executor executor)) {
            throw new PoolConfigurationException(POOL_PROPERTY, name,
                    "pool '" + name + "' is a " + pool.getClass().getSimpleName()
                            + ", not an Executor: it cannot run the web server's tasks",
                    "Set " + POOL_PROPERTY + " to a pool from pools.instances or a WorkerPool bean.");
        }
        if (pool instanceof MultiPool) {
            // A MultiPool queues a task in the sub-pool it picks while that one has queue room,
            // behind its busy threads, though another sub-pool has a free one: requests, and the
            // 503s the reserved threads answer, would wait while threads are free.
            throw new PoolConfigurationException(POOL_PROPERTY, name,
                    "pool '" + name + "' is a MultiPool, whose sub-pools queue a request behind their own busy "
                            + "threads while another sub-pool has a free one, so requests and 503s would wait",
                    "Set " + POOL_PROPERTY + " to a pool from pools.instances or a WorkerPool bean.");
        }
        WebServerPool webServerPool = new WebServerPool(name, pool, executor, properties.getReservedThreads(),
                instances.contains(name), server, maxConnections, adaptiveMinimum);
        Violation violation = webServerPool.check(pool.config());
        if (violation != null) {
            throw new PoolConfigurationException(POOL_PROPERTY, name, violation.reason(), violation.action());
        }
        return webServerPool;
    }

    /**
     * The first rule of the notes that these options break, with its fix; null if none.
     * @param config the pool's options
     */
    Violation check(PoolConfig config) {
        String pool = "pool '" + this.name + "' ";
        String refuses = ": it would refuse the connector's tasks when it is full, and " + this.server.displayName()
                + " closes the connection of a refused task; the web server answers 503 itself before the pool is full";
        if (config.nonblocking()) {
            return new Violation(pool + "is nonblocking" + refuses, "Set " + option("nonblocking") + " to false.");
        }
        if (config.maxBlockingTasks() > 0) {
            return new Violation(pool + "has maxBlockingTasks " + config.maxBlockingTasks() + refuses,
                    "Set " + option("max-blocking-tasks") + " to 0 (no limit).");
        }
        if (config.blockingTimeout() != null) {
            // As application.yml writes it ("2s"), not as Duration prints it ("PT2S").
            return new Violation(pool + "has blockingTimeout " + PoolConfigurationException.shown(config.blockingTimeout()) + refuses,
                    "Remove " + option("blocking-timeout") + ".");
        }
        int queue = config.queueCapacity();
        // An unbounded pool starts a worker for every task: its queue is never used.
        if (config.capacity() >= 0 && queue != UNBOUNDED_QUEUE
                && (this.maxConnections < 0 || queue < this.maxConnections)) {
            String maxConnectionsProperty = this.limitedBy;
            boolean unlimited = this.maxConnections < 0;
            String connections = unlimited ? "unlimited" : Integer.toString(this.maxConnections);
            if (this.http2Streams > 0) {
                // Each HTTP/2 stream is a task, queued by a pool thread that reads the connection:
                // with the queue full it waits, and with every thread so waiting nobody drains it.
                maxConnectionsProperty += ", times 1 + the " + this.http2Streams + " streams an HTTP/2 connection runs "
                        + "at once (server.http2.enabled), each a task of its own";
            }
            String raise = unlimited ? "" : "at least " + this.maxConnections + ", or to ";
            String orConnections = (this.connectionsFix != null) ? this.connectionsFix
                    : unlimited ? ", or set " + maxConnectionsProperty + " to a limit no larger than the queue."
                    : ", or lower " + maxConnectionsProperty + ".";
            return new Violation(pool + "has queue-capacity " + queue + ", fewer than the " + connections
                    + ((this.http2Streams > 0) ? " tasks the connections the server keeps open may queue ("
                            : " connections the server keeps open (") + maxConnectionsProperty + "): when its queue is "
                    + "full, " + this.server.displayName() + "'s " + this.server.dispatcher()
                    + " waits for a thread and cannot serve the other connections' I/O meanwhile",
                    "Set " + option("queue-capacity") + " to " + raise + UNBOUNDED_QUEUE + " (unbounded, as "
                            + this.server.displayName() + "'s own executor)" + orConnections);
        }
        if (this.adaptiveMinimum != null && this.adaptiveMinimum.capacity() <= this.reservedThreads) {
            return new Violation(pool + "is sized adaptively down to " + this.adaptiveMinimum.capacity() + " ("
                    + this.adaptiveMinimum.property() + "), which leaves no thread for requests beyond the "
                    + this.reservedThreads + " kept for the connector's own tasks (" + RESERVED_PROPERTY + ")",
                    "Set " + this.adaptiveMinimum.property() + " to at least " + (this.reservedThreads + 1)
                            + ", or lower " + RESERVED_PROPERTY + ".");
        }
        int capacity = config.capacity();
        if (capacity >= 0 && capacity <= this.reservedThreads) {
            return new Violation(pool + "has capacity " + capacity + ", which leaves no thread for requests beyond "
                    + "the " + this.reservedThreads + " kept for the connector's own tasks (" + RESERVED_PROPERTY + ")",
                    "Set " + option("capacity") + " to at least " + (this.reservedThreads + 1) + ", or lower "
                            + RESERVED_PROPERTY + ".");
        }
        return null;
    }

    /**
     * The connectors made, all on the pool: the queue must hold a task for each of their
     * connections, not only the main connector's.
     * @param total most connections they keep open together; -1 for no limit
     * @param limitedBy what limits them, for the message: the property (with what limits them
     *        besides it), or the limits the application added
     * @param connectionsFix how to bound them if not by the property, for the message; null: the property
     * @param http2Streams streams an HTTP/2 connection runs at once (each a task), 0 without HTTP/2;
     *        {@code total} counts them
     * @throws PoolConfigurationException naming the property, the value and the fix, if the
     *         queue no longer holds a task per connection
     */
    void connectors(int total, String limitedBy, @Nullable String connectionsFix, int http2Streams) {
        this.maxConnections = total;
        this.limitedBy = limitedBy;
        this.connectionsFix = connectionsFix;
        this.http2Streams = http2Streams;
        Violation violation = check(this.pool.config());
        if (violation != null) {
            throw new PoolConfigurationException(POOL_PROPERTY, this.name, violation.reason(), violation.action());
        }
    }

    /**
     * Checks {@code next}, made by {@link #resolve} from the values a refresh brought, with this
     * pool's connectors, as a restart would once it made them.
     * @throws PoolConfigurationException naming the property, the value and the fix
     */
    void checkWithConnectorsOf(WebServerPool next) {
        next.connectors(this.maxConnections, this.limitedBy, this.connectionsFix, this.http2Streams);
    }

    /**
     * The first rule the pool's options break now, as a sentence with its fix, or null: a live
     * change can break what was checked at startup.
     */
    String brokenRule() {
        Violation violation = check(this.pool.config());
        return (violation != null) ? violation.reason() + ". " + violation.action() : null;
    }

    /**
     * Why a live change of the pool's options to {@code next} must be refused, as startup would
     * refuse them, with the fix; null if it may be made, or {@code pool} is another pool. The
     * endpoint's tune and the refresh call it, through this interface (the class is this
     * package's own), before the change.
     */
    @Override
    public @Nullable String apply(String pool, PoolConfig next) {
        if (!pool.equals(this.name)) {
            return null;
        }
        Violation violation = check(next);
        return (violation != null) ? violation.reason() + "; it is the web server's pool (" + POOL_PROPERTY
                + "), checked as at startup. " + violation.action() : null;
    }

    /** A broken rule and its fix. */
    record Violation(String reason, String action) {
    }

    /** The least capacity adaptive sizing may set, and the property that sets it. */
    record AdaptiveMinimum(int capacity, String property) {
    }

    /** The property of one of the pool's options, or a description for a pool the application built. */
    String option(String option) {
        return this.fromInstances ? "pools.instances." + this.name + "." + option
                : "the " + option + " option of the application's pool bean '" + this.name + "'";
    }

    String name() {
        return this.name;
    }

    /** The connection limit the property sets, -1 for none. */
    int propertyConnections() {
        return this.propertyConnections;
    }

    Pool pool() {
        return this.pool;
    }

    /** Whether its capacity was set by adaptive sizing at startup (pools.instances' adaptive.enabled). */
    boolean sizedAdaptively() {
        return this.adaptiveMinimum != null;
    }

    /** The pool as the connector's executor. */
    Executor executor() {
        return this.executor;
    }

    /** The web server whose executor the pool is. */
    WebServerKind server() {
        return this.server;
    }

    int reservedThreads() {
        return this.reservedThreads;
    }

    /** Most requests admitted into the application at once, from the pool's capacity now. */
    int admissionLimit() {
        int capacity = this.pool.capacity();
        return (capacity < 0) ? Integer.MAX_VALUE : Math.max(1, capacity - this.reservedThreads);
    }

}
