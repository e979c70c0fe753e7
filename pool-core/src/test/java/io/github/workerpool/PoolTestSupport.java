package io.github.workerpool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;

/**
 * Base for pool tests: pools made with {@link #track} are shut down after each test, and then
 * the invariants every pool must keep are checked: the totals add up, and no worker thread
 * outlives the pool's termination.
 */
abstract class PoolTestSupport {

    static final Duration TIMEOUT = Duration.ofSeconds(10);

    private final List<WorkerPool> pools = new ArrayList<>();
    private final List<CountDownLatch> gates = new ArrayList<>();

    <P extends WorkerPool> P track(P pool) {
        pools.add(pool);
        return pool;
    }

    WorkerPool pool(WorkerPool.Builder builder) {
        return track(builder.build());
    }

    /** A latch opened after each test, so tasks blocked on it never hold up teardown. */
    CountDownLatch gate() {
        CountDownLatch gate = new CountDownLatch(1);
        gates.add(gate);
        return gate;
    }

    @AfterEach
    void checkInvariants() throws InterruptedException {
        gates.forEach(CountDownLatch::countDown);
        for (WorkerPool pool : pools) {
            List<Thread> threads = pool.workerThreads();
            pool.shutdown();
            assertThat(pool.awaitTermination(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS))
                    .as("%s terminates", pool).isTrue();
            assertQuietTotalsAddUp(pool);
            assertThat(pool.quietStructureProblems()).as("internal structure of %s", pool).isEmpty();
            assertThat(pool.workerThreads()).as("worker threads left in %s", pool).isEmpty();
            for (Thread t : threads) {
                t.join(TIMEOUT.toMillis());
                assertThat(t.isAlive()).as("%s outlived %s", t, pool).isFalse();
            }
        }
    }

    static void assertQuietTotalsAddUp(WorkerPool pool) {
        PoolStats s = pool.stats();
        assertThat(s.submitted())
                .as("submitted == completed + failed + rejected + cancelled + running + queued in %s", s)
                .isEqualTo(s.completed() + s.failed() + s.rejected() + s.cancelled() + s.running() + s.queued());
    }

    /**
     * A thread whose start() starts it and then throws, as a factory's thread that registers
     * itself after {@code super.start()} might: the pool cannot tell whether it started.
     */
    static Thread startsThenThrows(Runnable body) {
        return new Thread(body) {
            @Override
            public synchronized void start() {
                super.start();
                throw new IllegalStateException("registered nowhere");
            }
        };
    }

    static void awaitUntil(String what, java.util.concurrent.Callable<Boolean> condition) {
        await(what).atMost(TIMEOUT).pollInterval(Duration.ofMillis(2)).until(condition);
    }

    /** Runs n tasks that hold their workers until the returned gate opens; returns once all n run. */
    CountDownLatch occupy(WorkerPool pool, int n) throws InterruptedException {
        CountDownLatch gate = gate();
        CountDownLatch started = new CountDownLatch(n);
        for (int i = 0; i < n; i++) {
            pool.execute(() -> {
                started.countDown();
                hold(gate);
            });
        }
        assertThat(started.await(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)).as("%d tasks started", n).isTrue();
        return gate;
    }

    /** Opens the latch; tasks use it to hold a worker busy until the test lets go. */
    static void open(CountDownLatch latch) {
        latch.countDown();
    }

    /** Waits on the latch inside a task, failing the task (not hanging) if the test never opens it. */
    static void hold(CountDownLatch latch) {
        try {
            if (!latch.await(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new AssertionError("gate not opened within " + TIMEOUT);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RuntimeException(e);
        }
    }

    /** Joins each thread, waiting up to {@code seconds} for each, and asserts that it finished. */
    static void joinAll(List<Thread> threads, long seconds) throws InterruptedException {
        for (Thread t : threads) {
            t.join(TimeUnit.SECONDS.toMillis(seconds));
            assertThat(t.isAlive()).as("%s finished", t.getName()).isFalse();
        }
    }

    /**
     * Submits {@code perProducer} runs of the task from each of {@code producers} threads with
     * execute() and returns once all of them got through (60 s each at most, else it fails).
     */
    static void submitFromThreads(java.util.concurrent.Executor pool, int producers, int perProducer, Runnable task)
            throws InterruptedException {
        List<Thread> threads = new ArrayList<>();
        for (int p = 0; p < producers; p++) {
            threads.add(start("producer-" + p, () -> {
                for (int i = 0; i < perProducer; i++) {
                    pool.execute(task);
                }
            }));
        }
        joinAll(threads, 60);
    }

    /** Starts a thread that runs the action; the test joins it. */
    static Thread start(String name, Runnable action) {
        Thread t = new Thread(action, name);
        t.setDaemon(true);
        t.start();
        return t;
    }
}
