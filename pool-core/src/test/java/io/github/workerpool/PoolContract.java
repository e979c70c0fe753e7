package io.github.workerpool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;

/**
 * The ExecutorService contract, in the spirit of the JSR-166 TCK's executor tests: submission
 * forms, failures, and the lifecycle (shutdown, shutdownNow, awaitTermination, close, ants'
 * release/releaseTimeout/reboot). Run over every mode of a pool by {@link WorkerPoolContractTest}.
 */
abstract class PoolContract extends PoolTestSupport {

    /** The mode under test, applied to a builder that has a name and a capacity. */
    abstract WorkerPool.Builder mode(WorkerPool.Builder builder);

    /** Whether a caller waits when every worker is busy (no queue room, not nonblocking). */
    boolean callerWaitsWhenBusy() {
        return true;
    }

    /** Whether a task is rejected at once when every worker is busy and no queue has room. */
    boolean rejectsWhenBusy() {
        return false;
    }

    private WorkerPool newPool(int capacity) {
        return pool(mode(WorkerPool.builder().name("contract").capacity(capacity)));
    }

    @Test
    void execute_null_isNullPointer_andNotCounted() {
        WorkerPool pool = newPool(1);
        assertThatThrownBy(() -> pool.execute(null)).isInstanceOf(NullPointerException.class);
        assertThat(pool.stats().submitted()).isZero();
    }

    @Test
    void submitRunnable_futureCompletesWithNull() throws Exception {
        WorkerPool pool = newPool(2);
        AtomicBoolean ran = new AtomicBoolean();
        Future<?> f = pool.submit(() -> ran.set(true));
        assertThat(f.get(10, TimeUnit.SECONDS)).isNull();
        assertThat(ran).isTrue();
    }

    @Test
    void submitRunnableWithResult_futureCompletesWithTheResult() throws Exception {
        WorkerPool pool = newPool(2);
        assertThat(pool.submit(() -> { }, "done").get(10, TimeUnit.SECONDS)).isEqualTo("done");
    }

    @Test
    void submitCallable_futureCompletesWithItsValue() throws Exception {
        WorkerPool pool = newPool(2);
        assertThat(pool.submit(() -> 6 * 7).get(10, TimeUnit.SECONDS)).isEqualTo(42);
    }

    @Test
    void invokeAll_returnsFuturesInOrder_allDone() throws Exception {
        WorkerPool pool = newPool(rejectsWhenBusy() ? 10 : 3);
        List<Callable<Integer>> tasks = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            int n = i;
            tasks.add(() -> n * n);
        }
        List<Future<Integer>> futures = pool.invokeAll(tasks);
        for (int i = 0; i < 10; i++) {
            assertThat(futures.get(i).isDone()).isTrue();
            assertThat(futures.get(i).get()).isEqualTo(i * i);
        }
    }

    @Test
    void invokeAll_withTimeout_cancelsWhatDidNotFinish() throws Exception {
        WorkerPool pool = newPool(2);
        CountDownLatch gate = gate();
        List<Callable<String>> tasks = List.of(() -> "quick", () -> {
            hold(gate);
            return "slow";
        });
        // Long enough for "quick" to get a new worker thread and finish on a loaded machine (at
        // 50 ms it was sometimes cancelled too); "slow" is held, so it changes only the wait.
        List<Future<String>> futures = pool.invokeAll(tasks, 500, TimeUnit.MILLISECONDS);
        assertThat(futures.get(0).get()).isEqualTo("quick");
        assertThat(futures.get(1).isCancelled()).isTrue();
    }

    @Test
    void invokeAny_returnsTheFirstSuccessfulResult() throws Exception {
        WorkerPool pool = newPool(2);
        List<Callable<String>> tasks = List.of(() -> {
            throw new IllegalStateException("first fails");
        }, () -> "second");
        assertThat(pool.invokeAny(tasks)).isEqualTo("second");
    }

    @Test
    void invokeAny_allFail_throwsExecutionException() {
        WorkerPool pool = newPool(2);
        List<Callable<String>> tasks = List.of(() -> {
            throw new IllegalStateException("a");
        }, () -> {
            throw new IllegalStateException("b");
        });
        assertThatThrownBy(() -> pool.invokeAny(tasks)).isInstanceOf(ExecutionException.class);
    }

    @Test
    void invokeAny_withTimeout_timesOut() {
        WorkerPool pool = newPool(1);
        CountDownLatch gate = gate();
        List<Callable<String>> tasks = List.of(() -> {
            hold(gate);
            return "late";
        });
        assertThatThrownBy(() -> pool.invokeAny(tasks, 20, TimeUnit.MILLISECONDS)).isInstanceOf(TimeoutException.class);
    }

    @Test
    void invokeAll_withTimeout_whileTheCallerWaitsForAWorker_returnsAtTheTimeout() throws Exception {
        // Helper-104: AbstractExecutorService's invokeAll looks at its timeout only between two
        // execute() calls, so a caller blocked in one (the pool full) waited for the tasks ahead.
        assumeTrue(callerWaitsWhenBusy());
        WorkerPool pool = newPool(1);
        CountDownLatch gate = gate();
        Callable<String> held = () -> {
            hold(gate);
            return "late";
        };
        AtomicReference<Object> outcome = new AtomicReference<>();
        Thread caller = start("invoker", () -> {
            try {
                // The second execute must begin waiting before the timeout: 500 ms covers the
                // first one's new thread on a loaded machine (the gate stays closed either way).
                outcome.set(pool.invokeAll(List.of(held, held), 500, TimeUnit.MILLISECONDS));
            } catch (Throwable t) {
                outcome.set(t);
            }
        });
        caller.join(TIMEOUT.toMillis() / 2);
        assertThat(caller.isAlive()).as("returned at its timeout, the gate still closed").isFalse();
        assertThat(outcome.get()).asInstanceOf(InstanceOfAssertFactories.list(Future.class)).hasSize(2)
            .allSatisfy((f) -> assertThat(f.isCancelled()).isTrue());
        assertThat(pool.stats().rejected()).as("the task that waited").isEqualTo(1);
    }

    @Test
    void invokeAllAndInvokeAny_withATimeoutOfMinusAges_endAtOnce() throws Exception {
        // Found by a review (helper-122): now + a timeout of minus ages overflowed into a deadline
        // ages away, so the call ran every task and waited for them (or, the caller waiting for a
        // worker, for the task ahead of it).
        WorkerPool pool = newPool(1);
        CountDownLatch gate = gate();
        Callable<String> held = () -> {
            hold(gate);
            return "late";
        };
        if (callerWaitsWhenBusy()) {
            occupy(pool, 1);
        }
        AtomicReference<Object> all = new AtomicReference<>();
        AtomicReference<Object> any = new AtomicReference<>();
        Thread caller = start("invoker", () -> {
            try {
                all.set(pool.invokeAll(List.of(held, held), Long.MIN_VALUE, TimeUnit.NANOSECONDS));
            } catch (Throwable t) {
                all.set(t);
            }
            try {
                any.set(pool.invokeAny(List.of(held, held), Long.MIN_VALUE, TimeUnit.DAYS));
            } catch (Throwable t) {
                any.set(t);
            }
        });
        caller.join(TIMEOUT.toMillis() / 2);
        assertThat(caller.isAlive()).as("returned at once, the gate still closed").isFalse();
        assertThat(all.get()).asInstanceOf(InstanceOfAssertFactories.list(Future.class)).hasSize(2)
            .allSatisfy((f) -> assertThat(f.isCancelled()).isTrue());
        assertThat(any.get()).isInstanceOf(TimeoutException.class);
    }

    @Test
    void invokeAny_withTimeout_whileTheCallerWaitsForAWorker_throwsTimeoutException() throws Exception {
        assumeTrue(callerWaitsWhenBusy());
        WorkerPool pool = newPool(1);
        CountDownLatch gate = gate();
        Callable<String> held = () -> {
            hold(gate);
            return "late";
        };
        AtomicReference<Object> outcome = new AtomicReference<>();
        Thread caller = start("invoker", () -> {
            try {
                outcome.set(pool.invokeAny(List.of(held, held), 100, TimeUnit.MILLISECONDS));
            } catch (Throwable t) {
                outcome.set(t);
            }
        });
        caller.join(TIMEOUT.toMillis() / 2);
        assertThat(caller.isAlive()).as("returned at its timeout, the gate still closed").isFalse();
        assertThat(outcome.get()).isInstanceOf(TimeoutException.class);
        awaitUntil("the running task cancelled", () -> pool.running() == 0);
    }

    @Test
    void invokeAny_returnsASucceededTask_whileTheCallerWaitsForAWorkerForTheNext() throws Exception {
        // Helper-138: AbstractExecutorService's invokeAny submits the next task while none has
        // ended, so a caller waiting in a full pool to submit it did not see the first one succeed:
        // it returned only once it got a worker (here: once another client's task ended).
        assumeTrue(callerWaitsWhenBusy());
        WorkerPool pool = newPool(2);
        occupy(pool, 1);
        CountDownLatch secondWorker = occupy(pool, 1);
        CountDownLatch t1Started = new CountDownLatch(1);
        CountDownLatch t1Go = gate();
        AtomicReference<Object> outcome = new AtomicReference<>();
        Thread caller = invokeAnyOfT1AndT2(pool, t1Started, t1Go, outcome);
        awaitUntil("the caller waits with t1", () -> pool.waiting() == 1);
        CountDownLatch otherClient = gate();
        Thread other = start("other client", () -> pool.execute(() -> hold(otherClient)));
        awaitUntil("another client waits behind it", () -> pool.waiting() == 2);
        open(secondWorker); // t1 runs; the caller comes back for t2 and waits behind the other client
        assertThat(t1Started.await(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        awaitUntil("the caller waits with t2", () -> pool.waiting() == 2);
        open(t1Go); // t1 succeeds; its worker goes to the other client, first in line
        caller.join(TIMEOUT.toMillis() / 2);
        assertThat(caller.isAlive()).as("returned with t1's result, the other client's task still running").isFalse();
        assertThat(outcome.get()).isEqualTo("t1");
        assertThat(pool.stats().rejected()).as("t2 withdrawn, not refused").isZero();
        other.join(TIMEOUT.toMillis());
    }

    @Test
    void invokeAny_aRefusalWhileATaskRuns_endsTheSubmits_notTheCall() throws Exception {
        // Helper-138: the refusal of the second task came out of the call while the first ran on
        // to succeed.
        assumeTrue(rejectsWhenBusy());
        WorkerPool pool = newPool(1);
        CountDownLatch t1Started = new CountDownLatch(1);
        CountDownLatch t1Go = gate();
        AtomicReference<Object> outcome = new AtomicReference<>();
        Thread caller = invokeAnyOfT1AndT2(pool, t1Started, t1Go, outcome);
        assertThat(t1Started.await(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        awaitUntil("t2 refused", () -> pool.stats().rejected() == 1);
        open(t1Go);
        caller.join(TIMEOUT.toMillis());
        assertThat(outcome.get()).isEqualTo("t1");
    }

    /**
     * Starts a thread calling {@code invokeAny} with t1, which signals its start and returns "t1"
     * once {@code t1Go} opens, and t2, which returns "t2"; the result or failure goes to outcome.
     */
    private static Thread invokeAnyOfT1AndT2(WorkerPool pool, CountDownLatch t1Started, CountDownLatch t1Go,
            AtomicReference<Object> outcome) {
        Callable<String> t1 = () -> {
            t1Started.countDown();
            hold(t1Go);
            return "t1";
        };
        return start("invoker", () -> {
            try {
                outcome.set(pool.invokeAny(List.of(t1, () -> "t2")));
            } catch (Throwable t) {
                outcome.set(t);
            }
        });
    }

    @Test
    void aTimedInvokeAllsDeadline_doesNotCutAWaitOnAnotherPool_byItsListener() throws Exception {
        // Helper-106: the deadline was the thread's, so a listener that handed a refused task to a
        // full fallback pool was refused there at once, naming an invokeAll that pool never had.
        assumeTrue(callerWaitsWhenBusy());
        WorkerPool fallback = pool(WorkerPool.builder().name("fallback").capacity(1)
            .blockingTimeout(Duration.ofMillis(300)));
        occupy(fallback, 1);
        AtomicReference<RejectedExecutionException> refusedThere = new AtomicReference<>();
        WorkerPool pool = pool(mode(WorkerPool.builder().name("contract").capacity(1)).listener(new PoolListener() {
            @Override
            public void taskRejected(Pool p, RejectedExecutionException rejection) {
                try {
                    fallback.execute(() -> { });
                } catch (RejectedExecutionException e) {
                    refusedThere.set(e);
                }
            }
        }));
        CountDownLatch gate = gate();
        Callable<String> held = () -> {
            hold(gate);
            return "late";
        };
        pool.invokeAll(List.of(held, held), 500, TimeUnit.MILLISECONDS); // the second must get to wait first
        assertThat(refusedThere.get()).as("the fallback's own rule").isNotNull()
            .hasMessageContaining("(blockingTimeout)");
    }

    @Test
    void invokeAllAndInvokeAny_interruptedWhileTheCallerWaitsForAWorker_throwInterruptedException() throws Exception {
        // Helper-104: the interrupt came out as a PoolOverloadException, which callers that catch
        // InterruptedException (as the methods promise) missed.
        assumeTrue(callerWaitsWhenBusy());
        WorkerPool pool = newPool(1);
        occupy(pool, 1);
        AtomicBoolean ran = new AtomicBoolean();
        Callable<String> task = () -> {
            ran.set(true);
            return "ran";
        };
        for (int timed = 0; timed < 4; timed++) {
            int call = timed;
            AtomicReference<Object> outcome = new AtomicReference<>();
            AtomicBoolean stillInterrupted = new AtomicBoolean();
            Thread caller = start("invoker", () -> {
                try {
                    switch (call) {
                        case 0 -> outcome.set(pool.invokeAll(List.of(task)));
                        case 1 -> outcome.set(pool.invokeAll(List.of(task), 1, TimeUnit.MINUTES));
                        case 2 -> outcome.set(pool.invokeAny(List.of(task)));
                        default -> outcome.set(pool.invokeAny(List.of(task), 1, TimeUnit.MINUTES));
                    }
                } catch (Throwable t) {
                    outcome.set(t);
                }
                stillInterrupted.set(Thread.currentThread().isInterrupted());
            });
            awaitUntil("the caller waits", () -> pool.waiting() == 1);
            caller.interrupt();
            caller.join(TIMEOUT.toMillis());
            assertThat(outcome.get()).as("call %d", call).isInstanceOf(InterruptedException.class);
            assertThat(stillInterrupted).as("the status is cleared, as InterruptedException says").isFalse();
        }
        assertThat(ran).isFalse();
    }

    @Test
    void invokeAllAndInvokeAny_refusedWithTheInterruptStatusAlreadySet_throwTheRefusal_andKeepTheStatus() throws Exception {
        // Helper-152: a full nonblocking pool's refusal came out as an InterruptedException, the
        // status cleared, where AbstractExecutorService throws the refusal and keeps the status.
        assumeTrue(rejectsWhenBusy());
        WorkerPool pool = newPool(1);
        occupy(pool, 1);
        Callable<String> task = () -> "ran";
        for (int call = 0; call < 4; call++) {
            int c = call;
            Thread.currentThread().interrupt();
            Throwable thrown = null;
            try {
                switch (c) {
                    case 0 -> pool.invokeAll(List.of(task));
                    case 1 -> pool.invokeAll(List.of(task), 1, TimeUnit.MINUTES);
                    case 2 -> pool.invokeAny(List.of(task));
                    default -> pool.invokeAny(List.of(task), 1, TimeUnit.MINUTES);
                }
            } catch (Throwable t) {
                thrown = t;
            }
            boolean stillInterrupted = Thread.interrupted();
            assertThat(thrown).as("call %d", c).isInstanceOf(RejectedExecutionException.class);
            assertThat(stillInterrupted).as("call %d keeps the status", c).isTrue();
        }
    }

    @Test
    void shutdown_letsQueuedAndRunningTasksFinish() throws Exception {
        WorkerPool pool = pool(WorkerPool.builder().capacity(1).queueCapacity(10));
        CountDownLatch gate = gate();
        AtomicInteger ran = new AtomicInteger();
        pool.execute(() -> {
            hold(gate);
            ran.incrementAndGet();
        });
        awaitUntil("busy", () -> pool.running() == 1);
        for (int i = 0; i < 5; i++) {
            pool.execute(ran::incrementAndGet);
        }
        pool.shutdown();
        assertThat(pool.isShutdown()).isTrue();
        assertThat(pool.isClosed()).isTrue();
        assertThat(pool.isTerminated()).isFalse();
        assertThat(pool.awaitTermination(20, TimeUnit.MILLISECONDS)).isFalse();
        open(gate);
        assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        assertThat(pool.isTerminated()).isTrue();
        assertThat(ran.get()).isEqualTo(6);
    }

    @Test
    void afterShutdown_executeIsRejectedWithPoolClosed() {
        WorkerPool pool = pool(mode(WorkerPool.builder().name("gone").capacity(1)));
        pool.shutdown();
        assertThatThrownBy(() -> pool.execute(() -> { }))
                .isInstanceOf(PoolClosedException.class)
                .isInstanceOf(RejectedExecutionException.class)
                .hasMessageContaining("gone")
                .hasMessageContaining("reboot");
        assertThatThrownBy(() -> pool.submit(() -> 1)).isInstanceOf(PoolClosedException.class);
        assertThat(pool.stats().rejected()).isEqualTo(2);
    }

    @Test
    void shutdown_rejectsWaitingCallers_withPoolClosed() throws Exception {
        assumeTrue(callerWaitsWhenBusy(), "callers of this mode never wait");
        WorkerPool pool = newPool(1);
        CountDownLatch gate = gate();
        pool.execute(() -> hold(gate));
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread caller = start("caller", () -> {
            try {
                pool.execute(() -> { });
            } catch (Throwable t) {
                thrown.set(t);
            }
        });
        awaitUntil("caller waits", () -> pool.waiting() == 1);
        pool.release();
        caller.join(10_000);
        assertThat(thrown.get()).isInstanceOf(PoolClosedException.class);
        assertThat(pool.waiting()).isZero();
    }

    @Test
    void shutdownNow_returnsNeverStartedTasks_andInterruptsRunningOnes() throws Exception {
        WorkerPool pool = pool(WorkerPool.builder().capacity(1).queueCapacity(10));
        CountDownLatch started = new CountDownLatch(1);
        AtomicBoolean interrupted = new AtomicBoolean();
        pool.execute(() -> {
            started.countDown();
            try {
                Thread.sleep(TimeUnit.SECONDS.toMillis(30));
            } catch (InterruptedException e) {
                interrupted.set(true);
            }
        });
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        List<Runnable> queued = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Runnable r = () -> { };
            queued.add(r);
            pool.execute(r);
        }
        Future<?> future = pool.submit(() -> { });
        List<Runnable> never = pool.shutdownNow();
        assertThat(never).hasSize(4);
        assertThat(never.subList(0, 3)).containsExactlyElementsOf(queued);
        assertThat(never.get(3)).isSameAs(future);
        assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        assertThat(interrupted).isTrue();
        assertThat(pool.stats().cancelled()).isEqualTo(4);
        assertThat(pool.queued()).isZero();
    }

    @Test
    void shutdownNow_onIdlePool_terminates() throws Exception {
        WorkerPool pool = newPool(2);
        pool.submit(() -> { }).get();
        assertThat(pool.shutdownNow()).isEmpty();
        assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void awaitTermination_onRunningPool_timesOutFalse() throws Exception {
        WorkerPool pool = newPool(1);
        assertThat(pool.awaitTermination(10, TimeUnit.MILLISECONDS)).isFalse();
    }

    @Test
    void neverUsedPool_terminatesOnShutdown() throws Exception {
        WorkerPool pool = newPool(1);
        pool.shutdown();
        assertThat(pool.isTerminated()).isTrue();
        assertThat(pool.awaitTermination(0, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void close_waitsForTasksToFinish() throws Exception {
        WorkerPool pool = newPool(rejectsWhenBusy() ? 10 : 2);
        AtomicInteger done = new AtomicInteger();
        try (pool) {
            for (int i = 0; i < 10; i++) {
                pool.execute(() -> {
                    Thread.yield();
                    done.incrementAndGet();
                });
            }
        }
        assertThat(pool.isTerminated()).isTrue();
        assertThat(done.get()).isEqualTo(10);
    }

    @Test
    void close_interrupted_shutsDownNow_andKeepsTheInterrupt() throws Exception {
        WorkerPool pool = newPool(1);
        CountDownLatch started = new CountDownLatch(1);
        pool.execute(() -> {
            started.countDown();
            try {
                Thread.sleep(TimeUnit.SECONDS.toMillis(30));
            } catch (InterruptedException expected) {
                // shutdownNow interrupts us
            }
        });
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        AtomicBoolean stillInterrupted = new AtomicBoolean();
        Thread closer = start("closer", () -> {
            pool.close();
            stillInterrupted.set(Thread.currentThread().isInterrupted());
        });
        awaitUntil("closer waits", () -> closer.getState() == Thread.State.WAITING
                || closer.getState() == Thread.State.TIMED_WAITING);
        closer.interrupt();
        closer.join(10_000);
        assertThat(pool.isTerminated()).isTrue();
        assertThat(stillInterrupted).isTrue();
    }

    @Test
    void close_returnsWhenAnotherThreadRebootsThePoolWhileItWaits() throws Exception {
        // Found by a review: awaitTermination returned false at once after the reboot, and close()
        // spun on it for as long as the pool ran again.
        WorkerPool pool = newPool(1);
        CountDownLatch gate = gate();
        pool.execute(() -> hold(gate));
        Thread closer = start("closer", pool::close);
        awaitUntil("closer waits", () -> pool.isShutdown() && (closer.getState() == Thread.State.WAITING
                || closer.getState() == Thread.State.TIMED_WAITING));
        pool.reboot();
        closer.join(10_000);
        assertThat(closer.isAlive()).as("close() returned").isFalse();
        assertThat(pool.isShutdown()).isFalse();
        open(gate);
        pool.close();
        assertThat(pool.isTerminated()).isTrue();
    }

    @Test
    void releaseTimeout_trueWhenWorkersExitInTime_falseOtherwise() throws Exception {
        WorkerPool quick = newPool(1);
        quick.submit(() -> { }).get();
        assertThat(quick.releaseTimeout(Duration.ofSeconds(10))).isTrue();

        WorkerPool slow = newPool(1);
        CountDownLatch gate = gate();
        slow.execute(() -> hold(gate));
        assertThat(slow.releaseTimeout(Duration.ofMillis(20))).isFalse();
        open(gate);
        assertThat(slow.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void reboot_reopensAReleasedPool() throws Exception {
        WorkerPool pool = newPool(2);
        pool.submit(() -> { }).get();
        assertThat(pool.releaseTimeout(Duration.ofSeconds(10))).isTrue();
        assertThat(pool.isClosed()).isTrue();
        pool.reboot();
        assertThat(pool.isClosed()).isFalse();
        assertThat(pool.isTerminated()).isFalse();
        assertThat(pool.hasPurgeSchedule()).isTrue();
        assertThat(pool.submit(() -> "again").get(10, TimeUnit.SECONDS)).isEqualTo("again");
    }

    @Test
    void reboot_beforeTermination_keepsFinishingWorkers_andOldAwaitReturnsFalse() throws Exception {
        WorkerPool pool = newPool(2);
        CountDownLatch gate = gate();
        pool.execute(() -> hold(gate));
        pool.release();
        AtomicReference<Boolean> awaited = new AtomicReference<>();
        Thread waiter = start("awaiter", () -> {
            try {
                awaited.set(pool.awaitTermination(30, TimeUnit.SECONDS));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        awaitUntil("awaiter waits", () -> waiter.getState() == Thread.State.TIMED_WAITING);
        pool.reboot();
        waiter.join(10_000);
        assertThat(awaited.get()).isFalse();
        open(gate);
        assertThat(pool.submit(() -> "ok").get(10, TimeUnit.SECONDS)).isEqualTo("ok");
    }

    @Test
    void reboot_onRunningPool_doesNothing() {
        WorkerPool pool = newPool(1);
        pool.reboot();
        assertThat(pool.isClosed()).isFalse();
    }
}
