package io.github.workerpool.spring.boot.autoconfigure.web;

import java.time.Duration;

import io.github.workerpool.spring.boot.autoconfigure.PoolConfigurationException;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Configuration properties for the web server's request threads on a named pool, bound to the
 * {@code pools.web-server} prefix. Read at startup; a change takes a restart (the pool's own
 * options stay live).
 */
@ConfigurationProperties("pools.web-server")
public class WebServerPoolProperties {

    /**
     * Name of the pool that runs the web server's request processing (Tomcat's executor, Jetty's
     * thread pool); none by default, so the server keeps its own threads. A blocking pool from
     * pools.instances, or a Pool bean of the application that is an Executor (a WorkerPool, say).
     */
    private String pool;

    /**
     * Threads of the pool kept for the connector's own work (answering 503s, reading keep-alive
     * connections, closing sockets): requests are admitted while fewer than the pool's capacity
     * minus these are in the application, the others get a 503 at once.
     */
    private int reservedThreads = 2;

    /**
     * Value of the Retry-After header of a 503, in whole seconds (rounded up).
     */
    private Duration retryAfter = Duration.ofSeconds(1);

    /** Returns the name of the pool behind the web server, or null. */
    public String getPool() {
        return this.pool;
    }

    /** Sets the name of the pool behind the web server. */
    public void setPool(String pool) {
        this.pool = pool;
    }

    /** Returns how many of the pool's threads are kept for the connector. */
    public int getReservedThreads() {
        return this.reservedThreads;
    }

    /** Sets how many of the pool's threads are kept for the connector. */
    public void setReservedThreads(int reservedThreads) {
        this.reservedThreads = reservedThreads;
    }

    /** Returns the Retry-After of a 503. */
    public Duration getRetryAfter() {
        return this.retryAfter;
    }

    /** Sets the Retry-After of a 503. */
    public void setRetryAfter(Duration retryAfter) {
        this.retryAfter = retryAfter;
    }

    /**
     * Checks the values of their own (at startup, and on a refresh to warn that a restart would
     * fail); the pool they name is checked where the web server starts.
     * @throws PoolConfigurationException naming the property, the value and the fix
     */
    public void check() {
        if (this.reservedThreads < 1) {
            throw new PoolConfigurationException(WebServerPool.RESERVED_PROPERTY, this.reservedThreads,
                    "at least one thread must be kept for the connector, to answer 503s when the application "
                            + "holds the others",
                    "Set " + WebServerPool.RESERVED_PROPERTY + " to 1 or more (the default is 2).");
        }
        if (this.retryAfter == null || this.retryAfter.isNegative()) {
            throw new PoolConfigurationException("pools.web-server.retry-after", this.retryAfter,
                    "the Retry-After of a 503 cannot be negative",
                    "Set pools.web-server.retry-after to 0s or more, such as 1s.");
        }
    }

}
