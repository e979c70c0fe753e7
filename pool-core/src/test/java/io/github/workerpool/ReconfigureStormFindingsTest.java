package io.github.workerpool;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * What the reconfiguration storms (WorkerPoolStressTest, SoakTest, pool-jcstress) found in
 * pool-core, one reproducer each: each failed on the code it was written against (commit
 * f1be6ce) and passes since its fix.
 */
class ReconfigureStormFindingsTest extends PoolTestSupport {

    /**
     * A caller about to park in {@code Waiter.await} reads {@code blockingTimeoutNanos} (no limit),
     * then publishes {@code parked = true} and re-checks only {@code status}, not the timeout.
     * {@code reconfigure} writes the new timeout and then nudges only waiters whose {@code parked}
     * it sees set. If the reconfiguration falls between the caller's read of the timeout and its
     * write of {@code parked}, neither side sees the other: the caller parks with no deadline and
     * the new timeout never reaches it; it waits until a worker frees up, however long that is.
     * Fails within a few seconds (on the development machine about 1 iteration in 6 000).
     */
    @Test
    void aNewBlockingTimeout_reachesACallerThatIsJustParking() throws Exception {
        WorkerPool pool = pool(WorkerPool.builder().name("nudge").capacity(1).spinNanos(0));
        CountDownLatch gate = gate();
        pool.execute(() -> hold(gate)); // the only worker stays busy: callers wait
        awaitUntil("the worker is busy", () -> pool.running() == 1);
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
        for (int i = 0; System.nanoTime() - end < 0; i++) {
            AtomicReference<Throwable> thrown = new AtomicReference<>();
            Thread caller = start("caller", () -> {
                try {
                    pool.execute(() -> { });
                } catch (Throwable t) {
                    thrown.set(t);
                }
            });
            while (pool.waiting() == 0) {
                Thread.onSpinWait(); // reconfigure right after the caller registers: it is about to park
                if (!caller.isAlive()) {
                    throw new AssertionError("iteration " + i + ": the caller left without waiting", thrown.get());
                }
            }
            pool.reconfigure(c -> c.withBlockingTimeout(Duration.ZERO));
            caller.join(TIMEOUT.toMillis()); // the bug waits for ever; a stalled VM may take a second
            boolean stuck = caller.isAlive();
            if (stuck) {
                pool.reconfigure(c -> c.withBlockingTimeout(Duration.ofMillis(1))); // a second nudge lets it go
                caller.join(TIMEOUT.toMillis());
            }
            assertThat(stuck).as("iteration %d: the caller still waited 1 s after blockingTimeout became 0", i)
                    .isFalse();
            assertThat(thrown.get()).isInstanceOf(PoolOverloadException.class);
            pool.reconfigure(c -> c.withBlockingTimeout(null));
        }
        open(gate);
    }

    /**
     * {@code MultiPool.reconfigure} applies the change once, to sub-pool 0's options read before
     * any sub-pool changes, and then gives every sub-pool that whole result
     * ({@code p.reconfigure(c -> next.withName(c.name()))}): every option is overwritten with a
     * possibly stale value. A concurrent {@code tune} (itself a reconfigure) or reconfigure that
     * lands in between is undone, on some sub-pools or all. WorkerPool applies the change to the
     * latest options under its lock and retries, so there concurrent reconfigurations compose
     * (WorkerPoolLiveOptionsTest.concurrentReconfigurations_eachApplyToTheOthersResult). The soak
     * saw it the other way round: a chaos {@code tune} reverted the storm's expiry, disablePurge
     * and queueTimeout on a MultiPool. Since then the multi-pool's reconfigurations also take
     * turns (a later review: two at once could leave the sub-pools split), so the tune waits for
     * the other to finish and then applies to its result.
     */
    @Test
    void multiPool_concurrentTuneAndReconfigure_bothTakeEffect() throws Exception {
        MultiPool pools = MultiPool.of(2, WorkerPool.builder().name("multi").capacity(1),
                MultiPool.LoadBalancing.ROUND_ROBIN);
        try {
            CountDownLatch inChange = new CountDownLatch(1);
            CountDownLatch go = new CountDownLatch(1);
            Thread reconfigurer = start("reconfigurer", () -> pools.reconfigure(c -> {
                inChange.countDown();
                hold(go);
                return c.withNonblocking(true);
            }));
            assertThat(inChange.await(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
            Thread tuner = start("tuner", () -> pools.tune(5));
            awaitUntil("the tune waits its turn", () -> tuner.getState() == Thread.State.WAITING
                    || !tuner.isAlive());
            open(go);
            reconfigurer.join(TIMEOUT.toMillis());
            tuner.join(TIMEOUT.toMillis());
            assertThat(pools.pools()).allSatisfy(p -> {
                assertThat(p.config().nonblocking()).as("%s nonblocking", p.name()).isTrue();
                assertThat(p.config().capacity()).as("%s capacity after tune(5)", p.name()).isEqualTo(5);
            });
        } finally {
            pools.shutdownNow();
            assertThat(pools.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        }
    }

    /**
     * Growing the capacity to unbounded (-1) on a queue pool starts one worker per queued task at
     * once: {@code resizeLocked} takes {@code room = Integer.MAX_VALUE} and
     * {@code wanted = waiters + queuedAtMost(room)}, creates every worker while holding the pool's
     * lock and starts them all on the reconfiguring thread. With 20 000 tasks queued behind one busy
     * worker that is 20 000 threads, and the call took 29 s on the development machine (loaded);
     * the short soak's unbounded-queue run stalled for about 15 s on one such storm step. A pool
     * whose capacity is unbounded from the start queues a task only while a worker is idle or
     * searching, so it never holds such a backlog; only the live change makes one run at once.
     */
    @Test
    void growingToUnboundedCapacity_withABacklog_doesNotStartAThreadPerQueuedTask() throws Exception {
        WorkerPool pool = pool(WorkerPool.builder().name("backlog").capacity(1).queueCapacity(Integer.MAX_VALUE));
        CountDownLatch gate = occupy(pool, 1);
        for (int i = 0; i < 5_000; i++) {
            pool.execute(() -> { });
        }
        pool.reconfigure(c -> c.withCapacity(-1));
        int threads = pool.workerThreads().size();
        open(gate);
        assertThat(threads).as("worker threads right after the capacity became unbounded, for 5 000 queued tiny tasks")
                .isLessThan(1_000);
    }
}
