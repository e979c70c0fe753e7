package io.github.workerpool;

import io.github.workerpool.MultiPool.LoadBalancing;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

class MultiPoolTest {

    @RegisterExtension
    final Invariants invariants = new Invariants();

    private static final Duration WAIT = Duration.ofSeconds(5);

    private final CountDownLatch release = new CountDownLatch(1);

    private WorkerPool.Builder builder(int capacity) {
        return WorkerPool.builder().name(Invariants.uniqueName("mp")).capacity(capacity);
    }

    /** Holds the one worker of each of the two sub-pools, each until its own latch opens. */
    private static CountDownLatch[] holdEach(MultiPool pools) {
        CountDownLatch[] holds = {new CountDownLatch(1), new CountDownLatch(1)};
        for (int i = 0; i < 2; i++) {
            CountDownLatch hold = holds[i];
            pools.pool(i).execute(() -> Latches.pass(hold));
        }
        await().atMost(WAIT).until(() -> pools.running() == 2);
        return holds;
    }

    private Runnable blocker() {
        return () -> Latches.pass(release);
    }

    @Test
    void of_createsSizePools_namedAfterTheBuilder_andLeavesTheBuilderAsItWas() {
        WorkerPool.Builder b = builder(2);
        MultiPool pools = invariants.track(MultiPool.of(3, b, LoadBalancing.ROUND_ROBIN));
        assertThat(pools.size()).isEqualTo(3);
        assertThat(pools.pools()).extracting(WorkerPool::name)
                .containsExactly(pools.name() + "-0", pools.name() + "-1", pools.name() + "-2");
        assertThat(b.name()).isEqualTo(pools.name());
        assertThat(pools.capacity()).isEqualTo(6);
    }

    @Test
    void close_waitsForEverySubPool_butNotForOneRebootedMeanwhile() throws Exception {
        // Found by a review: a sub-pool rebooted on its own made close() return at once, before the
        // others had finished (or, with the first fix, wait for the rebooted one for ever).
        MultiPool pools = invariants.track(MultiPool.of(2, builder(1), LoadBalancing.ROUND_ROBIN));
        CountDownLatch gate0 = new CountDownLatch(1);
        CountDownLatch gate1 = new CountDownLatch(1);
        pools.pool(0).execute(() -> Latches.pass(gate0));
        pools.pool(1).execute(() -> Latches.pass(gate1));
        AtomicReference<Boolean> firstTerminatedWhenClosed = new AtomicReference<>();
        Thread closer = new Thread(() -> {
            pools.close();
            firstTerminatedWhenClosed.set(pools.pool(0).isTerminated());
        }, "closer");
        closer.start();
        await().atMost(WAIT).until(() -> pools.pool(0).isShutdown() && pools.pool(1).isShutdown()
                && (closer.getState() == Thread.State.WAITING || closer.getState() == Thread.State.TIMED_WAITING));
        pools.pool(1).reboot();
        assertThat(closer.isAlive()).as("still waits for sub-pool 0").isTrue();
        gate0.countDown();
        closer.join(WAIT.toMillis());
        assertThat(closer.isAlive()).as("close() returned").isFalse();
        assertThat(firstTerminatedWhenClosed.get()).as("sub-pool 0 had finished").isTrue();
        assertThat(pools.pool(1).isShutdown()).isFalse();
        gate1.countDown();
    }

    @Test
    void close_interrupted_stopsTheSubPoolsItShutDown_notOneRebootedMeanwhile() throws Exception {
        // Found by a review: the interrupt's shutdownNow() also stopped the rebooted sub-pool.
        MultiPool pools = invariants.track(MultiPool.of(2, builder(1), LoadBalancing.ROUND_ROBIN));
        CountDownLatch gate0 = new CountDownLatch(1);
        CountDownLatch started1 = new CountDownLatch(1);
        CountDownLatch gate1 = new CountDownLatch(1);
        AtomicReference<Boolean> interrupted1 = new AtomicReference<>();
        pools.pool(0).execute(() -> Latches.pass(gate0)); // stays until interrupted
        Thread closer = new Thread(pools::close, "closer");
        closer.start();
        await().atMost(WAIT).until(() -> pools.pool(0).isShutdown() && pools.pool(1).isTerminated()
                && (closer.getState() == Thread.State.WAITING || closer.getState() == Thread.State.TIMED_WAITING));
        pools.pool(1).reboot();
        pools.pool(1).execute(() -> {
            started1.countDown();
            try {
                interrupted1.set(!gate1.await(WAIT.toMillis(), TimeUnit.MILLISECONDS));
            } catch (InterruptedException e) {
                interrupted1.set(true);
            }
        });
        assertThat(started1.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        closer.interrupt();
        closer.join(WAIT.toMillis());
        assertThat(closer.isAlive()).as("close() returned").isFalse();
        assertThat(pools.pool(0).isTerminated()).isTrue();
        assertThat(pools.pool(1).isShutdown()).as("the rebooted sub-pool runs on").isFalse();
        gate1.countDown();
        await().atMost(WAIT).until(() -> interrupted1.get() != null);
        assertThat(interrupted1.get()).as("its task was interrupted").isFalse();
        gate0.countDown();
    }

    @Test
    void queueCapacity_isTheSumOfThePoolsQueues_whileConfigIsOnePools() {
        MultiPool bounded = invariants.track(MultiPool.of(3, builder(1).queueCapacity(10), LoadBalancing.ROUND_ROBIN));
        assertThat(bounded.queueCapacity()).isEqualTo(30);
        assertThat(bounded.config().queueCapacity()).isEqualTo(10);
        MultiPool unbounded = invariants.track(MultiPool.of(2, builder(1).queueCapacity(Integer.MAX_VALUE),
                LoadBalancing.ROUND_ROBIN));
        assertThat(unbounded.queueCapacity()).isEqualTo(Integer.MAX_VALUE);
        MultiPool handOff = invariants.track(MultiPool.of(2, builder(1), LoadBalancing.ROUND_ROBIN));
        assertThat(handOff.queueCapacity()).isZero();
    }

    @Test
    void of_badSize_throwsNamingTheSetting() {
        assertThatThrownBy(() -> MultiPool.of(0, builder(1), LoadBalancing.ROUND_ROBIN))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("size").hasMessageContaining("0");
    }

    @Test
    void roundRobin_spreadsTasksOverEveryPool() {
        MultiPool pools = invariants.track(MultiPool.of(4, builder(2), LoadBalancing.ROUND_ROBIN));
        for (int i = 0; i < 8; i++) {
            pools.execute(blocker());
        }
        await().atMost(WAIT).until(() -> pools.running() == 8);
        assertThat(pools.pools()).allSatisfy(p -> assertThat(p.running()).isEqualTo(2));
        release.countDown();
    }

    @Test
    void leastTasks_choosesTheLeastBusyPool_countingQueuedTasks_notJustRunningOnes() {
        MultiPool pools = invariants.track(MultiPool.of(2, builder(2).queueCapacity(10), LoadBalancing.LEAST_TASKS));
        // Pool 0: 1 running + 3 queued (load 4). Pool 1: 2 running (load 2). ants, looking at running
        // only, would pick pool 0.
        pools.pool(0).execute(blocker());
        await().atMost(WAIT).until(() -> pools.pool(0).running() == 1);
        pools.pool(0).tune(1);
        for (int i = 0; i < 3; i++) {
            pools.pool(0).execute(blocker());
        }
        pools.pool(1).execute(blocker());
        pools.pool(1).execute(blocker());
        await().atMost(WAIT).until(() -> pools.pool(1).running() == 2);
        assertThat(pools.pool(0).queued()).isEqualTo(3);

        pools.execute(blocker());

        assertThat(pools.pool(1).queued()).isEqualTo(1);
        assertThat(pools.pool(0).queued()).isEqualTo(3);
        release.countDown();
    }

    @Test
    void leastTasks_withUnboundedQueues_countsEachTaskSentBetweenReadsOfTheQueuedCounts() {
        // The queued counts are read once in QUEUED_READ_EVERY choices; in between, each task sent
        // counts, or the choices would all go to the pool that looked least busy at the last read.
        MultiPool pools = invariants.track(MultiPool.of(2, builder(1).queueCapacity(Integer.MAX_VALUE),
                LoadBalancing.LEAST_TASKS));
        pools.pool(0).execute(blocker());
        pools.pool(1).execute(blocker());
        await().atMost(WAIT).until(() -> pools.running() == 2);
        for (int i = 0; i < 8; i++) {
            pools.pool(1).execute(() -> { }); // pool 1 starts 8 behind
        }
        int burst = MultiPool.QUEUED_READ_EVERY; // one read, at the first choice
        for (int i = 0; i < burst; i++) {
            pools.execute(() -> { });
        }
        // Pool 0 takes the first 8 (its count rising to pool 1's), then the two alternate: 12 / 12.
        // Counting only the read, all 16 would go to pool 0: 16 / 8.
        assertThat(new int[] {pools.pool(0).queued(), pools.pool(1).queued()})
                .as("queued per sub-pool after a burst of " + burst)
                .containsExactly(12, 12);
        release.countDown();
    }

    @Test
    void execute_whenTheChosenPoolIsFull_triesTheOthersBeforeRejecting() {
        MultiPool pools = invariants.track(MultiPool.of(3, builder(1).nonblocking(true), LoadBalancing.ROUND_ROBIN));
        pools.pool(0).execute(blocker());
        pools.pool(1).execute(blocker());
        await().atMost(WAIT).until(() -> pools.running() == 2);

        pools.execute(blocker()); // whichever pool round-robin picks, only pool 2 has room

        await().atMost(WAIT).until(() -> pools.pool(2).running() == 1);
        Heard heard = new Heard();
        pools.addListener(heard);
        // Review helper-72: the refusal named the sub-pool tried last, which the caller never named.
        assertThatThrownBy(() -> pools.execute(blocker())).isInstanceOf(PoolOverloadException.class)
                .hasMessageStartingWith("multi-pool '" + pools.name() + "' refused the task (each of its pools was tried): pool '")
                .satisfies((e) -> assertThat(((PoolOverloadException) e).getPoolName()).isEqualTo(pools.name()))
                .satisfies((e) -> assertThat(heard.rejections).containsExactly((PoolOverloadException) e));
        assertThat(heard.pools).containsExactly(pools);
        assertThat(pools.stats().rejected()).isEqualTo(1);
        // A sub-pool used on its own refuses as itself.
        assertThatThrownBy(() -> pools.pool(0).execute(blocker())).isInstanceOf(PoolOverloadException.class)
                .hasMessageStartingWith("pool '" + pools.pool(0).name() + "' is full");
        release.countDown();
    }

    @Test
    void aCallerSentOnFromASubPoolShutDownOnItsOwn_countsItsWholeWaitAsQueueTime() {
        // Review helper-72: the task was stamped again in the second sub-pool, so its wait in the
        // first one dropped out of its queue time (no queue timeout, taskStarted told 0).
        java.util.concurrent.atomic.AtomicLong clock = new java.util.concurrent.atomic.AtomicLong(1_000);
        List<Long> queued = new CopyOnWriteArrayList<>();
        MultiPool pools = invariants.track(MultiPool.of(2, builder(1).queueCapacity(0).clock(clock::get)
                .queueTimeout(Duration.ofMillis(300)), LoadBalancing.ROUND_ROBIN));
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        CountDownLatch ran = new CountDownLatch(1);
        int w = callerWaits(pools, ran::countDown, thrown);
        pools.addListener(new PoolListener() {
            @Override
            public void taskStarted(Pool pool, long queuedNanos) {
                queued.add(queuedNanos);
            }
        });
        clock.addAndGet(TimeUnit.SECONDS.toNanos(1)); // the caller waits a second in sub-pool w

        pools.pool(w).shutdown();
        await().atMost(WAIT).until(() -> pools.pool(1 - w).waiting() == 1);
        release.countDown();
        Latches.pass(ran);

        await().atMost(WAIT).until(() -> pools.stats().completed() == 3);
        assertThat(thrown.get()).isNull();
        assertThat(queued).as("the caller's task, the one started after its wait").containsExactly(TimeUnit.SECONDS.toNanos(1));
        assertThat(pools.stats().queueTimeouts()).isEqualTo(1);
    }

    @Test
    void aRefusalForWantOfAWorkerThread_isTheMultiPools_andDoesNotSayFull() {
        // Review helper-76: the first wording called every routed refusal "full".
        MultiPool pools = invariants.track(MultiPool.of(2, builder(1).threadFactory((r) -> {
            throw new IllegalStateException("no threads here");
        }), LoadBalancing.ROUND_ROBIN));
        assertThatThrownBy(() -> pools.execute(() -> { })).isInstanceOf(PoolOverloadException.class)
                .hasMessageStartingWith("multi-pool '" + pools.name() + "' refused the task (each of its pools was tried): pool '")
                .hasMessageContaining("could not create a worker thread")
                .hasMessageNotContaining("full");
    }

    @ParameterizedTest
    @ValueSource(strings = { "ROUND_ROBIN", "LEAST_TASKS" })
    void whenEveryPoolIsFullOrWithoutAWorkerThread_aBlockingCallerWaitsForALiveWorker_notRefused(String balancing)
            throws Exception {
        // Review helper-95: the chosen sub-pool (LEAST_TASKS picks one with no worker first) had
        // no live worker and a failing thread factory, and refused the task though another
        // sub-pool's busy worker would take it after a wait, as a single blocking pool does.
        java.util.concurrent.atomic.AtomicBoolean failing = new java.util.concurrent.atomic.AtomicBoolean();
        MultiPool pools = invariants.track(MultiPool.of(2, builder(1).disablePurge(true).threadFactory((r) -> {
            if (failing.get()) {
                throw new IllegalStateException("no threads here");
            }
            return new Thread(r);
        }), LoadBalancing.valueOf(balancing)));
        pools.pool(1).execute(blocker());
        await().atMost(WAIT).until(() -> pools.pool(1).running() == 1);
        failing.set(true);
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        CountDownLatch ran = new CountDownLatch(1);
        Thread caller = new Thread(() -> {
            try {
                pools.execute(ran::countDown); // chosen first: sub-pool 0, which has no worker
            } catch (Throwable t) {
                thrown.set(t);
            }
        }, "caller");
        caller.start();
        await().atMost(WAIT).until(() -> pools.pool(1).waiting() == 1 || thrown.get() != null);
        assertThat(thrown.get()).isNull();
        release.countDown();
        Latches.pass(ran);
        caller.join(WAIT.toMillis());
    }

    @Test
    void aCallerSentOnToASubPoolWithRoomAlready_countsItsWholeWaitAsQueueTime_too() throws Exception {
        // Review helper-76: sent on, the caller first tries every sub-pool without waiting, and a
        // sub-pool with room took the task stamped afresh there.
        java.util.concurrent.atomic.AtomicLong clock = new java.util.concurrent.atomic.AtomicLong(1_000);
        List<Long> queued = new CopyOnWriteArrayList<>();
        MultiPool pools = invariants.track(MultiPool.of(2, builder(1).queueCapacity(0).clock(clock::get)
                .disablePurge(true).queueTimeout(Duration.ofMillis(300)), LoadBalancing.ROUND_ROBIN));
        CountDownLatch[] holds = holdEach(pools);
        CountDownLatch ran = new CountDownLatch(1);
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread caller = new Thread(() -> {
            try {
                pools.execute(ran::countDown);
            } catch (Throwable t) {
                thrown.set(t);
            }
        });
        caller.start();
        await().atMost(WAIT).until(() -> pools.waiting() == 1);
        int w = pools.pool(0).waiting() == 1 ? 0 : 1;
        pools.addListener(new PoolListener() {
            @Override
            public void taskStarted(Pool pool, long queuedNanos) {
                queued.add(queuedNanos);
            }
        });
        clock.addAndGet(TimeUnit.SECONDS.toNanos(1)); // the caller waits a second in sub-pool w
        holds[1 - w].countDown(); // the other sub-pool has room before the caller is sent on
        await().atMost(WAIT).until(() -> pools.pool(1 - w).running() == 0);

        pools.pool(w).shutdown();
        Latches.pass(ran);
        caller.join(WAIT.toMillis());
        holds[w].countDown();

        assertThat(thrown.get()).isNull();
        assertThat(queued).as("the caller's task").containsExactly(TimeUnit.SECONDS.toNanos(1));
        assertThat(pools.stats().queueTimeouts()).isEqualTo(1);
    }

    @Test
    void aCallerSentOnFromASubPoolShutDownOnItsOwn_neverMakesTheRejectedTotalGoDown() throws Exception {
        // Review helper-95/96: the sub-pool counted the refusal, then the multi-pool took it back
        // once the caller was on its way: a stats() between read one rejection more than the next
        // (a Prometheus counter that goes down is a reset: the rejection alerts fired).
        MultiPool pools = invariants.track(MultiPool.of(2, builder(1).disablePurge(true), LoadBalancing.ROUND_ROBIN));
        CountDownLatch[] holds = holdEach(pools);
        CountDownLatch told = new CountDownLatch(1);
        CountDownLatch goOn = new CountDownLatch(1);
        PoolListener holdTheRefusal = new PoolListener() {
            @Override
            public void taskRejected(Pool pool, RejectedExecutionException rejection) {
                told.countDown();
                Latches.pass(goOn);
            }
        };
        pools.pool(0).addListener(holdTheRefusal);
        pools.pool(1).addListener(holdTheRefusal);
        CountDownLatch ran = new CountDownLatch(1);
        Thread caller = new Thread(() -> pools.execute(ran::countDown), "caller");
        caller.start();
        await().atMost(WAIT).until(() -> pools.waiting() == 1);
        int w = pools.pool(0).waiting() == 1 ? 0 : 1;
        pools.pool(w).shutdown();
        Latches.pass(told); // the sub-pool has refused the caller, which is not yet on its way
        long during = pools.stats().rejected();
        assertThat(pools.pool(w).stats().rejected()).as("the sub-pool's own total counts it").isEqualTo(1);
        goOn.countDown();
        await().atMost(WAIT).until(() -> pools.pool(1 - w).waiting() == 1);
        assertThat(pools.stats().rejected()).isGreaterThanOrEqualTo(during).isZero();
        holds[1 - w].countDown();
        Latches.pass(ran);
        caller.join(WAIT.toMillis());
        holds[w].countDown();
        assertThat(pools.rerouted()).isEqualTo(1);
    }

    @Test
    void failedTriesOnFullSubPools_neverMakeTheSubmittedTotalGoDown() throws Exception {
        // Review helper-95: each try of a full hand-off sub-pool counted the task, then took it
        // back, so the totals jittered down under load.
        MultiPool pools = invariants.track(MultiPool.of(2, builder(1).nonblocking(true).disablePurge(true),
                LoadBalancing.ROUND_ROBIN));
        pools.execute(blocker());
        pools.execute(blocker());
        await().atMost(WAIT).until(() -> pools.running() == 2);
        java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
        List<Thread> hammers = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Thread t = new Thread(() -> {
                while (!stop.get()) {
                    try {
                        pools.execute(() -> { });
                    } catch (RejectedExecutionException full) {
                        // expected: both sub-pools are full
                    }
                }
            }, "hammer-" + i);
            hammers.add(t);
            t.start();
        }
        long last = 0;
        long lastRejected = 0;
        for (int i = 0; i < 20_000; i++) {
            PoolStats s = pools.stats();
            assertThat(s.submitted()).as("read %d", i).isGreaterThanOrEqualTo(last);
            assertThat(s.rejected()).as("read %d", i).isGreaterThanOrEqualTo(lastRejected);
            last = s.submitted();
            lastRejected = s.rejected();
        }
        stop.set(true);
        for (Thread t : hammers) {
            t.join(WAIT.toMillis());
        }
        assertThat(lastRejected).as("the hammers were refused meanwhile").isPositive();
        release.countDown(); // else the blockers hold the workers for Latches.pass's 10 s
    }

    @Test
    void awaitTermination_ofMinusAges_endsAtOnce_evenWithWorkLeft() throws Exception {
        // Review helper-72: now + minus ages overflowed into a wait of ages.
        MultiPool pools = invariants.track(MultiPool.of(2, builder(1), LoadBalancing.ROUND_ROBIN));
        pools.execute(blocker());
        await().atMost(WAIT).until(() -> pools.running() == 1);
        pools.shutdown();
        org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(WAIT, () -> {
            assertThat(pools.awaitTermination(Long.MIN_VALUE, TimeUnit.NANOSECONDS)).isFalse();
            assertThat(pools.awaitTermination(Duration.ofSeconds(Long.MIN_VALUE))).isFalse();
        });
        release.countDown();
        assertThat(pools.awaitTermination(WAIT)).isTrue();
    }

    @Test
    void execute_whenEveryPoolIsFull_andBlocking_waitsOnOne_thenRuns() throws Exception {
        MultiPool pools = invariants.track(MultiPool.of(2, builder(1), LoadBalancing.LEAST_TASKS));
        pools.execute(blocker());
        pools.execute(blocker());
        await().atMost(WAIT).until(() -> pools.running() == 2);
        AtomicInteger ran = new AtomicInteger();
        Thread caller = new Thread(() -> pools.execute(ran::incrementAndGet));
        caller.start();
        await().atMost(WAIT).until(() -> pools.waiting() == 1);
        assertThat(ran.get()).isZero();
        release.countDown();
        caller.join(5000);
        await().atMost(WAIT).until(() -> ran.get() == 1);
    }

    @Test
    void tune_setsEveryPool_andOnePoolCanBeTunedAlone() {
        MultiPool pools = invariants.track(MultiPool.of(2, builder(1), LoadBalancing.ROUND_ROBIN));
        pools.tune(3);
        assertThat(pools.pools()).allSatisfy(p -> assertThat(p.capacity()).isEqualTo(3));
        pools.pool(1).tune(5);
        assertThat(pools.capacity()).isEqualTo(8);
        assertThatThrownBy(() -> pools.tune(0)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("capacity");
        assertThat(pools.capacity()).isEqualTo(8);
    }

    @Test
    void submit_aCallableThatThrows_isCountedAsFailedByItsPool() throws Exception {
        MultiPool pools = invariants.track(MultiPool.of(2, builder(1), LoadBalancing.ROUND_ROBIN));
        Future<Object> f = pools.submit(() -> {
            throw new IllegalStateException("boom");
        });
        assertThatThrownBy(f::get).isInstanceOf(ExecutionException.class).hasRootCauseMessage("boom");
        await().atMost(WAIT).until(() -> pools.stats().failed() == 1);
        List<Future<Integer>> all = pools.invokeAll(List.of(() -> 1, () -> 2));
        assertThat(all.get(0).get() + all.get(1).get()).isEqualTo(3);
        await().atMost(WAIT).until(() -> pools.stats().completed() == 2);
    }

    @Test
    void timedInvokeAllAndInvokeAny_endAtTheirTimeout_whileTheCallerWaitsInAFullSubPool() throws Exception {
        // Helper-104: a caller blocked in execute() (every sub-pool full) waited past the timeout.
        MultiPool pools = invariants.track(MultiPool.of(2, builder(1), LoadBalancing.ROUND_ROBIN));
        CountDownLatch gate = new CountDownLatch(1);
        try {
            java.util.concurrent.Callable<String> held = () -> {
                gate.await(WAIT.toMillis(), TimeUnit.MILLISECONDS);
                return "late";
            };
            long start = System.nanoTime();
            List<Future<String>> all = pools.invokeAll(List.of(held, held, held), 100, TimeUnit.MILLISECONDS);
            assertThat(all).allSatisfy((f) -> assertThat(f.isCancelled()).isTrue());
            assertThatThrownBy(() -> pools.invokeAny(List.of(held, held, held), 100, TimeUnit.MILLISECONDS))
                .isInstanceOf(java.util.concurrent.TimeoutException.class);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).as("both at their timeout, the gate closed")
                .isLessThan(WAIT.dividedBy(2));
        } finally {
            gate.countDown();
        }
    }

    @Test
    void release_rejectsNamingTheMultiPool_releaseTimeoutWaits_rebootReopens() throws Exception {
        MultiPool pools = invariants.track(MultiPool.of(2, builder(1), LoadBalancing.ROUND_ROBIN));
        pools.execute(() -> { });
        assertThat(pools.releaseTimeout(WAIT)).isTrue();
        assertThat(pools.isClosed()).isTrue();
        assertThat(pools.isTerminated()).isTrue();
        assertThatThrownBy(() -> pools.execute(() -> { })).isInstanceOf(PoolClosedException.class)
                .hasMessageContaining(pools.name()).hasMessageContaining("reboot");
        pools.reboot();
        assertThat(pools.isClosed()).isFalse();
        CountDownLatch ran = new CountDownLatch(1);
        pools.execute(ran::countDown);
        Latches.pass(ran);
        PoolStats s = pools.stats();
        assertThat(s.rejected()).isEqualTo(1);
        assertThat(s.submitted()).isEqualTo(3);
    }

    @Test
    void shutdownNow_returnsEveryTaskThatNeverStarted() {
        MultiPool pools = invariants.track(MultiPool.of(2, builder(1).queueCapacity(5), LoadBalancing.ROUND_ROBIN));
        pools.execute(blocker());
        pools.execute(blocker());
        await().atMost(WAIT).until(() -> pools.running() == 2);
        List<Runnable> queued = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            Runnable r = () -> { };
            queued.add(r);
            pools.execute(r);
        }
        assertThat(pools.queued()).isEqualTo(4);
        assertThat(pools.shutdownNow()).containsExactlyInAnyOrderElementsOf(queued);
        release.countDown();
    }

    @Test
    void stress_manySubmitters_leastTasks_everyTaskRunsOnce_andNoPoolExceedsItsCapacity() throws Exception {
        MultiPool pools = invariants.track(MultiPool.of(4, builder(2).queueCapacity(4), LoadBalancing.LEAST_TASKS));
        int submitters = 4;
        int perSubmitter = 2_000;
        AtomicInteger ran = new AtomicInteger();
        CopyOnWriteArrayList<String> over = new CopyOnWriteArrayList<>();
        AtomicInteger[] concurrent = new AtomicInteger[4];
        for (int i = 0; i < 4; i++) {
            concurrent[i] = new AtomicInteger();
        }
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < submitters; t++) {
            Thread th = new Thread(() -> {
                for (int i = 0; i < perSubmitter; i++) {
                    pools.execute(() -> {
                        String name = Thread.currentThread().getName();
                        int idx = name.charAt(pools.name().length() + 1) - '0';
                        if (concurrent[idx].incrementAndGet() > 2) {
                            over.add(name);
                        }
                        ran.incrementAndGet();
                        concurrent[idx].decrementAndGet();
                    });
                }
            });
            threads.add(th);
            th.start();
        }
        for (Thread th : threads) {
            th.join(30_000);
            assertThat(th.isAlive()).isFalse();
        }
        await().atMost(WAIT).until(() -> ran.get() == submitters * perSubmitter);
        assertThat(over).isEmpty();
        await().atMost(WAIT).until(() -> pools.stats().completed() == submitters * perSubmitter);
        assertThat(pools.stats().rejected()).isZero();
        assertThat(pools.pools()).allSatisfy(p -> assertThat(p.stats().submitted()).isPositive());
    }

    @Test
    void aSubPoolShutDownOnItsOwn_isOutOfTheRotation_itsTasksSpreadOverTheOthers() {
        // Found by a review: it read as the least busy (LEAST_TASKS), or kept its turn (ROUND_ROBIN),
        // and its successor took every task it refused.
        for (LoadBalancing balancing : LoadBalancing.values()) {
            MultiPool pools = invariants.track(MultiPool.of(3, builder(10), balancing));
            pools.pool(0).shutdown();
            for (int i = 0; i < 6; i++) {
                pools.execute(blocker());
            }
            await().atMost(WAIT).until(() -> pools.running() == 6);
            assertThat(new int[] {pools.pool(1).running(), pools.pool(2).running()})
                    .as("running per open sub-pool, " + balancing).containsExactly(3, 3);
        }
        release.countDown();
    }

    @Test
    void aSubPoolOutOfTheRotation_countsOnlyWhatItStillRuns_soBusyOpenPoolsReadAsFull() {
        // helper-115: its capacity and queue room still counted, so a multi-pool whose open
        // sub-pools were all busy never read as saturated (events, health, WorkerPoolSaturated).
        MultiPool pools = invariants.track(MultiPool.of(2, builder(2).queueCapacity(3), LoadBalancing.ROUND_ROBIN));
        pools.pool(0).execute(blocker()); // still running when taken out
        pools.pool(0).shutdown();
        assertThat(pools.capacity()).isEqualTo(2 + 1);
        assertThat(pools.queueCapacity()).isEqualTo(3 + 0);
        assertThat(pools.free()).as("helper-120: the closed sub-pool's free slot counted").isEqualTo(2);
        for (int i = 0; i < 2; i++) {
            pools.execute(blocker());
        }
        await().atMost(WAIT).until(() -> pools.running() == 3);
        PoolStats stats = pools.stats();
        assertThat(stats.capacity()).isEqualTo(3);
        assertThat(stats.running()).as("full").isEqualTo(stats.capacity());
        assertThat(pools.free()).isZero();
        pools.release();
        assertThat(pools.capacity()).as("the multi-pool shut down: its sub-pools' capacities, as before").isEqualTo(4);
        release.countDown();
    }

    @Test
    void releaseTimeout_waitsForWhatItShutDown_notForAPoolRebootedMeanwhile() throws Exception {
        // Helper-120: releaseTimeout() was shutdown() then awaitTermination(), which read the
        // generation again: a reboot by another thread in between made it wait for the running
        // one, all the timeout long, and answer false though what it shut down had ended.
        // The pools have no workers: each terminates as it is shut down (untracked: 40 of them).
        for (int i = 0; i < 20; i++) {
            WorkerPool single = builder(2).build();
            MultiPool multi = MultiPool.of(2, builder(2), LoadBalancing.ROUND_ROBIN);
            for (Pool pool : List.<Pool>of(single, multi)) {
                Thread rebooter = new Thread(() -> {
                    while (!pool.isClosed()) {
                        Thread.onSpinWait();
                    }
                    pool.reboot();
                });
                rebooter.start();
                try {
                    assertThat(pool.releaseTimeout(Duration.ofSeconds(2))).as("round %d, %s", i, pool).isTrue();
                }
                finally {
                    rebooter.join();
                    pool.release();
                }
            }
        }
    }

    @Test
    void releaseTimeout_andAwaitTermination_takeAnyDuration() throws Exception {
        MultiPool pools = invariants.track(MultiPool.of(2, builder(1), LoadBalancing.ROUND_ROBIN));
        assertThat(pools.releaseTimeout(Duration.ofSeconds(Long.MAX_VALUE))).as("overflowed after shutting down")
                .isTrue();
        WorkerPool single = invariants.track(builder(1).build());
        assertThat(single.releaseTimeout(Duration.ofSeconds(Long.MAX_VALUE))).isTrue();
        // With a task still running: a timeout of minus ages ends at once, one of ages waits for it.
        WorkerPool stuck = invariants.track(builder(1).build());
        MultiPool stuckMulti = invariants.track(MultiPool.of(2, builder(1), LoadBalancing.ROUND_ROBIN));
        CountDownLatch unstick = new CountDownLatch(1);
        stuck.execute(() -> Latches.pass(unstick));
        stuckMulti.execute(() -> Latches.pass(unstick));
        try {
            assertThat(stuck.releaseTimeout(Duration.ofSeconds(Long.MIN_VALUE))).isFalse();
            assertThat(stuckMulti.releaseTimeout(Duration.ofSeconds(Long.MIN_VALUE))).isFalse();
        }
        finally {
            unstick.countDown();
        }
        WorkerPool busy = invariants.track(builder(1).build());
        CountDownLatch go = new CountDownLatch(1);
        busy.execute(() -> Latches.pass(go));
        Thread opener = Latches.releaseOnceWaiting(Thread.currentThread(), go);
        try {
            assertThat(busy.releaseTimeout(Duration.ofSeconds(Long.MAX_VALUE))).isTrue();
        }
        finally {
            go.countDown();
            opener.join();
        }
    }

    @Test
    void freeAndStatsCapacity_saturateAsCapacityDoes() {
        MultiPool pools = invariants.track(MultiPool.of(2, builder(Integer.MAX_VALUE), LoadBalancing.ROUND_ROBIN));
        assertThat(pools.capacity()).isEqualTo(Integer.MAX_VALUE);
        assertThat(pools.free()).as("free(), not a wrapped -2").isEqualTo(Integer.MAX_VALUE);
        assertThat(pools.stats().capacity()).isEqualTo(Integer.MAX_VALUE);
    }

    @Test
    void theTaskDecorator_wrapsEachTaskOnce_howeverManyPoolsAreTried() {
        // Found by a review: each sub-pool tried decorated the task again (a span or a context
        // captured per try), and the full-pool path once more.
        AtomicInteger applied = new AtomicInteger();
        AtomicInteger ran = new AtomicInteger();
        MultiPool pools = invariants.track(MultiPool.of(2, builder(1).taskDecorator((r) -> {
            applied.incrementAndGet();
            return () -> {
                ran.incrementAndGet();
                r.run();
            };
        }), LoadBalancing.ROUND_ROBIN));
        pools.execute(blocker()); // pool 0 is full from now on
        await().atMost(WAIT).until(() -> pools.pool(0).running() == 1);
        pools.execute(blocker()); // pool 1: full too
        await().atMost(WAIT).until(() -> pools.running() == 2);
        applied.set(0);
        CountDownLatch third = new CountDownLatch(1);
        Thread caller = new Thread(() -> pools.execute(third::countDown)); // both tried, then it waits for a worker
        caller.start();
        await().atMost(WAIT).until(() -> pools.waiting() == 1);
        release.countDown();
        Latches.pass(third);
        assertThat(applied).as("decorations of the third task").hasValue(1);
        await().atMost(WAIT).until(() -> ran.get() == 3);
    }

    @Test
    void tune_ofPreAllocPools_throwsEvenToTheSameCapacity() {
        MultiPool pools = invariants.track(MultiPool.of(2, builder(2).preAlloc(true), LoadBalancing.ROUND_ROBIN));
        assertThatThrownBy(() -> pools.tune(2))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("preAlloc");
        assertThat(pools.capacity()).isEqualTo(4);
    }

    @Test
    void rejectionListenersThatReadTheMultiPool_doNotDeadlockTwoSubPoolsRefusingAtOnce() throws Exception {
        // Found by a review: the listeners heard a rejection under the refusing pool's lock, and
        // one that read the multi-pool's stats() locked the other sub-pool: two refusals at once
        // waited for each other's lock for ever.
        AtomicReference<MultiPool> self = new AtomicReference<>();
        CyclicBarrier both = new CyclicBarrier(2);
        PoolListener reader = new PoolListener() {
            @Override
            public void taskRejected(Pool pool, RejectedExecutionException rejection) {
                try {
                    both.await(10, TimeUnit.SECONDS);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
                self.get().stats();
            }
        };
        MultiPool pools = invariants.track(MultiPool.of(2, builder(1).nonblocking(true).listener(reader),
                LoadBalancing.ROUND_ROBIN));
        self.set(pools);
        pools.pool(0).execute(() -> Latches.pass(release));
        pools.pool(1).execute(() -> Latches.pass(release));
        await().atMost(WAIT).until(() -> pools.running() == 2);
        ExecutorService callers = Executors.newFixedThreadPool(2);
        try {
            List<Future<Throwable>> refused = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                int index = i;
                refused.add(callers.submit(() -> {
                    try {
                        pools.pool(index).execute(() -> { });
                        return null;
                    } catch (PoolOverloadException e) {
                        return e;
                    }
                }));
            }
            for (Future<Throwable> f : refused) {
                assertThat(f.get(10, TimeUnit.SECONDS)).isInstanceOf(PoolOverloadException.class);
            }
        } finally {
            release.countDown();
            callers.shutdownNow();
        }
        assertThat(pools.stats().rejected()).isEqualTo(2);
    }

    /** A listener that keeps every rejection it hears, with the pool it was told of. */
    private static final class Heard implements PoolListener {
        final List<Pool> pools = new CopyOnWriteArrayList<>();
        final List<RejectedExecutionException> rejections = new CopyOnWriteArrayList<>();

        @Override
        public void taskRejected(Pool pool, RejectedExecutionException rejection) {
            pools.add(pool);
            rejections.add(rejection);
        }
    }

    /** Fills both sub-pools (capacity 1, blocking, queues full) and starts a caller that waits; returns the index it waits in. */
    private int callerWaits(MultiPool pools, Runnable task, AtomicReference<Throwable> thrown) {
        int queue = pools.pool(0).config().queueCapacity();
        for (int i = 0; i < 2; i++) {
            for (int k = 0; k <= queue; k++) {
                pools.pool(i).execute(blocker());
            }
        }
        await().atMost(WAIT).until(() -> pools.running() == 2 && pools.queued() == 2 * queue);
        Thread caller = new Thread(() -> {
            try {
                pools.execute(task);
            } catch (Throwable t) {
                thrown.set(t);
            }
        });
        caller.start();
        await().atMost(WAIT).until(() -> pools.waiting() == 1);
        return pools.pool(0).waiting() == 1 ? 0 : 1;
    }

    @ParameterizedTest(name = "queueCapacity {0}")
    @ValueSource(ints = {0, 1})
    void aCallerWaitingInASubPoolShutDownOnItsOwn_isSentToAnOpenOne_andTheMultiPoolRefusesNothing(int queue) {
        // Found by a review: the caller got the sub-pool's PoolClosedException from an open multi-pool.
        Heard multiHeard = new Heard();
        MultiPool pools = invariants.track(MultiPool.of(2, builder(1).queueCapacity(queue).listener(multiHeard),
                LoadBalancing.ROUND_ROBIN));
        CountDownLatch ran = new CountDownLatch(1);
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        int w = callerWaits(pools, ran::countDown, thrown);
        Heard ownHeard = new Heard();
        pools.pool(w).addListener(ownHeard);

        pools.pool(w).shutdown();

        WorkerPool other = pools.pool(1 - w);
        await().atMost(WAIT).until(() -> other.waiting() == 1);
        assertThat(thrown.get()).isNull();
        release.countDown();
        Latches.pass(ran);
        await().atMost(WAIT).until(() -> pools.stats().completed() == 3 + 2 * queue);
        assertThat(thrown.get()).isNull();
        assertThat(multiHeard.rejections).as("the multi-pool's listeners").isEmpty();
        assertThat(ownHeard.rejections).as("the sub-pool's own listeners").singleElement()
                .isInstanceOf(PoolClosedException.class);
        assertThat(ownHeard.pools).containsExactly(pools.pool(w));
        assertThat(pools.pool(w).stats().rejected()).as("the sub-pool's own count").isEqualTo(1);
        PoolStats s = pools.stats();
        assertThat(s.rejected()).as("the multi-pool's count, " + s).isZero();
        assertThat(s.submitted()).as("the multi-pool's count, " + s).isEqualTo(3 + 2 * queue);
        assertThat(s.completed()).isEqualTo(3 + 2 * queue);
    }

    @ParameterizedTest(name = "queueCapacity {0}")
    @ValueSource(ints = {0, 1})
    void aCallerWaitingWhenTheMultiPoolIsShutDown_isRefusedAsTheMultiPools(int queue) throws Exception {
        // Found by a review: the exception named the sub-pool the caller happened to wait in.
        Heard multiHeard = new Heard();
        MultiPool pools = invariants.track(MultiPool.of(2, builder(1).queueCapacity(queue).listener(multiHeard),
                LoadBalancing.LEAST_TASKS));
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        int w = callerWaits(pools, () -> { }, thrown);
        Heard ownHeard = new Heard();
        pools.pool(w).addListener(ownHeard);

        pools.shutdown();

        await().atMost(WAIT).until(() -> thrown.get() != null);
        assertThat(thrown.get()).isInstanceOf(PoolClosedException.class)
                .hasMessageContaining("multi-pool '" + pools.name() + "'");
        assertThat(((PoolClosedException) thrown.get()).getPoolName()).isEqualTo(pools.name());
        assertThat(multiHeard.rejections).containsExactly((PoolClosedException) thrown.get());
        assertThat(multiHeard.pools).containsExactly(pools);
        assertThat(ownHeard.rejections).singleElement().isNotSameAs(thrown.get());
        release.countDown();
        assertThat(pools.awaitTermination(WAIT)).isTrue();
        PoolStats s = pools.stats();
        assertThat(s.rejected()).as(s.toString()).isEqualTo(1);
        assertThat(s.submitted()).as(s.toString()).isEqualTo(3 + 2 * queue);
    }

    @Test
    void aShutDownMultiPoolsRefusal_isToldToItsListeners_notToASubPoolsOwn() {
        Heard multiHeard = new Heard();
        MultiPool pools = invariants.track(MultiPool.of(2, builder(1).listener(multiHeard), LoadBalancing.ROUND_ROBIN));
        Heard ownHeard = new Heard();
        pools.pool(0).addListener(ownHeard);
        pools.shutdown();

        assertThatThrownBy(() -> pools.execute(() -> { })).isInstanceOf(PoolClosedException.class);

        assertThat(multiHeard.pools).containsExactly(pools);
        assertThat(ownHeard.rejections).isEmpty();
        assertThat(pools.pool(0).stats().rejected()).isZero();
    }

    @Test
    void removingAListenerFromTheMultiPool_leavesTheSameListenerAddedToASubPoolItself() throws Exception {
        // Found by a review: the multi-pool's removeListener took the sub-pool's own registration.
        MultiPool pools = invariants.track(MultiPool.of(2, builder(1).nonblocking(true), LoadBalancing.ROUND_ROBIN));
        Heard heard = new Heard();
        pools.pool(0).addListener(heard);
        pools.addListener(heard);
        pools.removeListener(heard);
        CountDownLatch release = new CountDownLatch(1);
        pools.pool(0).execute(() -> Latches.pass(release));
        try {
            assertThatThrownBy(() -> pools.pool(0).execute(() -> { })).isInstanceOf(RejectedExecutionException.class);
        } finally {
            release.countDown();
        }
        assertThat(heard.pools).as("told once, of the sub-pool it was added to").containsExactly(pools.pool(0));
    }

    @Test
    void aChangeASubPoolRefusesAfterTheCheck_putsBackTheSubPoolsChangedBeforeIt() {
        // Found by a review: the check passed, sub-pool 1 then refused (here: a change that answers
        // differently on its 4th call, as when sub-pool 1 was changed on its own in between), and
        // sub-pool 0 kept the change: split.
        MultiPool pools = invariants.track(MultiPool.of(2, builder(8), LoadBalancing.ROUND_ROBIN));
        AtomicInteger calls = new AtomicInteger();
        // Calls 1 and 2 check the change against each sub-pool, 3 and 4 apply it.
        assertThatThrownBy(() -> pools.reconfigure(c -> c.withCapacity(calls.incrementAndGet() == 4 ? 0 : 4)))
            .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("capacity");
        assertThat(pools.pool(0).capacity()).as("put back").isEqualTo(8);
        assertThat(pools.pool(1).capacity()).isEqualTo(8);
    }

    @Test
    void theRollback_leavesASubPoolThatWasChangedAgainMeanwhile_withThatChange() {
        // Found by a review: the rollback put back the old options over a change made to the
        // sub-pool alone in between (its own adaptive sizing, say).
        MultiPool pools = invariants.track(MultiPool.of(2, builder(8), LoadBalancing.ROUND_ROBIN));
        AtomicInteger calls = new AtomicInteger();
        assertThatThrownBy(() -> pools.reconfigure(c -> {
            if (calls.incrementAndGet() == 4) {
                pools.pool(0).tune(12); // sub-pool 0, changed already, changed again on its own
                return c.withCapacity(0);
            }
            return c.withCapacity(4);
        })).isInstanceOf(IllegalArgumentException.class)
            .satisfies(e -> assertThat(e.getSuppressed()).singleElement().asString().contains("changed again meanwhile"));
        assertThat(pools.pool(0).capacity()).as("its own later change stays").isEqualTo(12);
        assertThat(pools.pool(1).capacity()).isEqualTo(8);
    }

    @Test
    void aRefusedChange_namesTheMultiPool_notSubPool0() {
        MultiPool pools = invariants.track(MultiPool.of(2, builder(8).name("ingest"), LoadBalancing.ROUND_ROBIN));
        assertThatThrownBy(() -> pools.reconfigure(c -> c.withName("other")))
            .hasMessageContaining("'ingest'").hasMessageNotContaining("ingest-0");
    }

    @Test
    void twoTunesAtOnce_leaveEverySubPoolWithTheSameCapacity() throws Exception {
        // Found by a review: a tune that ran between another's changes to sub-pools 0 and 1 left
        // them split (5 and 3).
        MultiPool pools = invariants.track(MultiPool.of(2, builder(1), LoadBalancing.ROUND_ROBIN));
        CountDownLatch inLastChange = new CountDownLatch(1);
        CountDownLatch go = new CountDownLatch(1);
        AtomicInteger calls = new AtomicInteger();
        // Calls 1 and 2 check the change against each sub-pool, 3 and 4 apply it: stop in the 4th.
        Thread first = new Thread(() -> pools.reconfigure(c -> {
            if (calls.incrementAndGet() == 4) {
                inLastChange.countDown();
                Latches.pass(go);
            }
            return c.withCapacity(3);
        }));
        first.start();
        Latches.pass(inLastChange);
        Thread second = new Thread(() -> pools.tune(5));
        second.start();
        await().atMost(WAIT).until(() -> second.getState() == Thread.State.WAITING
                || second.getState() == Thread.State.TERMINATED);
        go.countDown();
        first.join(WAIT.toMillis());
        second.join(WAIT.toMillis());
        assertThat(first.isAlive() || second.isAlive()).isFalse();
        assertThat(pools.pool(0).capacity()).as("sub-pool 0 and 1").isEqualTo(pools.pool(1).capacity());
        assertThat(pools.pool(0).capacity()).isEqualTo(5);
    }
}
