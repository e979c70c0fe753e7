package io.github.workerpool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorCompletionService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Futures the pool runs inside a wrapper of someone else's: {@link ExecutorCompletionService}
 * (and so {@code invokeAny}) makes its task with the pool's {@code newTaskFor} and hands the pool
 * a {@code QueueingFuture} around it. Found by a review: the task's failure was counted as a
 * completion, its listeners heard of none, and a loser that invokeAny cancelled before it
 * started was counted completed too.
 */
class WrappedFuturesTest extends PoolTestSupport {

    @Test
    void aFailureInsideACompletionServicesTask_isCountedAndTold() throws Exception {
        List<Throwable> told = new CopyOnWriteArrayList<>();
        WorkerPool pool = pool(WorkerPool.builder().capacity(1).listener(new PoolListener() {
            @Override
            public void taskEnded(Pool p, long runNanos, Throwable failure) {
                if (failure != null) {
                    told.add(failure);
                }
            }
        }));
        ExecutorCompletionService<String> ecs = new ExecutorCompletionService<>(pool);
        ecs.submit(() -> {
            throw new IllegalStateException("boom");
        });
        ecs.submit(() -> "fine");
        int failed = 0;
        for (int i = 0; i < 2; i++) {
            Future<String> f = ecs.poll(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            assertThat(f).isNotNull();
            try {
                f.get();
            } catch (ExecutionException e) {
                failed++;
            }
        }
        assertThat(failed).isEqualTo(1);
        awaitUntil("both counted", () -> pool.stats().completed() + pool.stats().failed() == 2);
        assertThat(pool.stats().failed()).isEqualTo(1);
        assertThat(pool.stats().completed()).isEqualTo(1);
        assertThat(told).singleElement().satisfies(t -> assertThat(t).hasMessage("boom"));
    }

    @Test
    void invokeAny_whoseTasksAllFail_countsEachFailure() throws Exception {
        WorkerPool pool = pool(WorkerPool.builder().capacity(2));
        Callable<String> failing = () -> {
            throw new IllegalStateException("down");
        };
        assertThatThrownBy(() -> pool.invokeAny(List.of(failing, failing, failing)))
                .isInstanceOf(ExecutionException.class);
        awaitUntil("all three counted", () -> pool.stats().failed() + pool.stats().completed() == 3);
        assertThat(pool.stats().failed()).isEqualTo(3);
    }

    @Test
    void invokeAny_losersCancelledBeforeTheyStart_countAsCancelled() throws Exception {
        CountDownLatch gate = gate();
        CountDownLatch cancelled = gate();
        java.util.concurrent.atomic.AtomicInteger ended = new java.util.concurrent.atomic.AtomicInteger();
        List<Throwable> endedWith = new CopyOnWriteArrayList<>();
        WorkerPool pool = pool(WorkerPool.builder().capacity(1).queueCapacity(10).listener(new PoolListener() {
            @Override
            public void taskEnded(Pool p, long runNanos, Throwable failure) {
                if (failure != null) {
                    endedWith.add(failure);
                }
                if (ended.incrementAndGet() == 2) {
                    hold(cancelled); // after the winner: the worker takes the next once invokeAny has cancelled it
                }
            }
        }));
        pool.execute(() -> hold(gate)); // the one worker is busy: invokeAny's tasks queue behind it
        awaitUntil("the worker is busy", () -> pool.running() == 1);
        Thread opener = start("opener", () -> {
            awaitUntil("the three are queued", () -> pool.queued() == 3);
            gate.countDown();
        });
        String winner = pool.invokeAny(List.of(() -> "first", () -> "second", () -> "third"));
        cancelled.countDown();
        opener.join(TIMEOUT.toMillis());
        assertThat(winner).isEqualTo("first");
        awaitUntil("all four counted", () -> {
            PoolStats s = pool.stats();
            return s.completed() + s.cancelled() + s.failed() == 4;
        });
        assertThat(pool.stats().cancelled()).isEqualTo(2);
        assertThat(pool.stats().completed()).isEqualTo(2);
        // Seen only as they ran, inside the wrapper: they end as their futures do, cancelled.
        awaitUntil("four ended", () -> ended.get() == 4);
        assertThat(endedWith).hasSize(2).allSatisfy(t -> assertThat(t).isInstanceOf(CancellationException.class));
    }

    @Test
    void invokeAny_whoseQueuedTaskIsCancelledAfterShutdownNow_failsInsteadOfWaitingForEver() throws Exception {
        // Helper-152: shutdownNow() returns invokeAny's wrapper, and a caller that cancels what it
        // returns (SpringPool's forced stop does) left invokeAny in its task's get() for ever.
        WorkerPool pool = pool(WorkerPool.builder().name("wrapped").capacity(1).queueCapacity(4));
        CountDownLatch gate = gate();
        pool.execute(() -> hold(gate));
        awaitUntil("busy", () -> pool.running() == 1);
        java.util.concurrent.atomic.AtomicReference<Object> outcome = new java.util.concurrent.atomic.AtomicReference<>();
        Thread caller = start("invoker", () -> {
            try {
                outcome.set(pool.invokeAny(List.of(() -> "x"), 1, TimeUnit.HOURS));
            } catch (Throwable t) {
                outcome.set(t);
            }
        });
        awaitUntil("its task queued", () -> pool.queued() == 1);
        List<Runnable> neverRan = pool.shutdownNow();
        assertThat(neverRan).hasSize(1);
        for (Runnable r : neverRan) {
            ((Future<?>) r).cancel(false);
        }
        caller.join(TIMEOUT.toMillis());
        assertThat(caller.isAlive()).as("invokeAny returned").isFalse();
        assertThat(outcome.get()).isInstanceOf(ExecutionException.class);
        assertThat(((Throwable) outcome.get()).getCause()).isInstanceOf(CancellationException.class);
    }

    @Test
    void aSubmittedTaskCancelledWhileItRuns_countsAsCancelled_notFailed() throws Exception {
        // Found by a review: its future holds a cancellation, but the pool counted what the task
        // threw on its interrupt as a failure.
        List<Throwable> endedWith = new CopyOnWriteArrayList<>();
        WorkerPool pool = pool(WorkerPool.builder().capacity(1).listener(new PoolListener() {
            @Override
            public void taskEnded(Pool p, long runNanos, Throwable failure) {
                endedWith.add(failure);
            }
        }));
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch never = gate();
        Future<Object> f = pool.submit(() -> {
            running.countDown();
            never.await(); // throws InterruptedException on cancel(true)
            return null;
        });
        assertThat(running.await(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        f.cancel(true);
        awaitUntil("counted", () -> pool.stats().cancelled() + pool.stats().failed() + pool.stats().completed() == 1);
        assertThat(pool.stats().cancelled()).isEqualTo(1);
        assertThat(pool.stats().failed()).isZero();
        awaitUntil("ended", () -> endedWith.size() == 1);
        assertThat(endedWith.get(0)).isInstanceOf(CancellationException.class);
    }
}
