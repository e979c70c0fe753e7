package io.github.workerpool;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The hand-off engine's pending slots (HandOffEngine's notes): a caller that finds every worker
 * busy leaves its task for the next worker to finish, and takes it back if none does in time or
 * the pool stops. Each test drives many hand-offs through them and checks that every submission
 * ran exactly once, or was rejected and never ran.
 */
class HandOffPendingTest extends PoolTestSupport {

    private static final int PRODUCERS = 4;

    /**
     * Several callers submit one and the same Runnable, more callers than pending slots: every
     * submission runs once, and no slot is left full. (jcstress PendingSameTaskTest checks that
     * a caller never takes another's copy of the same object for its own.)
     */
    @Test
    void oneRunnableFromSeveralCallers_runsOncePerSubmission() throws Exception {
        WorkerPool pool = WorkerPool.builder().name("pending").capacity(2).build();
        AtomicLong ran = new AtomicLong();
        Runnable task = ran::incrementAndGet;
        int each = 50_000;
        submitFromThreads(pool, PRODUCERS, each, task);
        pool.shutdown();
        assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        assertThat(ran.get()).isEqualTo((long) PRODUCERS * each);
        assertThat(pool.stats().completed()).isEqualTo((long) PRODUCERS * each);
        assertThat(pool.quietStructureProblems()).isEmpty();
    }

    /**
     * Callers keep submitting distinct tasks while the pool shuts down: a caller whose task is
     * pending when the pool stops takes it back and is rejected, unless a worker took it first, in
     * which case it runs. No task both runs and is rejected, none is lost.
     */
    @Test
    void callersRacingShutdown_eachTaskRunsOnceOrIsRejected() throws Exception {
        for (int round = 0; round < 20; round++) {
            WorkerPool pool = WorkerPool.builder().name("pending").capacity(2).build();
            int each = 20_000;
            AtomicIntegerArray ran = new AtomicIntegerArray(PRODUCERS * each);
            AtomicIntegerArray accepted = new AtomicIntegerArray(PRODUCERS * each);
            CountDownLatch started = new CountDownLatch(PRODUCERS);
            List<Thread> producers = new ArrayList<>();
            for (int p = 0; p < PRODUCERS; p++) {
                int base = p * each;
                producers.add(start("producer-" + p, () -> {
                    started.countDown();
                    for (int i = base; i < base + each; i++) {
                        int id = i;
                        try {
                            pool.execute(() -> ran.incrementAndGet(id));
                            accepted.set(id, 1);
                        } catch (RejectedExecutionException closed) {
                            // rejected: must never run
                        }
                    }
                }));
            }
            started.await();
            // Shut down at a different point of the stream each round.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (pool.stats().completed() < round * 3_000L && System.nanoTime() - deadline < 0) {
                Thread.onSpinWait();
            }
            pool.shutdown();
            joinAll(producers, 60);
            assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
            for (int id = 0; id < PRODUCERS * each; id++) {
                assertThat(ran.get(id)).as("task %d (accepted: %d) ran", id, accepted.get(id)).isEqualTo(accepted.get(id));
            }
            assertThat(pool.quietStructureProblems()).isEmpty();
        }
    }
}
