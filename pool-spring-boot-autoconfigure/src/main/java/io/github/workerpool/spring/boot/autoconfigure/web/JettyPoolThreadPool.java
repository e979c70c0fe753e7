package io.github.workerpool.spring.boot.autoconfigure.web;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.workerpool.Pool;
import org.eclipse.jetty.util.component.LifeCycle;
import org.eclipse.jetty.util.thread.ThreadPool;

/**
 * A Jetty {@link ThreadPool} over the web server pool: Jetty's request processing runs on the
 * pool, and the connectors' acceptors and selectors run on threads of their own.
 */
final class JettyPoolThreadPool implements ThreadPool {

    /*
     * Jetty runs everything on the server's ThreadPool: the tasks its selectors produce (a request
     * on a connection, an async dispatch, AsyncContext.start), and also each connector's acceptors
     * and selectors, tasks that run until the connector stops. On the pool those would hold
     * threads for ever: the pool would never be quiet, its counts and timers would carry tasks
     * that never end, every one would count as past a run timeout, and a tune below them would stop the
     * server. So they get threads of their own, named <pool>-connector-N, as a QueuedThreadPool's
     * threads would be leased to them (ThreadPoolBudget); the pool keeps only the request work,
     * and its admission rule (capacity - reserved-threads) is the same as on Tomcat.
     *
     * A connector executes its acceptors and selectors on the thread that starts it, inside its
     * start (AbstractConnector.doStart, ManagedSelector.doStart); every other task comes from a
     * selector, a pool thread or an application thread. A listener on each connector marks the
     * starting thread for the length of the start, and the tasks executed from it then are the
     * connector's own.
     *
     * Not a TryExecutor: Jetty's AdaptiveExecutionStrategy then never hands a selector's
     * production over to another thread (EXECUTE_PRODUCE_CONSUME), so selecting stays on the
     * selector's own thread and never becomes a task on the pool that does not end; a blocking
     * task is executed on the pool (PRODUCE_EXECUTE_CONSUME), a non-blocking one runs on the
     * selector. Not a SizedThreadPool either: the pool is sized by its own options, and Jetty's
     * thread budget has nothing to lease from it.
     *
     * The pool never refuses these tasks (WebServerPool's rules), as Jetty closes a refused task;
     * once the pool is closed, at shutdown after the web server, a task is refused and closed.
     */

    private final Pool pool;

    private final WebServerPool webServerPool;

    private final ThreadLocal<Boolean> startingConnector = new ThreadLocal<>();

    private final AtomicInteger connectorThreads = new AtomicInteger();

    private final AtomicInteger connectorThreadNumber = new AtomicInteger();

    JettyPoolThreadPool(WebServerPool webServerPool) {
        this.webServerPool = webServerPool;
        this.pool = webServerPool.pool();
    }

    @Override
    public void execute(Runnable task) {
        if (Boolean.TRUE.equals(this.startingConnector.get())) {
            startConnectorThread(task);
            return;
        }
        this.webServerPool.executor().execute(task);
    }

    private void startConnectorThread(Runnable task) {
        Thread thread = new Thread(() -> {
            this.connectorThreads.incrementAndGet();
            try {
                task.run();
            }
            finally {
                this.connectorThreads.decrementAndGet();
            }
        }, this.pool.name() + "-connector-" + this.connectorThreadNumber.incrementAndGet());
        // Not a daemon, as Jetty's own threads: the application lives while the server does.
        thread.setDaemon(false);
        thread.start();
    }

    /** Marks the thread that starts a connector, so that the tasks it executes meanwhile get their own threads. */
    LifeCycle.Listener connectorStartListener() {
        return new LifeCycle.Listener() {

            @Override
            public void lifeCycleStarting(LifeCycle connector) {
                JettyPoolThreadPool.this.startingConnector.set(Boolean.TRUE);
            }

            @Override
            public void lifeCycleStarted(LifeCycle connector) {
                JettyPoolThreadPool.this.startingConnector.remove();
            }

            @Override
            public void lifeCycleFailure(LifeCycle connector, Throwable failure) {
                JettyPoolThreadPool.this.startingConnector.remove();
            }

        };
    }

    /** The connectors' acceptor and selector threads running now. */
    int connectorThreads() {
        return this.connectorThreads.get();
    }

    /** The pool behind this thread pool. */
    Pool pool() {
        return this.pool;
    }

    @Override
    public void join() throws InterruptedException {
        if (this.pool instanceof ExecutorService executorService) {
            executorService.awaitTermination(Long.MAX_VALUE, TimeUnit.NANOSECONDS);
            return;
        }
        while (!this.pool.isTerminated()) {
            TimeUnit.MILLISECONDS.sleep(100);
        }
    }

    /** The pool's threads: running and idle. */
    @Override
    public int getThreads() {
        return this.pool.running() + this.pool.idle();
    }

    @Override
    public int getIdleThreads() {
        return this.pool.idle();
    }

    /** True when every thread the pool may have is busy, so a new task waits in its queue. */
    @Override
    public boolean isLowOnThreads() {
        int capacity = this.pool.capacity();
        return capacity >= 0 && this.pool.running() >= capacity;
    }

    @Override
    public String toString() {
        return "JettyPoolThreadPool[pool=" + this.pool.name() + ", connectorThreads=" + connectorThreads() + "]";
    }

}
