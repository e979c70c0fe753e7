package io.github.workerpool;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Bounded concurrency stress in the normal build: several producers against one pool while
 * another thread tunes, purges and reconfigures several live options at once at random
 * ({@link ReconfigureStorm}) and some tasks throw; afterwards every task is accounted for (ran,
 * rejected, or returned by shutdownNow), the listeners the storm added and removed heard an end
 * for every start, and no worker thread is left.
 */
class WorkerPoolStressTest extends PoolTestSupport {

    private static final int PRODUCERS = 4;
    private static final int TASKS_PER_PRODUCER = 20_000;

    static Stream<Arguments> pools() {
        return Stream.of(
                Arguments.of("hand-off, blocking", (Supplier<WorkerPool.Builder>) () ->
                        WorkerPool.builder().name("handoff").capacity(4)),
                Arguments.of("queue, blocking", (Supplier<WorkerPool.Builder>) () ->
                        WorkerPool.builder().name("queue").capacity(3).queueCapacity(64)),
                Arguments.of("nonblocking", (Supplier<WorkerPool.Builder>) () ->
                        WorkerPool.builder().name("nonblocking").capacity(2).nonblocking(true)),
                Arguments.of("unbounded queue", (Supplier<WorkerPool.Builder>) () ->
                        WorkerPool.builder().name("unbounded").capacity(3).queueCapacity(Integer.MAX_VALUE)),
                Arguments.of("queue, nonblocking, no spin", (Supplier<WorkerPool.Builder>) () ->
                        WorkerPool.builder().name("qnb").capacity(2).queueCapacity(8).nonblocking(true).spinNanos(0)),
                Arguments.of("blocking with limits", (Supplier<WorkerPool.Builder>) () ->
                        WorkerPool.builder().name("limits").capacity(2).maxBlockingTasks(2)
                                .blockingTimeout(Duration.ofMillis(1))),
                Arguments.of("short expiry", (Supplier<WorkerPool.Builder>) () ->
                        WorkerPool.builder().name("expiry").capacity(4).expiry(Duration.ofMillis(1))));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("pools")
    void everyTaskIsAccountedFor_underTunePurgeAndReconfigureStorms(String label, Supplier<WorkerPool.Builder> builder)
            throws Exception {
        WorkerPool pool = pool(builder.get().panicHandler(t -> { }));
        AtomicLong ran = new AtomicLong();
        AtomicLong threw = new AtomicLong();
        AtomicLong rejected = new AtomicLong();
        AtomicBoolean producing = new AtomicBoolean(true);
        ReconfigureStorm storm = new ReconfigureStorm(pool);
        AtomicReference<Throwable> chaosFailure = new AtomicReference<>();

        Thread chaos = start("chaos", () -> {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            boolean tunable = !pool.config().preAlloc();
            try {
                while (producing.get()) {
                    int move = random.nextInt(3);
                    if (tunable && move == 0) {
                        pool.tune(1 + random.nextInt(6));
                    } else if (move == 1) {
                        storm.step(random);
                    } else {
                        pool.purge();
                    }
                    Thread.yield();
                }
            } catch (Throwable t) {
                chaosFailure.set(t);
            }
        });
        List<Thread> producers = new ArrayList<>();
        for (int p = 0; p < PRODUCERS; p++) {
            producers.add(start("producer-" + p, () -> {
                ThreadLocalRandom random = ThreadLocalRandom.current();
                for (int i = 0; i < TASKS_PER_PRODUCER; i++) {
                    boolean fail = random.nextInt(10) == 0;
                    try {
                        pool.execute(() -> {
                            ran.incrementAndGet();
                            if (fail) {
                                threw.incrementAndGet();
                                throw new IllegalStateException("injected");
                            }
                        });
                    } catch (RejectedExecutionException e) {
                        rejected.incrementAndGet();
                    }
                }
            }));
        }
        joinAll(producers, 60);
        producing.set(false);
        chaos.join(10_000);
        assertThat(chaosFailure.get()).as("the storm's own checks").isNull();
        pool.shutdown();
        assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).as("%s terminates", pool).isTrue();

        long submitted = (long) PRODUCERS * TASKS_PER_PRODUCER;
        PoolStats s = pool.stats();
        storm.assertListenersAgreeWith(s);
        assertThat(ran.get() + rejected.get()).as("ran + rejected").isEqualTo(submitted);
        assertThat(s.submitted()).isEqualTo(submitted);
        assertThat(s.rejected()).isEqualTo(rejected.get());
        assertThat(s.failed()).isEqualTo(threw.get());
        assertThat(s.completed()).isEqualTo(ran.get() - threw.get());
        assertThat(s.running() + s.queued() + s.waiting() + s.idle()).isZero();
        assertThat(pool.workerThreads()).isEmpty();
    }

    static Stream<Arguments> queuePools() {
        return Stream.of(
                Arguments.of("unbounded, 2 workers", 2, Integer.MAX_VALUE),
                Arguments.of("unbounded, 64 workers", 64, Integer.MAX_VALUE),
                Arguments.of("bounded, 2 workers", 2, 100_000),
                Arguments.of("bounded, 64 workers", 64, 100_000));
    }

    /**
     * Batches of no-op tasks, each awaited: the queue runs dry after every batch, so workers keep
     * going idle while the next batch starts, which is where a missed wake-up strands a task (an
     * intermediate version of the searching workers did so within a few hundred batches).
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("queuePools")
    void queueMode_batchesOfTinyTasks_neverStrandOne(String label, int capacity, int queueCapacity) throws Exception {
        WorkerPool pool = pool(WorkerPool.builder().name("batches").capacity(capacity).queueCapacity(queueCapacity));
        AtomicInteger remaining = new AtomicInteger();
        Semaphore done = new Semaphore(0);
        Runnable task = () -> {
            if (remaining.decrementAndGet() == 0) {
                done.release();
            }
        };
        for (int batch = 0; batch < 2_000; batch++) {
            remaining.set(1_000);
            for (int i = 0; i < 1_000; i++) {
                pool.execute(task);
            }
            assertThat(done.tryAcquire(10, TimeUnit.SECONDS))
                    .as("batch %d finished; %s, %d tasks left", batch, pool.stats(), remaining.get()).isTrue();
        }
        // A worker counts a task as completed just after running it, so after the last batch's release.
        awaitUntil("every task counted", () -> pool.stats().completed() == 2_000_000);
        assertThat(pool.queued()).isZero();
    }

    /**
     * Many workers, a small bounded queue, blocking producers and tasks that park briefly: the
     * callers wait for a slot most of the time while dozens of workers take at once, so most takes
     * are marked for the one worker that claims the job of letting them in
     * (QueueEngine.letWaitersIn). Every task runs, every producer gets through, the totals add up
     * (checked after the test), and no caller is left waiting.
     */
    @Test
    void boundedQueue_manyWorkersAndWaitingProducers_runEveryTask() throws Exception {
        WorkerPool pool = pool(WorkerPool.builder().name("wide").capacity(64).queueCapacity(8));
        int producers = 4;
        int perProducer = 10_000;
        AtomicLong ran = new AtomicLong();
        Runnable task = () -> {
            LockSupport.parkNanos(200_000);
            ran.incrementAndGet();
        };
        submitFromThreads(pool, producers, perProducer, task); // each gets through: no caller left waiting for a slot
        awaitUntil("every task ran", () -> ran.get() == (long) producers * perProducer);
        assertThat(pool.waiting()).isZero();
        awaitUntil("every task counted", () -> pool.stats().completed() == (long) producers * perProducer);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("pools")
    void shutdownNow_whileProducing_losesNothing(String label, Supplier<WorkerPool.Builder> builder) throws Exception {
        WorkerPool pool = pool(builder.get().panicHandler(t -> { }));
        AtomicLong ran = new AtomicLong();
        AtomicLong rejected = new AtomicLong();
        AtomicLong submittedByProducers = new AtomicLong();
        List<Thread> producers = new ArrayList<>();
        // Reconfiguration storms race the producers, shutdownNow, and the stopped pool's drain.
        ReconfigureStorm storm = new ReconfigureStorm(pool);
        AtomicBoolean storming = new AtomicBoolean(true);
        AtomicReference<Throwable> stormFailure = new AtomicReference<>();
        Thread stormer = start("storm", () -> {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            try {
                while (storming.get()) {
                    storm.step(random);
                    Thread.yield();
                }
            } catch (Throwable t) {
                stormFailure.set(t);
            }
        });
        for (int p = 0; p < PRODUCERS; p++) {
            producers.add(start("producer-" + p, () -> {
                for (int i = 0; i < TASKS_PER_PRODUCER / 4; i++) {
                    submittedByProducers.incrementAndGet();
                    try {
                        pool.execute(ran::incrementAndGet);
                    } catch (RejectedExecutionException e) {
                        rejected.incrementAndGet();
                    }
                }
            }));
        }
        awaitUntil("some work done", () -> ran.get() > 100 || !producers.get(0).isAlive());
        List<Runnable> returned = pool.shutdownNow();
        for (Thread t : producers) {
            t.join(TimeUnit.SECONDS.toMillis(60));
        }
        storming.set(false);
        stormer.join(10_000);
        assertThat(stormFailure.get()).as("the storm's own checks").isNull();
        assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        assertThat(ran.get() + rejected.get() + returned.size())
                .as("ran + rejected + returned").isEqualTo(submittedByProducers.get());
        PoolStats s = pool.stats();
        assertThat(s.cancelled()).isEqualTo(returned.size());
        assertThat(s.rejected()).isEqualTo(rejected.get());
        assertThat(s.completed()).isEqualTo(ran.get());
        storm.assertListenersAgreeWith(s);
    }
}
