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
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The soak: many tasks from several producers while a chaos thread tunes, purges, interrupts,
 * and cycles release/reboot and shutdownNow/reboot; tasks throw exceptions and Errors
 * (StackOverflowError). At the end every task is accounted for
 * ({@code submitted == ran + rejected + returned}), no worker thread is left, and the heap is back
 * near its starting level. Prints its figures.
 *
 * <p>The normal build runs a short version; the full one is
 * {@code ./mvnw -pl pool-core test -Dtest=SoakTest -Dsoak.tasks=10000000}.
 */
class SoakTest {

    private static final long TASKS = Long.getLong("soak.tasks", 200_000);
    private static final int PRODUCERS = 4;

    static Stream<Arguments> targets() {
        return Stream.of(
                Arguments.of("WorkerPool hand-off", (Supplier<WorkerPool>) () ->
                        WorkerPool.builder().name("soak-handoff").capacity(4).panicHandler(t -> { })
                                .expiry(Duration.ofMillis(5)).build()),
                Arguments.of("WorkerPool queue", (Supplier<WorkerPool>) () ->
                        WorkerPool.builder().name("soak-queue").capacity(4).queueCapacity(256)
                                .blockingTimeout(Duration.ofMillis(50)).panicHandler(t -> { }).build()),
                Arguments.of("WorkerPool nonblocking", (Supplier<WorkerPool>) () ->
                        WorkerPool.builder().name("soak-nonblocking").capacity(3).queueCapacity(16)
                                .nonblocking(true).panicHandler(t -> { }).build()),
                Arguments.of("WorkerPool preAlloc", (Supplier<WorkerPool>) () ->
                        WorkerPool.builder().name("soak-prealloc").capacity(4).preAlloc(true)
                                .maxBlockingTasks(2).panicHandler(t -> { }).build()));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("targets")
    void everyTaskIsAccountedFor(String label, Supplier<WorkerPool> factory) throws Exception {
        WorkerPool pool = factory.get(); // before counting threads: the first pool starts the shared purger
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
                        pool.execute(() -> {
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
            boolean tunable = !pool.config().preAlloc();
            while (producing.get()) {
                int move = random.nextInt(100);
                faults.incrementAndGet();
                if (move < 45 && tunable) {
                    pool.tune(1 + random.nextInt(8));
                } else if (move < 80) {
                    pool.purge();
                } else if (move < 96) {
                    producers.get(random.nextInt(PRODUCERS)).interrupt();
                } else if (move < 99) {
                    pool.release();
                    Thread.yield();
                    pool.reboot();
                } else {
                    returned.addAndGet(pool.shutdownNow().size());
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
        for (Thread t : producers) {
            t.join();
        }
        producing.set(false);
        chaos.join();
        pool.shutdown();
        assertThat(pool.awaitTermination(60, TimeUnit.SECONDS)).as("%s terminates", pool).isTrue();

        PoolStats s = pool.stats();
        long lost = submitted.get() - ran.get() - rejected.get() - returned.get();
        long heapAfter = usedHeapAfterGc();
        System.out.printf("soak %-24s tasks=%,d ran=%,d rejected=%,d returned=%,d faults=%,d lost=%d "
                        + "failed=%,d heap %,d KB -> %,d KB in %,d ms%n",
                label, submitted.get(), ran.get(), rejected.get(), returned.get(), faults.get(), lost, s.failed(),
                heapBefore / 1024, heapAfter / 1024, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));

        assertThat(lost).as("lost tasks").isZero();
        assertThat(s.submitted()).isEqualTo(submitted.get());
        assertThat(s.rejected()).isEqualTo(rejected.get());
        assertThat(s.cancelled()).isEqualTo(returned.get());
        assertThat(s.completed() + s.failed()).isEqualTo(ran.get());
        assertThat(pool.workerThreads()).isEmpty();
        awaitNoThreadsNamed(pool.name() + "-");
        assertThat(heapAfter).as("heap back near its starting level").isLessThan(heapBefore + 32L * 1024 * 1024);
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
