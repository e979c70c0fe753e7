package io.github.workerpool.benchmarks;

import io.github.workerpool.FunctionPool;
import io.github.workerpool.MultiPool;
import io.github.workerpool.WorkerPool;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.springframework.scheduling.concurrent.ThreadPoolTaskExecutor;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * The executors under test, each built with the same concurrency limit {@code n}. Names are the
 * values of the benchmarks' {@code peer} parameter and the labels of the report.
 */
public enum Peer {

    /** WorkerPool in queue mode: capacity n, a queue that never fills. */
    WORKERPOOL_QUEUE("WorkerPool-queue") {
        @Override
        Target create(int n) {
            return Target.of(WorkerPool.builder().name("bench").capacity(n).queueCapacity(Integer.MAX_VALUE).build());
        }
    },
    /**
     * WorkerPool in queue mode with a queue as long as the pool is wide (n tasks; callers wait when
     * it is full): memory bounded like the hand-off's, workers that never wait for the producer.
     */
    WORKERPOOL_QUEUE_N("WorkerPool-queue-n") {
        @Override
        Target create(int n) {
            return Target.of(WorkerPool.builder().name("bench").capacity(n).queueCapacity(n).build());
        }
    },
    /** WorkerPool with ants semantics: no queue, the caller blocks until a worker takes the task. */
    WORKERPOOL_HANDOFF("WorkerPool-handoff") {
        @Override
        Target create(int n) {
            return Target.of(WorkerPool.builder().name("bench").capacity(n).build());
        }
    },
    /** WorkerPool in queue mode with virtual-thread workers (Java 21+). */
    WORKERPOOL_VIRTUAL_QUEUE("WorkerPool-virtual-queue") {
        @Override
        Target create(int n) {
            requireVirtualThreads();
            return Target.of(WorkerPool.builder().name("bench").capacity(n).queueCapacity(Integer.MAX_VALUE)
                    .virtualThreads(true).build());
        }
    },
    /** WorkerPool hand-off mode with virtual-thread workers (Java 21+). */
    WORKERPOOL_VIRTUAL_HANDOFF("WorkerPool-virtual-handoff") {
        @Override
        Target create(int n) {
            requireVirtualThreads();
            return Target.of(WorkerPool.builder().name("bench").capacity(n).virtualThreads(true).build());
        }
    },
    /** The baseline: {@code new ThreadPoolExecutor(n, n, ..., new LinkedBlockingQueue<>())}, i.e. newFixedThreadPool(n). */
    TPE_LBQ("TPE-LBQ") {
        @Override
        Target create(int n) {
            ThreadPoolExecutor tpe = new ThreadPoolExecutor(n, n, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>());
            return Target.ofTpe(tpe);
        }
    },
    /**
     * WorkerPool-virtual-queue's semantics in the JDK: {@code newFixedThreadPool(n)} whose threads are virtual
     * (a TPE of n virtual workers and an unbounded LinkedBlockingQueue; Java 21+).
     */
    TPE_LBQ_VIRTUAL("TPE-LBQ-virtual") {
        @Override
        Target create(int n) {
            ThreadPoolExecutor tpe = new ThreadPoolExecutor(n, n, 60, TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
                    virtualThreadFactory());
            return Target.ofTpe(tpe);
        }
    },
    /** The exact equivalent of hand-off mode: SynchronousQueue, and a rejection handler that blocks on put. */
    TPE_SYNC_BLOCKING("TPE-sync-blockingput") {
        @Override
        Target create(int n) {
            ThreadPoolExecutor tpe = new ThreadPoolExecutor(n, n, 60, TimeUnit.SECONDS, new SynchronousQueue<>(),
                    BLOCKING_PUT);
            return Target.ofTpe(tpe);
        }
    },
    /** SynchronousQueue with CallerRunsPolicy: a full pool makes the caller run the task itself. */
    TPE_SYNC_CALLER_RUNS("TPE-sync-callerruns") {
        @Override
        Target create(int n) {
            ThreadPoolExecutor tpe = new ThreadPoolExecutor(n, n, 60, TimeUnit.SECONDS, new SynchronousQueue<>(),
                    new ThreadPoolExecutor.CallerRunsPolicy());
            return Target.ofTpe(tpe);
        }
    },
    /** Spring's ThreadPoolTaskExecutor, core = max = n, unbounded queue (a TPE with Spring's wrapping). */
    SPRING_TPTE("Spring-TPTE") {
        @Override
        Target create(int n) {
            ThreadPoolTaskExecutor spring = new ThreadPoolTaskExecutor();
            spring.setCorePoolSize(n);
            spring.setMaxPoolSize(n);
            spring.setThreadNamePrefix("bench-");
            spring.initialize();
            return new Target() {
                @Override
                public void submit(Runnable task) {
                    spring.execute(task);
                }

                @Override
                public void resize(int capacity) {
                    if (capacity > spring.getMaxPoolSize()) {
                        spring.setMaxPoolSize(capacity);
                        spring.setCorePoolSize(capacity);
                    } else {
                        spring.setCorePoolSize(capacity);
                        spring.setMaxPoolSize(capacity);
                    }
                }

                @Override
                public void close() {
                    spring.shutdown();
                }
            };
        }
    },
    /** The JVM-wide ForkJoinPool.commonPool() (parallelism = cores - 1; n is ignored). */
    FJP_COMMON("FJP-common") {
        @Override
        Target create(int n) {
            ForkJoinPool common = ForkJoinPool.commonPool();
            return new Target() {
                @Override
                public void submit(Runnable task) {
                    common.execute(task);
                }

                @Override
                public void close() {
                    // never shut down the common pool
                }
            };
        }
    },
    /** A dedicated {@code new ForkJoinPool(n)}. */
    FJP("FJP") {
        @Override
        Target create(int n) {
            return Target.of(new ForkJoinPool(n));
        }
    },
    /** {@code Executors.newVirtualThreadPerTaskExecutor()}: one new virtual thread per task, no limit (Java 21+). */
    VT_UNBOUNDED("VT-unbounded") {
        @Override
        Target create(int n) {
            return Target.of(newVirtualThreadPerTaskExecutor());
        }
    },
    /** A virtual thread per task, at most n at once: the caller acquires a Semaphore permit per task (Java 21+). */
    VT_SEMAPHORE("VT-semaphore") {
        @Override
        Target create(int n) {
            ExecutorService vt = newVirtualThreadPerTaskExecutor();
            Semaphore permits = new Semaphore(n);
            return new Target() {
                @Override
                public void submit(Runnable task) throws InterruptedException {
                    permits.acquire();
                    try {
                        vt.execute(() -> {
                            try {
                                task.run();
                            } finally {
                                permits.release();
                            }
                        });
                    } catch (RuntimeException e) {
                        permits.release();
                        throw e;
                    }
                }

                @Override
                public void close() {
                    shutdownAndWait(vt);
                }
            };
        }
    },
    /**
     * Reactor's bounded-elastic scheduler with the same thread limit n ({@code Schedulers.boundedElastic()} is
     * the same scheduler with 10 x cores threads) and an unbounded task queue.
     */
    REACTOR_BOUNDED_ELASTIC("Reactor-boundedElastic") {
        @Override
        Target create(int n) {
            Scheduler scheduler = Schedulers.newBoundedElastic(n, Integer.MAX_VALUE, "bench");
            return new Target() {
                @Override
                public void submit(Runnable task) {
                    scheduler.schedule(task);
                }

                @Override
                public void close() {
                    scheduler.disposeGracefully().block(Duration.ofMinutes(5));
                }
            };
        }
    },
    /**
     * MultiPool: two WorkerPools (one per core here) in queue mode, n / 2 workers each, tasks
     * dealt round-robin; ants' answer to contention on one pool.
     */
    MULTIPOOL("MultiPool") {
        @Override
        Target create(int n) {
            return Target.of(MultiPool.of(2, WorkerPool.builder().name("bench").capacity(Math.max(1, n / 2))
                    .queueCapacity(Integer.MAX_VALUE), MultiPool.LoadBalancing.ROUND_ROBIN));
        }
    },
    /**
     * The same MultiPool with least-tasks balancing: each task goes to the sub-pool with the fewest
     * running, queued and waiting tasks.
     */
    MULTIPOOL_LEAST("MultiPool-least") {
        @Override
        Target create(int n) {
            return Target.of(MultiPool.of(2, WorkerPool.builder().name("bench").capacity(Math.max(1, n / 2))
                    .queueCapacity(Integer.MAX_VALUE), MultiPool.LoadBalancing.LEAST_TASKS));
        }
    },
    /** FunctionPool bound to {@code Runnable::run} in queue mode: the task is the function's argument. */
    FUNCTIONPOOL("FunctionPool") {
        @Override
        Target create(int n) {
            FunctionPool<Runnable> pool = FunctionPool.of(
                    WorkerPool.builder().name("bench").capacity(n).queueCapacity(Integer.MAX_VALUE), Runnable::run);
            return new Target() {
                @Override
                public void submit(Runnable task) {
                    pool.invoke(task);
                }

                @Override
                public void close() {
                    pool.close();
                }
            };
        }
    },
    ;

    private final String label;

    Peer(String label) {
        this.label = label;
    }

    /** The label used in @Param values and reports. */
    public String label() {
        return label;
    }

    /** Creates this executor with concurrency limit n. */
    abstract Target create(int n);

    /** Whether this peer can run on the current JVM (virtual threads need Java 21). */
    public boolean supported() {
        return !needsVirtualThreads() || virtualThreadsSupported();
    }

    boolean needsVirtualThreads() {
        return this == WORKERPOOL_VIRTUAL_QUEUE || this == WORKERPOOL_VIRTUAL_HANDOFF || this == VT_UNBOUNDED
                || this == VT_SEMAPHORE || this == TPE_LBQ_VIRTUAL;
    }

    /** Finds a peer by label. */
    public static Peer of(String label) {
        for (Peer p : values()) {
            if (p.label.equals(label)) {
                return p;
            }
        }
        throw new IllegalArgumentException("unknown peer '" + label + "'");
    }

    static boolean virtualThreadsSupported() {
        return Runtime.version().feature() >= 21;
    }

    static void requireVirtualThreads() {
        if (!virtualThreadsSupported()) {
            throw new UnsupportedOperationException("this peer needs virtual threads (Java 21+), but the JVM is "
                    + Runtime.version() + "; run the benchmarks on Java 21+ (run.sh picks JAVA_HOME)");
        }
    }

    /** Java 21's Executors.newVirtualThreadPerTaskExecutor(), reached reflectively so the module compiles for 17. */
    static ExecutorService newVirtualThreadPerTaskExecutor() {
        requireVirtualThreads();
        try {
            return (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor").invoke(null);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Java 21's {@code Thread.ofVirtual().factory()}, reached reflectively so the module compiles for 17. */
    static ThreadFactory virtualThreadFactory() {
        requireVirtualThreads();
        try {
            Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
            return (ThreadFactory) Class.forName("java.lang.Thread$Builder").getMethod("factory").invoke(builder);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
    }

    static void shutdownAndWait(ExecutorService executor) {
        executor.shutdown();
        try {
            if (!executor.awaitTermination(5, TimeUnit.MINUTES)) {
                throw new IllegalStateException("executor did not terminate: " + executor);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * Makes a TPE's caller wait for room, as a blocking WorkerPool does: {@code queue.put} (read by
     * the constants' create methods, which run after the enum's static initialization).
     */
    static final RejectedExecutionHandler BLOCKING_PUT = (r, executor) -> {
        if (executor.isShutdown()) {
            throw new RejectedExecutionException("shut down");
        }
        try {
            executor.getQueue().put(r);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RejectedExecutionException(e);
        }
    };
}
