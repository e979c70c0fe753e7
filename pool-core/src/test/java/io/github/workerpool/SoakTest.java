package io.github.workerpool;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The soak: many tasks from several producers while a chaos thread tunes, purges, interrupts,
 * and cycles release/reboot and shutdownNow/reboot, and a storm thread reconfigures several live
 * options at once and adds and removes listeners ({@link ReconfigureStorm}); tasks throw
 * exceptions and Errors (StackOverflowError). At the end every task is accounted for
 * ({@code submitted == ran + rejected + returned}), the pool's totals add up, its listeners heard
 * an end for every start, no worker thread is left, and the heap is back near its starting
 * level. Prints its figures.
 *
 * <p>The normal build runs a short version; the full one is
 * {@code ./mvnw -pl pool-core test -Dtest=SoakTest -Dsoak.tasks=10000000}; add
 * {@code -Dsoak.only=MultiPool} (part of a label) to soak one pool type.
 */
class SoakTest {

    private static final long TASKS = Long.getLong("soak.tasks", 200_000);
    private static final int PRODUCERS = 4;

    /** What the soak needs from a pool type. */
    interface Target {
        String name();

        void submit(Runnable task);

        void tune(int capacity);

        boolean tunable();

        int purge();

        void release();

        void reboot();

        /** Stops now; returns how many accepted tasks never started. */
        int stopNow();

        boolean awaitTermination() throws InterruptedException;

        PoolStats stats();

        /** Worker threads not yet exited (empty once terminated). */
        int liveWorkerThreads();

        /** The pool itself, for the reconfiguration storm. */
        Pool pool();

        /** What is wrong with the quiet pool's internal structure (of every sub-pool); empty if all is well. */
        List<String> quietStructureProblems();

        /**
         * Shuts one sub-pool down on its own and reboots it (a MultiPool's callers waiting in it
         * are sent on to the others); false, doing nothing, for a pool without sub-pools.
         */
        default boolean bounceSubPool(ThreadLocalRandom random) {
            return false;
        }
    }

    static Target of(WorkerPool p) {
        return new Target() {
            public String name() { return p.name(); }
            public void submit(Runnable task) { p.execute(task); }
            public void tune(int capacity) { p.tune(capacity); }
            public boolean tunable() { return !p.config().preAlloc(); }
            public int purge() { return p.purge(); }
            public void release() { p.release(); }
            public void reboot() { p.reboot(); }
            public int stopNow() { return p.shutdownNow().size(); }
            public boolean awaitTermination() throws InterruptedException { return p.awaitTermination(60, TimeUnit.SECONDS); }
            public PoolStats stats() { return p.stats(); }
            public int liveWorkerThreads() { return p.workerThreads().size(); }
            public Pool pool() { return p; }
            public List<String> quietStructureProblems() { return p.quietStructureProblems(); }
        };
    }

    static Target of(FunctionPool<Runnable> p) {
        return new Target() {
            public String name() { return p.name(); }
            public void submit(Runnable task) { p.invoke(task); }
            public void tune(int capacity) { p.tune(capacity); }
            public boolean tunable() { return true; }
            public int purge() { return p.purge(); }
            public void release() { p.release(); }
            public void reboot() { p.reboot(); }
            public int stopNow() { return p.releaseNow().size(); }
            public boolean awaitTermination() throws InterruptedException { return p.awaitTermination(Duration.ofSeconds(60)); }
            public PoolStats stats() { return p.stats(); }
            public int liveWorkerThreads() { return p.pool().workerThreads().size(); }
            public Pool pool() { return p; }
            public List<String> quietStructureProblems() { return p.pool().quietStructureProblems(); }
        };
    }

    static Target of(MultiPool p) {
        return new Target() {
            public String name() { return p.name(); }
            public void submit(Runnable task) { p.execute(task); }
            public void tune(int capacity) { p.tune(capacity); }
            public boolean tunable() { return true; }
            public int purge() { return p.purge(); }
            public void release() { p.release(); }
            public void reboot() { p.reboot(); }
            public int stopNow() { return p.shutdownNow().size(); }
            public boolean awaitTermination() throws InterruptedException { return p.awaitTermination(60, TimeUnit.SECONDS); }
            public PoolStats stats() { return p.stats(); }
            public int liveWorkerThreads() { return p.pools().stream().mapToInt(w -> w.workerThreads().size()).sum(); }
            public Pool pool() { return p; }
            public List<String> quietStructureProblems() {
                return p.pools().stream().flatMap(w -> w.quietStructureProblems().stream()).toList();
            }
            public boolean bounceSubPool(ThreadLocalRandom random) {
                WorkerPool sub = p.pool(random.nextInt(p.size()));
                sub.shutdown();
                Thread.yield();
                sub.reboot();
                return true;
            }
        };
    }

    static Stream<Arguments> targets() {
        return Stream.of(
                Arguments.of("WorkerPool hand-off", (Supplier<Target>) () -> of(
                        WorkerPool.builder().name("soak-handoff").capacity(4).panicHandler(t -> { })
                                .expiry(Duration.ofMillis(5)).build())),
                Arguments.of("WorkerPool queue", (Supplier<Target>) () -> of(
                        WorkerPool.builder().name("soak-queue").capacity(4).queueCapacity(256)
                                .blockingTimeout(Duration.ofMillis(50)).panicHandler(t -> { }).build())),
                Arguments.of("WorkerPool unbounded queue", (Supplier<Target>) () -> of(
                        WorkerPool.builder().name("soak-unbounded").capacity(4).queueCapacity(Integer.MAX_VALUE)
                                .panicHandler(t -> { }).build())),
                Arguments.of("WorkerPool nonblocking", (Supplier<Target>) () -> of(
                        WorkerPool.builder().name("soak-nonblocking").capacity(3).queueCapacity(16)
                                .nonblocking(true).panicHandler(t -> { }).build())),
                Arguments.of("WorkerPool preAlloc", (Supplier<Target>) () -> of(
                        WorkerPool.builder().name("soak-prealloc").capacity(4).preAlloc(true)
                                .maxBlockingTasks(2).panicHandler(t -> { }).build())),
                Arguments.of("FunctionPool", (Supplier<Target>) () -> of(FunctionPool.<Runnable>of(
                        WorkerPool.builder().name("soak-function").capacity(4).queueCapacity(64).panicHandler(t -> { }),
                        Runnable::run))),
                Arguments.of("MultiPool", (Supplier<Target>) () -> of(MultiPool.of(3,
                        WorkerPool.builder().name("soak-multi").capacity(2).queueCapacity(8).panicHandler(t -> { }),
                        MultiPool.LoadBalancing.LEAST_TASKS))),
                // Virtual-thread workers, hand-off mode; needs Java 21+, so the filter below drops it on 17.
                Arguments.of("WorkerPool virtual hand-off", (Supplier<Target>) () -> of(
                        WorkerPool.builder().name("soak-virtual").capacity(4).virtualThreads(true)
                                .panicHandler(t -> { }).build())))
                .filter(a -> Threads.virtualThreadsSupported() || !((String) a.get()[0]).contains("virtual"))
                .filter(a -> ((String) a.get()[0]).contains(System.getProperty("soak.only", "")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("targets")
    void everyTaskIsAccountedFor(String label, Supplier<Target> factory) throws Exception {
        Target pool = factory.get(); // before counting threads: the first pool starts the shared purger
        long heapBefore = usedHeapAfterGc();
        long started = System.nanoTime();

        AtomicLong submitted = new AtomicLong();
        AtomicLong ran = new AtomicLong();
        AtomicLong rejected = new AtomicLong();
        AtomicLong returned = new AtomicLong();
        AtomicLong faults = new AtomicLong();
        AtomicBoolean producing = new AtomicBoolean(true);
        List<Thread> producers = new ArrayList<>();

        long perProducer = TASKS / PRODUCERS;
        for (int p = 0; p < PRODUCERS; p++) {
            Thread t = new Thread(() -> {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                for (long i = 0; i < perProducer; i++) {
                    int kind = random.nextInt(1000);
                    submitted.incrementAndGet();
                    try {
                        pool.submit(() -> {
                            ran.incrementAndGet();
                            if (kind < 10) {
                                throw new IllegalStateException("injected");
                            } else if (kind == 10) {
                                recurse(); // StackOverflowError inside a task
                            } else if (kind == 11) {
                                Thread.currentThread().interrupt(); // a task that leaves its interrupt set
                            }
                        });
                    } catch (PoolClosedException e) {
                        rejected.incrementAndGet();
                        Thread.yield(); // the chaos thread reboots the pool soon; let it
                    } catch (RejectedExecutionException e) {
                        rejected.incrementAndGet();
                        Thread.interrupted(); // an interrupted wait leaves the flag set by contract
                    }
                }
            }, "soak-producer-" + p);
            producers.add(t);
            t.start();
        }
        Thread chaos = new Thread(() -> {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            boolean tunable = pool.tunable();
            while (producing.get()) {
                int move = random.nextInt(100);
                faults.incrementAndGet();
                if (move < 45 && tunable) {
                    pool.tune(1 + random.nextInt(8));
                } else if (move < 80) {
                    if (move < 72 || !pool.bounceSubPool(random)) {
                        pool.purge();
                    }
                } else if (move < 96) {
                    producers.get(random.nextInt(PRODUCERS)).interrupt();
                } else if (move < 99) {
                    pool.release();
                    Thread.yield();
                    pool.reboot();
                } else {
                    returned.addAndGet(pool.stopNow());
                    Thread.yield();
                    pool.reboot();
                }
                try {
                    Thread.sleep(1); // pacing for the chaos thread, not a wait for an outcome
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "soak-chaos");
        chaos.start();
        // Reconfiguration storms, racing the producers and the chaos thread's tune, purge, release,
        // shutdownNow and reboot, and then the final drain: several live options at once,
        // listeners added and removed.
        ReconfigureStorm storm = new ReconfigureStorm(pool.pool());
        AtomicBoolean storming = new AtomicBoolean(true);
        AtomicReference<Throwable> stormFailure = new AtomicReference<>();
        Thread stormer = new Thread(() -> {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            try {
                while (storming.get()) {
                    for (int burst = 1 + random.nextInt(3); burst > 0; burst--) {
                        storm.step(random);
                    }
                    Thread.sleep(1); // pacing, as for the chaos thread
                }
            } catch (InterruptedException e) {
                return;
            } catch (Throwable t) {
                stormFailure.set(t);
            }
        }, "soak-storm");
        stormer.start();
        for (Thread t : producers) {
            t.join();
        }
        producing.set(false);
        chaos.join();
        pool.release();
        boolean terminated;
        try {
            terminated = pool.awaitTermination();
        } finally {
            storming.set(false);
            stormer.join();
        }
        assertThat(terminated).as("%s terminates", pool).isTrue();

        PoolStats s = pool.stats();
        long lost = submitted.get() - ran.get() - rejected.get() - returned.get();
        long heapAfter = usedHeapAfterGc();
        System.out.printf("soak %-24s tasks=%,d ran=%,d rejected=%,d returned=%,d faults=%,d lost=%d "
                        + "failed=%,d reconfigurations=%,d (refused %,d, listener changes %,d) queueTimeouts=%,d "
                        + "runTimeouts=%,d heap %,d KB -> %,d KB in %,d ms%n",
                label, submitted.get(), ran.get(), rejected.get(), returned.get(), faults.get(), lost, s.failed(),
                storm.reconfigurations.sum(), storm.refused.sum(), storm.listenerChanges.sum(), s.queueTimeouts(),
                s.runTimeouts(), heapBefore / 1024, heapAfter / 1024,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
        if (pool.pool() instanceof MultiPool multi) {
            System.out.printf("soak %-24s callers sent on from a sub-pool shut down on its own: %,d%n", label,
                    multi.rerouted());
        }

        assertThat(stormFailure.get()).as("the storm's own checks").isNull();
        assertThat(lost).as("lost tasks").isZero();
        assertThat(s.submitted()).isEqualTo(submitted.get());
        assertThat(s.rejected()).isEqualTo(rejected.get());
        assertThat(s.cancelled()).isEqualTo(returned.get());
        assertThat(s.completed() + s.failed()).isEqualTo(ran.get());
        assertThat(s.submitted()).as("submitted == completed + failed + rejected + cancelled + running + queued, %s", s)
                .isEqualTo(s.completed() + s.failed() + s.rejected() + s.cancelled() + s.running() + s.queued());
        storm.assertListenersAgreeWith(s);
        assertThat(pool.quietStructureProblems()).as("internal structure of %s", pool.name()).isEmpty();
        assertThat(pool.liveWorkerThreads()).isZero();
        awaitNoThreadsNamed(pool.name() + "-");
        assertThat(heapAfter).as("heap back near its starting level").isLessThan(heapBefore + 32L * 1024 * 1024);
    }

    @org.junit.jupiter.api.Test
    void taskGroups_everyTaskEndsExactlyOnce() throws Exception {
        long heapBefore = usedHeapAfterGc();
        long started = System.nanoTime();
        long tasks = 0;
        long succeeded = 0;
        long failed = 0;
        long cancelled = 0;
        try (WorkerPool pool = WorkerPool.builder().name("soak-group").capacity(4).queueCapacity(64).build()) {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            int groups = (int) Math.max(10, TASKS / 200);
            for (int g = 0; g < groups; g++) {
                TaskGroup<Integer> group = TaskGroup.builder(pool).failFast(random.nextBoolean()).build();
                int size = 200;
                for (int i = 0; i < size; i++) {
                    int kind = random.nextInt(1000);
                    int n = i;
                    group.submit(self -> {
                        if (kind < 10) {
                            throw new IllegalStateException("injected");
                        } else if (kind < 20) {
                            self.cancel();
                        } else if (kind == 20) {
                            recurse();
                        }
                        return n;
                    });
                }
                if (random.nextInt(10) == 0) {
                    group.cancel();
                }
                try {
                    group.awaitAll();
                } catch (java.util.concurrent.ExecutionException expected) {
                    // some groups contain failures
                }
                for (TaskGroup.Task<Integer> t : group.tasks()) {
                    assertThat(t.isDone()).as("task %s done", t).isTrue();
                }
                TaskGroup.Counts c = group.counts();
                assertThat(c.pending()).isZero();
                assertThat(c.submitted()).isEqualTo(c.succeeded() + c.failed() + c.cancelled());
                tasks += c.submitted();
                succeeded += c.succeeded();
                failed += c.failed();
                cancelled += c.cancelled();
            }
        }
        long heapAfter = usedHeapAfterGc();
        System.out.printf("soak %-24s tasks=%,d succeeded=%,d failed=%,d cancelled=%,d lost=%d heap %,d KB -> %,d KB in %,d ms%n",
                "TaskGroup", tasks, succeeded, failed, cancelled, tasks - succeeded - failed - cancelled,
                heapBefore / 1024, heapAfter / 1024, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
        assertThat(tasks - succeeded - failed - cancelled).isZero();
        awaitNoThreadsNamed("soak-group-");
        assertThat(heapAfter).isLessThan(heapBefore + 32L * 1024 * 1024);
    }

    @org.junit.jupiter.api.Test
    void pipelines_checkpointIsAlwaysTheLastFullyDoneBatch() throws Exception {
        long started = System.nanoTime();
        long batches = 0;
        long runs = Math.max(10, TASKS / 2_000);
        ThreadLocalRandom random = ThreadLocalRandom.current();
        io.github.workerpool.pipeline.Checkpoint<Long> checkpoint = io.github.workerpool.pipeline.Checkpoint.inMemory();
        long next = 1;
        long total = 500 * runs;
        int restarts = 0;
        while (next <= total) {
            long failAt = random.nextInt(4) == 0 ? next + random.nextInt(500) : -1;
            try (io.github.workerpool.pipeline.Pipeline p = io.github.workerpool.pipeline.Pipeline.builder()
                    .name("soak-pipeline").concurrency(3, 4, 2, 1).build()) {
                long resumeFrom = checkpoint.load().orElse(0L) + 1;
                assertThat(resumeFrom).as("resumes right after the checkpoint").isEqualTo(next);
                long end = Math.min(total, resumeFrom + 499); // one run of a restartable job
                for (long b = resumeFrom; b <= end; b++) {
                    long batch = b;
                    boolean admitted = p.submit(
                            () -> Thread.onSpinWait(),
                            () -> {
                                if (batch == failAt) {
                                    throw new IllegalStateException("injected at batch " + batch);
                                }
                            },
                            () -> Thread.onSpinWait(),
                            checkpoint.saving(batch));
                    if (!admitted) {
                        break;
                    }
                    batches++;
                }
                try {
                    p.await();
                } catch (io.github.workerpool.pipeline.PipelineException e) {
                    restarts++;
                }
                io.github.workerpool.pipeline.Pipeline.Stats s = p.stats();
                assertThat(s.submitted()).isEqualTo(s.completed() + s.failed() + s.stopped() + s.inFlight());
            }
            long saved = checkpoint.load().orElse(0L);
            if (failAt > 0 && failAt <= Math.min(total, next + 499)) {
                assertThat(saved).as("checkpoint after a failure at %d", failAt).isEqualTo(failAt - 1);
            }
            next = saved + 1;
        }
        assertThat(checkpoint.load()).contains(total);
        System.out.printf("soak %-24s batches=%,d restarts=%d lost=0 in %,d ms%n", "Pipeline", batches, restarts,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
        awaitNoThreadsNamed("soak-pipeline-");
    }

    private static void recurse() {
        recurse();
    }

    private static long usedHeapAfterGc() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    private static void awaitNoThreadsNamed(String prefix) {
        org.awaitility.Awaitility.await("no thread named " + prefix + "* alive").atMost(Duration.ofSeconds(10))
                .pollInSameThread()
                .until(() -> Thread.getAllStackTraces().keySet().stream()
                        .noneMatch(t -> t.getName().startsWith(prefix)));
    }
}
