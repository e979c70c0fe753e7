package io.github.workerpool;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

class TaskGroupTest {

    @RegisterExtension
    final Invariants invariants = new Invariants();

    private static final Duration WAIT = Duration.ofSeconds(5);

    private WorkerPool pool(int capacity) {
        return invariants.track(WorkerPool.builder().name(Invariants.uniqueName("tg")).capacity(capacity).build());
    }

    /** One worker and room for 10 queued tasks: the second task waits in the queue. */
    private WorkerPool oneWorkerAndAQueue() {
        return invariants.track(WorkerPool.builder().name(Invariants.uniqueName("tg")).capacity(1)
                .queueCapacity(10).build());
    }

    /** Submits a task that sleeps until interrupted, then runs {@code onInterrupt}; returns once it runs. */
    private static TaskGroup.Task<String> runUntilInterrupted(TaskGroup<String> group, Runnable onInterrupt)
            throws InterruptedException {
        CountDownLatch running = new CountDownLatch(1);
        TaskGroup.Task<String> task = group.submit(() -> {
            running.countDown();
            try {
                Thread.sleep(60_000);
            } catch (InterruptedException e) {
                onInterrupt.run();
            }
            return "slow";
        });
        Latches.pass(running);
        return task;
    }

    @Test
    void aFailureWhoseMessageCannotBeRead_stillComesAsExecutionException() throws Exception {
        // Found by a review: building the message called the error's getMessage(), whose exception
        // replaced the ExecutionException and lost the task's error.
        WorkerPool pool = pool(2);
        Exception bad = new Exception() {
            @Override
            public String getMessage() {
                throw new IllegalStateException("no message");
            }
        };
        // A CompletionException of its own is wrapped once more for the task's future: read too.
        CompletionException badCompletion = new CompletionException((String) null) {
            @Override
            public String getMessage() {
                throw new StackOverflowError("no message either");
            }
        };
        for (Exception error : List.of(bad, badCompletion)) {
            TaskGroup<String> group2 = invariants.track(TaskGroup.of(pool));
            TaskGroup.Task<String> task = group2.submit(() -> {
                throw error;
            });
            assertThat(task.await(WAIT)).as("done: its future was completed").isTrue();
            for (Callable<?> wait : List.<Callable<?>>of(group2::awaitAll, task::get)) {
                Throwable thrown = null;
                try {
                    wait.call();
                } catch (Throwable e) {
                    thrown = e;
                }
                assertThat(thrown).isInstanceOf(ExecutionException.class);
                assertThat(thrown.getCause()).isSameAs(error);
            }
            assertThat(task.toString()).contains("whose message could not be read");
        }
    }

    @Test
    void waitingForTheGroupOrItselfFromATask_throwsInsteadOfWaitingForever() throws Exception {
        WorkerPool pool = pool(2);
        TaskGroup<String> group = invariants.track(TaskGroup.of(pool));
        List<Throwable> refused = new CopyOnWriteArrayList<>();
        TaskGroup.Task<String> task = group.submit(self -> {
            for (Callable<?> wait : List.<Callable<?>>of(
                    group::awaitAll, () -> group.completions().count(), self::get, self::await,
                    () -> self.await(Duration.ofMinutes(1)), () -> self.get(1, TimeUnit.MINUTES),
                    () -> group.await(Duration.ofMinutes(1)))) {
                try {
                    wait.call();
                } catch (IllegalStateException e) {
                    refused.add(e);
                }
            }
            return "done";
        });
        assertThat(task.await(WAIT)).as("the task ended").isTrue();
        assertThat(task.get()).isEqualTo("done");
        assertThat(refused).hasSize(7);
        assertThat(refused.get(0)).hasMessageContaining("awaitAll() called from task 0 of the same group");
        assertThat(refused.get(6)).hasMessageContaining("await(Duration) called from task 0 of the same group");
        assertThat(refused.get(2)).hasMessageContaining("get() of task 0 called from the task itself");
        assertThat(group.awaitAll()).containsExactly("done");
    }

    @Test
    void aCallbackOfAFinishedTask_mayWaitForIt_onTheTasksThread() throws Exception {
        // Found by a review: the task's thread still counted as running it while finishing, when
        // the dependents of its futures run there, and a wait in one threw.
        WorkerPool pool = pool(1);
        TaskGroup<String> group = invariants.track(TaskGroup.of(pool));
        CountDownLatch release = new CountDownLatch(1);
        TaskGroup.Task<String> task = group.submit(() -> {
            Latches.pass(release);
            return "done";
        });
        CompletableFuture<String> seen = task.toCompletableFuture()
                .thenApply((v) -> {
                    try {
                        return task.get() + "/" + group.awaitAll();
                    } catch (Exception e) {
                        throw new CompletionException(e);
                    }
                });
        release.countDown();
        assertThat(seen.get(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("done/[done]");
    }

    @Test
    void aTaskMayWaitForAnotherGroup() throws Exception {
        WorkerPool pool = pool(2);
        TaskGroup<Integer> outer = invariants.track(TaskGroup.of(pool));
        TaskGroup<Integer> inner = invariants.track(TaskGroup.of(pool));
        TaskGroup.Task<Integer> t = outer.submit(() -> {
            inner.submit(() -> 20);
            inner.submit(() -> 22);
            return inner.awaitAll().stream().mapToInt(Integer::intValue).sum();
        });
        assertThat(t.get(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo(42);
    }

    /** Seed 000: 100 tasks of 1 s on 20 workers take about 5 s; scaled down to 50 ms, about 250 ms. */
    @Test
    void seed000_hundredTasksOf50ms_on20Workers_runInParallel() throws Exception {
        WorkerPool pool = pool(20);
        TaskGroup<Integer> group = invariants.track(TaskGroup.of(pool));
        AtomicInteger concurrent = new AtomicInteger();
        AtomicInteger maxConcurrent = new AtomicInteger();
        long start = System.nanoTime();
        for (int i = 0; i < 100; i++) {
            int n = i;
            group.submit(() -> {
                maxConcurrent.accumulateAndGet(concurrent.incrementAndGet(), Math::max);
                Thread.sleep(50); // the simulated crawl
                concurrent.decrementAndGet();
                return n;
            });
        }
        List<Integer> values = group.awaitAll();
        long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);

        assertThat(values).hasSize(100).isSortedAccordingTo(Integer::compare).startsWith(0).endsWith(99);
        assertThat(maxConcurrent.get()).isLessThanOrEqualTo(20).isGreaterThan(1);
        // Serially this is 5000 ms; 20 at a time about 250 ms. maxConcurrent proves the parallelism;
        // this bound only says it was not serial (a tighter one failed on a stalled VM).
        assertThat(elapsedMs).isLessThan(4_000);
    }

    /** Seed 000's SendMail batch: task 17 cancels itself, the other 99 succeed; results read as they complete. */
    @Test
    void seed000_sendMailBatch_task17CancelsItself_andTheRestSucceed() throws Exception {
        WorkerPool pool = pool(20);
        TaskGroup<Boolean> batch = invariants.track(TaskGroup.builder(pool).deadline(Duration.ofSeconds(10)).build());
        for (int i = 0; i < 100; i++) {
            int n = i;
            batch.submit(self -> {
                Thread.sleep(50); // sending the mail
                if (n == 17) {
                    self.cancel();
                }
                if (self.isCancelled()) {
                    return false;
                }
                return true;
            });
        }
        List<TaskGroup.Task<Boolean>> results = batch.completions().collect(Collectors.toList());

        assertThat(results).hasSize(100);
        assertThat(results).filteredOn(TaskGroup.Task::isCancelled).extracting(TaskGroup.Task::index).containsExactly(17);
        assertThat(results).filteredOn(TaskGroup.Task::isSucceeded).hasSize(99)
                .allSatisfy(t -> assertThat(t.value()).isTrue());
        assertThat(results).allSatisfy(t -> assertThat(t.error()).isNull());
        List<Boolean> inOrder = batch.awaitAll();
        assertThat(inOrder.get(17)).isNull();
        assertThat(inOrder).filteredOn(Boolean.TRUE::equals).hasSize(99);
        assertThat(batch.counts()).isEqualTo(new TaskGroup.Counts(100, 0, 99, 0, 1));
        assertThatThrownBy(() -> batch.tasks().get(17).get()).isInstanceOf(CancellationException.class);
    }

    @Test
    void completions_areInCompletionOrder_andAwaitAll_inSubmissionOrder() throws Exception {
        WorkerPool pool = pool(3);
        TaskGroup<String> group = invariants.track(TaskGroup.of(pool));
        CountDownLatch[] go = {new CountDownLatch(1), new CountDownLatch(1), new CountDownLatch(1)};
        for (int i = 0; i < 3; i++) {
            int n = i;
            TaskGroup.Task<String> t = group.submit(() -> {
                Latches.pass(go[n]);
                return "t" + n;
            });
            if (n > 0) {
                // the next one may finish only once this one has: the order is 2, 1, 0
                t.toCompletableFuture().whenComplete((v, e) -> go[n - 1].countDown());
            }
        }
        go[2].countDown();
        assertThat(group.completions().map(TaskGroup.Task::value)).containsExactly("t2", "t1", "t0");
        assertThat(group.awaitAll()).containsExactly("t0", "t1", "t2");
    }

    @Test
    void completions_cannotHang_anEmptyGroupEndsAtOnce_andAFinishedOneEndsAfterItsTasks() throws Exception {
        WorkerPool pool = pool(2);
        TaskGroup<Integer> group = invariants.track(TaskGroup.of(pool));
        assertThat(group.completions().count()).isZero();
        group.submit(() -> 1);
        group.submit(() -> 2);
        assertThat(group.completions().count()).isEqualTo(2);
        assertThat(group.completions().count()).as("each stream starts from the first").isEqualTo(2);
    }

    @Test
    void awaitAll_throwsTheFirstFailureInSubmissionOrder_withTheOthersSuppressed() {
        WorkerPool pool = pool(4);
        TaskGroup<Integer> group = invariants.track(TaskGroup.of(pool));
        CountDownLatch secondFailed = new CountDownLatch(1);
        group.submit(() -> 0);
        group.submit(() -> {
            Latches.pass(secondFailed); // fails last in time, first in submission order
            throw new IllegalStateException("first");
        });
        group.submit(() -> {
            try {
                throw new IllegalArgumentException("second");
            } finally {
                secondFailed.countDown();
            }
        });
        assertThatThrownBy(group::awaitAll).isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(IllegalStateException.class)
                .satisfies(e -> assertThat(e.getSuppressed()).singleElement()
                        .satisfies(s -> assertThat(s).hasMessage("second")));
        assertThat(group.tasks().get(0).value()).isZero();
    }

    @Test
    void failFast_cancelsTheRest_interruptsRunningTasks_andReportsThatFailureFirst() throws Exception {
        WorkerPool pool = pool(4);
        TaskGroup<String> group = invariants.track(TaskGroup.builder(pool).failFast(true).build());
        CountDownLatch othersRunning = new CountDownLatch(2);
        CountDownLatch never = new CountDownLatch(1);
        AtomicInteger interrupted = new AtomicInteger();
        for (int i = 0; i < 2; i++) {
            group.submit(() -> {
                othersRunning.countDown();
                try {
                    never.await();
                } catch (InterruptedException e) {
                    interrupted.incrementAndGet();
                    throw e;
                }
                return "never";
            });
        }
        Latches.pass(othersRunning);
        TaskGroup.Task<String> failing = group.submit(() -> {
            throw new IllegalStateException("fail fast");
        });

        assertThat(group.completions().findFirst()).hasValue(failing);
        assertThatThrownBy(group::awaitAll).isInstanceOf(ExecutionException.class).hasRootCauseMessage("fail fast");
        assertThat(group.tasks()).filteredOn(TaskGroup.Task::isCancelled).hasSize(2);
        await().atMost(WAIT).until(() -> interrupted.get() == 2);
        assertThat(group.isStopped()).isTrue();
        TaskGroup.Task<String> late = group.submit(() -> "late");
        assertThat(late.isCancelled()).isTrue();
        assertThat(group.counts()).isEqualTo(new TaskGroup.Counts(4, 0, 0, 1, 3));
    }

    @Test
    void cancel_cancelsEveryUnfinishedTask_queuedOnesNeverRun_andThePoolCountsThemCancelled() throws Exception {
        WorkerPool pool = oneWorkerAndAQueue();
        TaskGroup<Integer> group = invariants.track(TaskGroup.of(pool));
        CountDownLatch running = new CountDownLatch(1);
        AtomicInteger ran = new AtomicInteger();
        group.submit(() -> {
            running.countDown();
            Thread.sleep(10_000); // interrupted by cancel
            return 0;
        });
        for (int i = 0; i < 5; i++) {
            group.submit(ran::incrementAndGet);
        }
        Latches.pass(running);
        assertThat(group.cancel()).isEqualTo(6);
        assertThat(group.awaitAll()).containsOnlyNulls().hasSize(6);
        // The running one too: its future holds a cancellation, whatever it threw on the interrupt.
        await().atMost(WAIT).until(() -> pool.stats().cancelled() == 6 && pool.stats().failed() == 0);
        assertThat(ran.get()).isZero();
    }

    @Test
    void awaitWithATimeout_waitsForEveryTask_andCancelsNothing() throws Exception {
        WorkerPool pool = pool(2);
        TaskGroup<String> group = invariants.track(TaskGroup.of(pool));
        CountDownLatch release = new CountDownLatch(1);
        group.submit(() -> "quick");
        group.submit(() -> {
            Latches.pass(release);
            return "slow";
        });
        assertThat(group.await(Duration.ofMillis(50))).as("the slow task still runs").isFalse();
        assertThat(group.await(Duration.ofSeconds(Long.MIN_VALUE))).as("minus ages: no wait").isFalse();
        assertThat(group.isStopped()).as("nothing cancelled").isFalse();
        Thread waiter = Thread.currentThread();
        Latches.releaseOnceWaiting(waiter, release);
        assertThat(group.await(Duration.ofSeconds(Long.MAX_VALUE))).as("the longest wait ends with the tasks").isTrue();
        assertThat(group.awaitAll()).containsExactly("quick", "slow");
        assertThat(TaskGroup.of(pool).await(Duration.ZERO)).as("nothing submitted: done").isTrue();
    }

    @Test
    void awaitWithATimeout_pastTheGroupsDeadline_cancelsWhatIsUnfinished() throws Exception {
        WorkerPool pool = pool(1);
        TaskGroup<String> group = invariants.track(TaskGroup.builder(pool).deadline(Duration.ofMillis(100)).build());
        group.submit(() -> {
            new CountDownLatch(1).await(); // only the deadline ends this
            return "slow";
        });
        assertThat(group.await(WAIT)).as("the deadline ended it, within the wait").isTrue();
        assertThat(group.tasks().get(0).isCancelled()).isTrue();
        assertThatThrownBy(group::awaitAll).isInstanceOf(TimeoutException.class);
    }

    @Test
    void deadline_cancelsWhatIsUnfinished_andAwaitAllThrowsTimeout() throws Exception {
        WorkerPool pool = pool(2);
        // "quick" must get a new worker thread and finish before the deadline, on a loaded machine too.
        TaskGroup<String> group = invariants.track(TaskGroup.builder(pool).deadline(Duration.ofSeconds(1)).build());
        group.submit(() -> "quick");
        group.submit(() -> {
            new CountDownLatch(1).await(); // only the deadline ends this
            return "slow";
        });
        assertThatThrownBy(group::awaitAll).isInstanceOf(TimeoutException.class).hasMessageContaining("PT1S");
        assertThat(group.tasks().get(0).value()).isEqualTo("quick");
        assertThat(group.tasks().get(1).isCancelled()).isTrue();
        assertThat(group.submit(() -> "after").isCancelled()).isTrue();
    }

    @Test
    void aSubmitWaitingForAWorker_givesUpAtTheGroupsDeadline() throws Exception {
        // Found by a review (helper-118): a submit blocked in a full pool waited past the group's
        // deadline, as long as the pool's blockingTimeout (for ever by default).
        WorkerPool pool = pool(1);
        CountDownLatch release = new CountDownLatch(1);
        ExecutorService submitter = Executors.newSingleThreadExecutor();
        try {
            pool.execute(() -> Latches.pass(release)); // not the group's: its deadline cannot free the worker
            TaskGroup<String> group = invariants.track(TaskGroup.builder(pool).deadline(Duration.ofMillis(200)).build());
            Future<TaskGroup.Task<String>> submitted = submitter.submit(() -> group.submit(() -> "late"));
            TaskGroup.Task<String> task = submitted.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            assertThat(task.isCancelled()).as("cancelled by the deadline, not run").isTrue();
            assertThatThrownBy(group::awaitAll).isInstanceOf(TimeoutException.class);
            assertThat(pool.waiting()).isZero();
            // Withdrawn, not refused (helper-129): a group's end is no overload of the pool's.
            assertThat(pool.stats().rejected()).isZero();
        } finally {
            release.countDown();
            submitter.shutdownNow();
        }
    }

    @Test
    void aGroupSubmitInsideATimedInvokeAll_keepsTheInvokeAllsDeadline() throws Exception {
        // Found by a review (helper-125): the group's end replaced the thread's deadline, so a
        // rejection listener's group submit (on the invokeAll's thread, to the same full pool)
        // waited for ever, past the invokeAll's timeout.
        WorkerPool pool = invariants.track(WorkerPool.builder().name(Invariants.uniqueName("tg")).capacity(1).build());
        assertAListenersGroupSubmitEndsWithTheInvokeAll(pool, pool, pool);
    }

    @Test
    void aGroupSubmitToASubPoolInsideATimedInvokeAllOfItsMultiPool_keepsTheInvokeAllsDeadline() throws Exception {
        // Found by a review (helper-129): the group inherited the deadline only from a call on the
        // very same executor, so a listener's group submit to the sub-pool the MultiPool's invokeAll
        // waited in waited for ever, past that call's timeout.
        MultiPool multi = invariants.track(MultiPool.of(1, WorkerPool.builder().name(Invariants.uniqueName("tgm"))
                .capacity(1), MultiPool.LoadBalancing.ROUND_ROBIN));
        assertAListenersGroupSubmitEndsWithTheInvokeAll(multi, multi, multi.pool(0));
    }

    @Test
    void aListenersGroupSubmitInsideATimedInvokeAll_cancelledByItsGroup_isWithdrawnNotRefused() throws Exception {
        // Found by a review (helper-134): the submit took the invokeAll's deadline, and with it the
        // invokeAll's way of giving up (a refusal), so its group's cancel counted one more rejection
        // of the pool's and told the listeners of it.
        WorkerPool pool = invariants.track(WorkerPool.builder().name(Invariants.uniqueName("tg")).capacity(1)
                .nonblocking(true).build());
        CountDownLatch release = new CountDownLatch(1);
        TaskGroup<String> group = invariants.track(TaskGroup.of(pool));
        AtomicReference<Object> fromListener = new AtomicReference<>();
        java.util.concurrent.atomic.AtomicInteger told = new java.util.concurrent.atomic.AtomicInteger();
        pool.addListener(new PoolListener() {
            @Override
            public void taskRejected(Pool p, java.util.concurrent.RejectedExecutionException rejection) {
                if (told.getAndIncrement() == 0) {
                    pool.reconfigure((c) -> c.withNonblocking(false)); // from now on a submit waits
                    try {
                        fromListener.set(group.submit(() -> "fallback"));
                    } catch (Throwable t) {
                        fromListener.set(t);
                    }
                }
            }
        });
        ExecutorService invoker = Executors.newSingleThreadExecutor();
        try {
            pool.execute(() -> Latches.pass(release));
            Future<?> all = invoker.submit(() -> pool.invokeAll(List.of(() -> "a"), 1, TimeUnit.HOURS));
            await().atMost(WAIT).until(() -> pool.waiting() == 1);
            assertThat(group.cancel()).isEqualTo(1);
            assertThatThrownBy(() -> all.get(WAIT.toMillis(), TimeUnit.MILLISECONDS)).as("the invokeAll's own refusal")
                .hasCauseInstanceOf(java.util.concurrent.RejectedExecutionException.class);
            assertThat(fromListener.get()).isInstanceOf(TaskGroup.Task.class);
            assertThat(((TaskGroup.Task<?>) fromListener.get()).isCancelled()).isTrue();
            assertThat(pool.stats().rejected()).as("only the invokeAll's own refusal").isEqualTo(1);
            assertThat(told.get()).as("rejections told").isEqualTo(1);
        } finally {
            release.countDown();
            invoker.shutdownNow();
        }
    }

    /**
     * With {@code invoked}'s one worker held, a timed invokeAll on it is refused at its deadline;
     * the rejection listener of {@code pool} (on the invokeAll's thread) submits to a group over
     * {@code grouped}, whose wait must end with the invokeAll's, refused.
     */
    private void assertAListenersGroupSubmitEndsWithTheInvokeAll(Pool pool, ExecutorService invoked, ExecutorService grouped)
            throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        AtomicReference<TaskGroup<String>> group = new AtomicReference<>();
        AtomicReference<Object> fromListener = new AtomicReference<>();
        java.util.concurrent.atomic.AtomicBoolean once = new java.util.concurrent.atomic.AtomicBoolean();
        pool.addListener(new PoolListener() {
            @Override
            public void taskRejected(Pool p, java.util.concurrent.RejectedExecutionException rejection) {
                if (!once.getAndSet(true)) {
                    try {
                        fromListener.set(group.get().submit(() -> "fallback"));
                    } catch (Throwable t) {
                        fromListener.set(t);
                    }
                }
            }
        });
        group.set(invariants.track(TaskGroup.of(grouped)));
        ExecutorService invoker = Executors.newSingleThreadExecutor();
        try {
            invoked.execute(() -> Latches.pass(release));
            Future<List<Future<String>>> all = invoker.submit(() -> invoked.invokeAll(List.of(() -> "a"), 100, TimeUnit.MILLISECONDS));
            assertThat(all.get(WAIT.toMillis(), TimeUnit.MILLISECONDS)).allSatisfy((f) -> assertThat(f.isCancelled()).isTrue());
            assertThat(fromListener.get()).as("refused: its wait ended with the invokeAll's")
                .isInstanceOf(java.util.concurrent.RejectedExecutionException.class);
            assertThat(((Throwable) fromListener.get()).getMessage()).contains("invokeAll");
            assertThat(group.get().tasks().get(0).error()).isSameAs(fromListener.get());
        } finally {
            release.countDown();
            invoker.shutdownNow();
        }
    }

    @Test
    void aSubmitWaitingForAWorker_givesUpWhenTheGroupIsCancelled_throughAnyOfOurPools() throws Exception {
        WorkerPool single = pool(1);
        // A ForwardingPool that is an ExecutorService too, as the Spring starter's pools are.
        ExecutorService forwarding = new ForwardingExecutor(single);
        MultiPool multi = invariants.track(MultiPool.of(1, WorkerPool.builder().name(Invariants.uniqueName("tgm"))
                .capacity(1), MultiPool.LoadBalancing.ROUND_ROBIN));
        for (ExecutorService executor : List.<ExecutorService>of(single, forwarding, multi)) {
            CountDownLatch release = new CountDownLatch(1);
            ExecutorService submitter = Executors.newSingleThreadExecutor();
            try {
                executor.execute(() -> Latches.pass(release));
                TaskGroup<String> group = invariants.track(TaskGroup.of(executor));
                Future<TaskGroup.Task<String>> submitted = submitter.submit(() -> group.submit(() -> "late"));
                Pool waitedIn = executor == multi ? multi : single;
                await().atMost(WAIT).until(() -> waitedIn.waiting() == 1);
                assertThat(group.cancel()).isEqualTo(1);
                TaskGroup.Task<String> task = submitted.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
                assertThat(task.isCancelled()).as(executor + ": not run").isTrue();
                assertThat(waitedIn.waiting()).isZero();
                assertThat(waitedIn.stats().rejected()).as("withdrawn, not refused").isZero();
            } finally {
                release.countDown();
                submitter.shutdownNow();
            }
            await().atMost(WAIT).until(() -> executor instanceof Pool p && p.running() == 0);
        }
    }

    @Test
    void aSubmitWaitingForAWorker_givesUpWhenItsTaskIsCancelled() throws Exception {
        // Review helper-142: only the group's stop ended the wait; a task cancelled through its
        // handle (seen in tasks() before submit returns) left its submitter parked in the pool.
        WorkerPool single = pool(1);
        CountDownLatch release = new CountDownLatch(1);
        ExecutorService submitter = Executors.newSingleThreadExecutor();
        try {
            single.execute(() -> Latches.pass(release));
            TaskGroup<String> group = invariants.track(TaskGroup.of(single));
            Future<TaskGroup.Task<String>> submitted = submitter.submit(() -> group.submit(() -> "late"));
            await().atMost(WAIT).until(() -> single.waiting() == 1);
            assertThat(group.tasks().get(0).cancel()).isTrue();
            TaskGroup.Task<String> task = submitted.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            assertThat(task.isCancelled()).isTrue();
            assertThat(single.waiting()).isZero();
            assertThat(single.stats().rejected()).as("withdrawn, not refused").isZero();
            assertThat(group.await(WAIT)).as("the group is done").isTrue();
            release.countDown();
            await().atMost(WAIT).until(() -> single.running() == 0);
            assertThat(single.stats().completed()).as("the blocker alone ran").isEqualTo(1);
        } finally {
            release.countDown();
            submitter.shutdownNow();
        }
    }

    @Test
    void aSubmitterInterruptedWhileItWaitsForAWorker_cancelsThatTask_withoutFailingAFailFastGroup() throws Exception {
        // Review helper-142: the interrupt's rejection failed the task, so a fail-fast group
        // stopped every other task and awaitAll() reported a "failure" that no task had.
        WorkerPool single = pool(1);
        CountDownLatch release = new CountDownLatch(1);
        TaskGroup<String> group = invariants.track(TaskGroup.builder(single).failFast(true).build());
        TaskGroup.Task<String> first = group.submit(() -> {
            Latches.pass(release);
            return "first";
        });
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        AtomicBoolean keptInterrupt = new AtomicBoolean();
        Thread submitter = new Thread(() -> {
            try {
                group.submit(() -> "never");
            } catch (Throwable t) {
                thrown.set(t);
            }
            keptInterrupt.set(Thread.currentThread().isInterrupted());
        });
        submitter.start();
        await().atMost(WAIT).until(() -> single.waiting() == 1);
        submitter.interrupt();
        submitter.join(WAIT.toMillis());
        assertThat(thrown.get()).as("the submit says it was not taken").isInstanceOf(RejectedExecutionException.class);
        assertThat(keptInterrupt).as("interrupt status kept").isTrue();
        TaskGroup.Task<String> second = group.tasks().get(1);
        assertThat(second.isCancelled()).as("withdrawn by its submitter: cancelled, not failed").isTrue();
        assertThat(first.isCancelled()).as("the running task goes on").isFalse();
        release.countDown();
        assertThat(group.awaitAll()).containsExactly("first", null);
    }

    @Test
    void aGroupCancelledBeforeItsDeadline_doesNotReportATimeout_forATaskSubmittedAfterIt() throws Exception {
        WorkerPool pool = pool(1);
        long builtAt = System.nanoTime();
        TaskGroup<String> group = invariants.track(TaskGroup.builder(pool).deadline(Duration.ofMillis(300)).build());
        group.cancel(); // the user stops it; the deadline passes afterwards
        await().atMost(WAIT).until(() -> System.nanoTime() - builtAt > TimeUnit.MILLISECONDS.toNanos(400));
        assertThat(group.submit(() -> "after").isCancelled()).isTrue();
        assertThat(group.awaitAll()).as("cancelled by the user, not timed out").containsExactly((String) null);
    }

    @Test
    void aTaskException_becomesItsError_withItsStackTrace() throws Exception {
        WorkerPool pool = pool(1);
        TaskGroup<String> group = invariants.track(TaskGroup.of(pool));
        TaskGroup.Task<String> t = group.submit(TaskGroupTest::explode);
        t.await();
        assertThat(t.isFailed()).isTrue();
        assertThat(t.error()).isInstanceOf(UnsupportedOperationException.class);
        assertThat(t.error().getStackTrace()).anySatisfy(f -> assertThat(f.getMethodName()).isEqualTo("explode"));
        assertThatThrownBy(t::get).isInstanceOf(ExecutionException.class).hasCause(t.error());
        assertThat(t.toCompletableFuture()).isCompletedExceptionally();
        assertThatThrownBy(group::awaitAll).hasCause(t.error());
    }

    private static String explode() {
        throw new UnsupportedOperationException("panic");
    }

    @Test
    void aRejectedSubmission_throws_andIsRecordedAsAFailedTask() {
        WorkerPool pool = invariants.track(WorkerPool.builder().name(Invariants.uniqueName("tg")).capacity(1)
                .nonblocking(true).build());
        TaskGroup<Integer> group = invariants.track(TaskGroup.of(pool));
        CountDownLatch release = new CountDownLatch(1);
        group.submit(() -> {
            Latches.pass(release);
            return 1;
        });
        await().atMost(WAIT).until(() -> pool.running() == 1);
        assertThatThrownBy(() -> group.submit(() -> 2)).isInstanceOf(PoolOverloadException.class);
        assertThat(group.tasks().get(1).error()).isInstanceOf(PoolOverloadException.class);
        release.countDown();
        assertThatThrownBy(group::awaitAll).hasCauseInstanceOf(PoolOverloadException.class);
    }

    @Test
    void toCompletableFuture_completesWithTheValue_andCancellingItDoesNotCancelTheTask() throws Exception {
        WorkerPool pool = pool(1);
        TaskGroup<String> group = invariants.track(TaskGroup.of(pool));
        CountDownLatch release = new CountDownLatch(1);
        TaskGroup.Task<String> t = group.submit(() -> {
            Latches.pass(release);
            return "v";
        });
        t.toCompletableFuture().cancel(true);
        assertThat(t.isCancelled()).isFalse();
        var cf = t.toCompletableFuture().thenApply(String::toUpperCase);
        release.countDown();
        assertThat(cf.get(5, TimeUnit.SECONDS)).isEqualTo("V");
        assertThat(t.await(WAIT)).isTrue();
        assertThat(t.value()).isEqualTo("v");
    }

    @Test
    void stress_concurrentSubmitters_withFailuresAndCancels_countsAddUp() throws Exception {
        WorkerPool pool = invariants.track(WorkerPool.builder().name(Invariants.uniqueName("tg")).capacity(4)
                .queueCapacity(8).build());
        TaskGroup<Integer> group = invariants.track(TaskGroup.of(pool));
        int submitters = 4;
        int perSubmitter = 500;
        List<Thread> threads = new ArrayList<>();
        for (int s = 0; s < submitters; s++) {
            Thread th = new Thread(() -> {
                for (int i = 0; i < perSubmitter; i++) {
                    int n = i;
                    TaskGroup.Task<Integer> t = group.submit(self -> {
                        if (n % 7 == 0) {
                            throw new IllegalStateException("task " + n);
                        }
                        return n;
                    });
                    if (ThreadLocalRandom.current().nextInt(10) == 0) {
                        t.cancel();
                    }
                }
            });
            threads.add(th);
            th.start();
        }
        for (Thread th : threads) {
            th.join(30_000);
            assertThat(th.isAlive()).isFalse();
        }
        assertThat(group.completions().count()).isEqualTo(submitters * perSubmitter);
        TaskGroup.Counts c = group.counts();
        assertThat(c.submitted()).isEqualTo(submitters * perSubmitter);
        assertThat(c.pending()).isZero();
        assertThat(c.failed()).isPositive();
        assertThat(c.succeeded() + c.failed() + c.cancelled()).isEqualTo(c.submitted());
        assertThatThrownBy(group::awaitAll).isInstanceOf(ExecutionException.class)
                .satisfies(e -> assertThat(1 + e.getSuppressed().length).isEqualTo(c.failed()));
        await().atMost(WAIT).until(() -> pool.stats().submitted() == c.submitted());
    }

    @Test
    void aTaskThePoolStoppedBeforeItStarted_failsWithRejection_soAwaitAllEnds() throws Exception {
        WorkerPool pool = oneWorkerAndAQueue();
        TaskGroup<Integer> group = TaskGroup.of(pool);
        CountDownLatch running = new CountDownLatch(1);
        AtomicInteger secondRan = new AtomicInteger();
        group.submit(() -> {
            running.countDown();
            new CountDownLatch(1).await(); // until shutdownNow interrupts it
            return 1;
        });
        Latches.pass(running);
        group.submit(secondRan::incrementAndGet); // queued behind it
        List<Runnable> never = pool.shutdownNow();
        assertThat(never).hasSize(1);
        await().atMost(WAIT).until(() -> group.counts().pending() == 0); // else awaitAll() would wait forever
        assertThatThrownBy(group::awaitAll).isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(InterruptedException.class);
        assertThat(group.tasks().get(1).error()).isInstanceOf(java.util.concurrent.RejectedExecutionException.class)
                .hasMessageContaining("shutdownNow").hasMessageContaining("task 1");
        assertThat(group.counts()).isEqualTo(new TaskGroup.Counts(2, 0, 0, 2, 0));
        never.get(0).run(); // the caller may run what shutdownNow returned: the group has ended it
        assertThat(secondRan).hasValue(0);
    }

    @Test
    void aSubmitThatFailsWithAnythingButARejection_failsTheTask_soAwaitAllEnds() {
        WorkerPool pool = invariants.track(WorkerPool.builder().name(Invariants.uniqueName("tg")).capacity(1)
                .taskDecorator(r -> null).build()); // a buggy decorator: execute throws NullPointerException
        TaskGroup<Integer> group = TaskGroup.of(pool);
        assertThatThrownBy(() -> group.submit(() -> 1)).isInstanceOf(NullPointerException.class);
        assertThat(group.counts()).isEqualTo(new TaskGroup.Counts(1, 0, 0, 1, 0));
        assertThatThrownBy(group::awaitAll).isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(NullPointerException.class);
    }

    @Test
    void aDecoratorsWrapperThatThrowsBeforeTheTask_failsTheGroupsTask_soAwaitAllEnds() {
        // Review helper-100: the pool's future ended with the wrapper's failure, the group's task
        // stayed pending, and awaitAll() waited for ever.
        IllegalStateException noContext = new IllegalStateException("no request context here");
        WorkerPool pool = invariants.track(WorkerPool.builder().name(Invariants.uniqueName("tg")).capacity(1)
                .panicHandler((t) -> { }).taskDecorator((r) -> () -> {
                    throw noContext;
                }).build());
        TaskGroup<Integer> group = TaskGroup.of(pool);
        group.submit(() -> 1);
        org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(java.time.Duration.ofSeconds(10),
                () -> assertThatThrownBy(group::awaitAll).isInstanceOf(ExecutionException.class).hasCause(noContext));
        assertThat(group.counts()).isEqualTo(new TaskGroup.Counts(1, 0, 0, 1, 0));
    }

    @Test
    void aTaskThatCancelsItself_beforeSubmitHasThePoolsFuture_isNotInterrupted() throws Exception {
        // An executor whose submit returns only once the task has cancelled itself: the submitting
        // thread descheduled between the pool taking the task and submit() storing its future.
        WorkerPool pool = pool(1);
        CountDownLatch selfCancelled = new CountDownLatch(1);
        java.util.concurrent.ExecutorService slowToReturn = new java.util.concurrent.AbstractExecutorService() {
            @Override
            public void execute(Runnable command) {
                pool.execute(command);
                Latches.pass(selfCancelled);
            }

            @Override
            public void shutdown() {
                pool.shutdown();
            }

            @Override
            public List<Runnable> shutdownNow() {
                return pool.shutdownNow();
            }

            @Override
            public boolean isShutdown() {
                return pool.isShutdown();
            }

            @Override
            public boolean isTerminated() {
                return pool.isTerminated();
            }

            @Override
            public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
                return pool.awaitTermination(timeout, unit);
            }
        };
        TaskGroup<Boolean> group = TaskGroup.of(slowToReturn);
        CountDownLatch submitReturned = new CountDownLatch(1);
        CountDownLatch taskReturned = new CountDownLatch(1);
        AtomicInteger interrupted = new AtomicInteger();
        group.submit(self -> {
            self.cancel();
            selfCancelled.countDown();
            try {
                Latches.pass(submitReturned); // its clean-up, after cancelling itself
            } catch (IllegalStateException e) {
                interrupted.incrementAndGet();
            }
            taskReturned.countDown();
            return false;
        });
        submitReturned.countDown();
        Latches.pass(taskReturned);
        assertThat(interrupted).as("interrupted by its own cancel").hasValue(0);
        assertThat(group.tasks().get(0).isCancelled()).isTrue();
    }

    @Test
    void aDeadlinesCallbackThatBlocks_holdsUpNoOtherGroupsDeadline() throws Exception {
        // Found by a review: the deadline ran on the JDK's one delay thread, and the cancel ran the
        // task's CompletableFuture callbacks there: one that blocked held up every deadline (and
        // orTimeout) of the JVM. Nothing here waits on the second group, so only its timer ends it.
        WorkerPool pool = pool(2);
        CountDownLatch releaseCallback = new CountDownLatch(1);
        CountDownLatch callbackRunning = new CountDownLatch(1);
        List<String> callbackThread = new CopyOnWriteArrayList<>();
        try {
            // Long enough that the callback is registered before the deadline (at 50 ms a slow
            // submit let the test thread's own expiry cancel it and run the callback itself).
            TaskGroup<Integer> first = invariants.track(TaskGroup.builder(pool).deadline(Duration.ofMillis(500)).build());
            first.submit(() -> {
                new CountDownLatch(1).await(); // only the deadline ends this
                return 1;
            }).toCompletableFuture().whenComplete((v, e) -> {
                callbackThread.add(Thread.currentThread().getName());
                callbackRunning.countDown();
                Latches.pass(releaseCallback); // a callback that blocks the thread that cancelled the task
            });
            Latches.pass(callbackRunning);
            TaskGroup<Integer> second = invariants.track(TaskGroup.builder(pool).deadline(Duration.ofMillis(50)).build());
            TaskGroup.Task<Integer> waiting = second.submit(() -> {
                new CountDownLatch(1).await();
                return 2;
            });
            await().atMost(WAIT).until(waiting::isCancelled);
            assertThat(callbackThread).singleElement().asString().startsWith("workerpool-task-group-expiry-");
        } finally {
            releaseCallback.countDown();
        }
    }

    @Test
    @Timeout(20) // a wait bounded only by the timer would wait for it here
    void awaitAllAndCompletions_endAtTheDeadline_evenWhenTheTimerIsLate() throws Exception {
        WorkerPool pool = pool(2);
        CountDownLatch releaseTimer = new CountDownLatch(1);
        CountDownLatch timerBusy = new CountDownLatch(1);
        Deadlines.timer().execute(() -> {
            timerBusy.countDown();
            try {
                releaseTimer.await(60, TimeUnit.SECONDS); // late for everything until released (or the test times out)
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        try {
            Latches.pass(timerBusy);
            TaskGroup<Integer> group = invariants.track(TaskGroup.builder(pool).deadline(Duration.ofMillis(100)).build());
            group.submit(() -> {
                new CountDownLatch(1).await();
                return 1;
            });
            assertThat(group.completions().map(TaskGroup.Task::isCancelled).toList()).containsExactly(true);
            assertThatThrownBy(group::awaitAll).isInstanceOf(TimeoutException.class);
            assertThat(releaseTimer.getCount()).as("the timer was busy throughout").isEqualTo(1);
        } finally {
            releaseTimer.countDown();
        }
    }

    @Test
    void aGroupWithNothingPending_leavesNoTimerEntry_andATaskSubmittedLaterArmsItAgain() throws Exception {
        WorkerPool pool = pool(2);
        TaskGroup<Integer> group = invariants.track(TaskGroup.builder(pool).deadline(Duration.ofHours(1)).build());
        assertThat(group.deadlineArmed()).as("nothing submitted").isFalse();
        CountDownLatch release = new CountDownLatch(1);
        TaskGroup.Task<Integer> task = group.submit(() -> {
            Latches.pass(release);
            return 1;
        });
        assertThat(group.deadlineArmed()).as("a task pending").isTrue();
        release.countDown();
        assertThat(group.awaitAll()).containsExactly(1);
        assertThat(group.deadlineArmed()).as("nothing pending").isFalse();
        assertThat(task.get()).isEqualTo(1);
        CountDownLatch again = new CountDownLatch(1);
        group.submit(() -> {
            Latches.pass(again);
            return 2;
        });
        assertThat(group.deadlineArmed()).isTrue();
        again.countDown();
        assertThat(group.awaitAll()).containsExactly(1, 2);
        assertThat(group.deadlineArmed()).isFalse();
    }

    @Test
    void aRejectionThatComesAfterTheGroupWasCancelled_leavesTheTaskCancelled_andDoesNotThrow() throws Exception {
        // Found by a review: the handle was CANCELLED, yet submit threw the rejection it had no part in.
        java.util.concurrent.atomic.AtomicReference<TaskGroup<String>> groupRef = new java.util.concurrent.atomic.AtomicReference<>();
        java.util.concurrent.ExecutorService cancelsThenRefuses = executing((command) -> {
            groupRef.get().cancel(); // the group stops while the pool is being asked
            throw new java.util.concurrent.RejectedExecutionException("full");
        });
        TaskGroup<String> group = TaskGroup.of(cancelsThenRefuses);
        groupRef.set(group);
        TaskGroup.Task<String> task = group.submit(() -> "never");
        assertThat(task.isCancelled()).isTrue();
        assertThat(group.awaitAll()).containsExactly((String) null);
    }

    @Test
    void anErrorFromThePoolAfterTheTaskRan_isThrownBySubmit_andTheTaskKeepsItsResult() throws Exception {
        // Found by a review: the pool may throw after taking the task (an OutOfMemoryError in its
        // bookkeeping); when the task had ended by then, submit dropped the Error without a word.
        OutOfMemoryError boom = new OutOfMemoryError("simulated");
        java.util.concurrent.ExecutorService runsThenThrows = executing((command) -> {
            command.run();
            throw boom;
        });
        TaskGroup<String> group = TaskGroup.of(runsThenThrows);
        assertThatThrownBy(() -> group.submit(() -> "ran")).isSameAs(boom);
        assertThat(group.awaitAll()).containsExactly("ran");
    }

    @Test
    void aDeadlineTooLongForTheClock_isNoDeadline() throws Exception {
        WorkerPool pool = pool(1);
        TaskGroup<String> group = invariants.track(TaskGroup.builder(pool).deadline(Duration.ofSeconds(Long.MAX_VALUE)).build());
        assertThat(group.submit(() -> "ran").get(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isEqualTo("ran");
        assertThat(group.isStopped()).isFalse();
    }

    @Test
    void aCallbackThatBlocksWhileTheGroupStops_holdsUpNeitherTheInterruptsNorTheOtherTasksWaits() throws Exception {
        // Helper-118: stop() completed each task's CompletableFuture (running its callbacks) before
        // it cancelled the pool's futures, and get()/await() waited on that future: a blocking
        // callback of one task left the others isCancelled() but get() timing out, await false,
        // and the running task uninterrupted.
        WorkerPool pool = oneWorkerAndAQueue();
        TaskGroup<String> group = invariants.track(TaskGroup.of(pool));
        CountDownLatch interrupted = new CountDownLatch(1);
        runUntilInterrupted(group, interrupted::countDown);
        TaskGroup.Task<String> second = group.submit(() -> "second");
        TaskGroup.Task<String> third = group.submit(() -> "third");
        CountDownLatch inCallback = new CountDownLatch(1);
        CountDownLatch releaseCallback = new CountDownLatch(1);
        second.toCompletableFuture().whenComplete((v, e) -> {
            inCallback.countDown();
            Latches.pass(releaseCallback);
        });
        Thread canceller = new Thread(group::cancel, "canceller");
        canceller.start();
        try {
            Latches.pass(inCallback);
            assertThat(interrupted.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).as("running task interrupted").isTrue();
            assertThat(third.isCancelled()).isTrue();
            assertThat(third.await(WAIT)).isTrue();
            assertThatThrownBy(() -> third.get(WAIT.toMillis(), TimeUnit.MILLISECONDS))
                .isInstanceOf(CancellationException.class);
        } finally {
            releaseCallback.countDown();
            canceller.join(WAIT.toMillis());
        }
        assertThat(canceller.isAlive()).isFalse();
    }

    @Test
    void failFast_stopsTheGroupAndInterruptsTheOthers_beforeTheFailedTasksCallbacksRun() throws Exception {
        // Review helper-167: the failed task's future was completed (its callbacks run) before
        // fail-fast stopped the group: a callback saw it running, a later submit ran, and one that
        // waited for the running task waited for good.
        WorkerPool pool = pool(3);
        TaskGroup<String> group = invariants.track(TaskGroup.builder(pool).failFast(true).build());
        CountDownLatch interrupted = new CountDownLatch(1);
        runUntilInterrupted(group, interrupted::countDown);
        CountDownLatch fail = new CountDownLatch(1);
        TaskGroup.Task<String> failing = group.submit(() -> {
            Latches.pass(fail);
            throw new java.io.IOException("down");
        });
        CountDownLatch inCallback = new CountDownLatch(1);
        CountDownLatch releaseCallback = new CountDownLatch(1);
        java.util.concurrent.atomic.AtomicBoolean stoppedInCallback = new java.util.concurrent.atomic.AtomicBoolean();
        failing.toCompletableFuture().whenComplete((v, e) -> {
            stoppedInCallback.set(group.isStopped());
            inCallback.countDown();
            Latches.pass(releaseCallback);
        });
        fail.countDown();
        try {
            Latches.pass(inCallback);
            assertThat(stoppedInCallback.get()).as("the group stopped when the callback ran").isTrue();
            assertThat(interrupted.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).as("running task interrupted").isTrue();
            assertThat(group.submit(() -> "late").isCancelled()).as("a later submit").isTrue();
        } finally {
            releaseCallback.countDown();
        }
    }

    @Test
    void failFast_completesTheFailedTasksFuture_beforeThoseOfTheTasksItCancelled() throws Exception {
        // Review helper-173: the cancelled tasks' futures completed first, so anyOf reported a
        // sibling's cancel instead of the failure, and a callback of theirs that waited for the
        // failed task's future waited on the failing worker's own thread.
        WorkerPool pool = pool(3);
        TaskGroup<String> group = invariants.track(TaskGroup.builder(pool).failFast(true).build());
        TaskGroup.Task<String> slow = runUntilInterrupted(group, () -> { });
        CountDownLatch fail = new CountDownLatch(1);
        java.io.IOException rootCause = new java.io.IOException("root cause");
        TaskGroup.Task<String> failing = group.submit(() -> {
            Latches.pass(fail);
            throw rootCause;
        });
        java.util.concurrent.CompletableFuture<String> failingFuture = failing.toCompletableFuture();
        java.util.concurrent.CompletableFuture<Object> first = java.util.concurrent.CompletableFuture
            .anyOf(slow.toCompletableFuture(), failingFuture);
        AtomicReference<Object> seenBySlowsCallback = new AtomicReference<>();
        slow.toCompletableFuture().whenComplete((v, e) -> seenBySlowsCallback.set(failingFuture.isDone() ? "done"
                : "not done"));
        fail.countDown();
        assertThatThrownBy(() -> first.get(WAIT.toMillis(), TimeUnit.MILLISECONDS))
            .isInstanceOf(ExecutionException.class).hasCause(rootCause);
        await().atMost(WAIT).until(() -> seenBySlowsCallback.get() != null);
        assertThat(seenBySlowsCallback.get()).as("the failed task's future, when the cancelled one's callback ran")
            .isEqualTo("done");
    }

    @Test
    void aCancelledTasksCallback_runsAfterItsInterrupt() throws Exception {
        // Review helper-167: Task.cancel completed the future (its callbacks run) before it
        // interrupted the task, so a callback that waited for the task's body to exit waited for good.
        WorkerPool pool = pool(2);
        TaskGroup<String> group = invariants.track(TaskGroup.of(pool));
        CountDownLatch exited = new CountDownLatch(1);
        TaskGroup.Task<String> task = runUntilInterrupted(group, exited::countDown);
        java.util.concurrent.atomic.AtomicBoolean exitedInCallback = new java.util.concurrent.atomic.AtomicBoolean();
        task.toCompletableFuture().whenComplete((v, e) -> {
            try {
                exitedInCallback.set(exited.await(WAIT.toMillis(), TimeUnit.MILLISECONDS));
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        });
        assertThat(task.cancel()).isTrue();
        assertThat(exitedInCallback.get()).as("the body exited while the callback waited").isTrue();
    }

    @Test
    void getWithTheLongestTimeout_waitsForTheTask() throws Exception {
        // The longest timeout waits as long as the task runs (a deadline computed as now + the
        // timeout wraps, and only differences of such values are meaningful).
        TaskGroup<String> group = invariants.track(TaskGroup.of(pool(1)));
        CountDownLatch go = new CountDownLatch(1);
        TaskGroup.Task<String> t = group.submit(() -> {
            Latches.pass(go);
            return "done";
        });
        Thread opener = Latches.releaseOnceWaiting(Thread.currentThread(), go);
        try {
            assertThat(t.get(Long.MAX_VALUE, TimeUnit.DAYS)).isEqualTo("done");
        }
        finally {
            go.countDown();
            opener.join();
        }
    }

    @Test
    void aCancelledTasksCompletableFuture_isCancelled() throws Exception {
        // Helper-118: done.copy() completed the copy of a cancelled future exceptionally (a
        // CompletionException), so it did not read as cancelled, as the javadoc says it does.
        WorkerPool pool = oneWorkerAndAQueue();
        TaskGroup<String> group = invariants.track(TaskGroup.of(pool));
        CountDownLatch release = new CountDownLatch(1);
        group.submit(() -> {
            Latches.pass(release);
            return "first";
        });
        TaskGroup.Task<String> queued = group.submit(() -> "queued");
        CompletableFuture<String> before = queued.toCompletableFuture();
        assertThat(queued.cancel()).isTrue();
        release.countDown();
        for (CompletableFuture<String> f : List.of(before, queued.toCompletableFuture())) {
            assertThat(f.isCancelled()).isTrue();
            assertThatThrownBy(f::get).isInstanceOf(CancellationException.class);
        }
        assertThat(group.awaitAll()).containsExactly("first", null);
    }

    @Test
    void aTaskCancelledAsAWorkerTakesIt_isCountedCancelledByThePool() throws Exception {
        // Helper-118: a worker that took the task between the group's cancel and the cancel of
        // the pool's future ran it as a no-op, and the pool counted it completed.
        WorkerPool pool = oneWorkerAndAQueue();
        TaskGroup<String> group = invariants.track(TaskGroup.of(pool));
        CountDownLatch releaseWorker = new CountDownLatch(1);
        pool.execute(() -> Latches.pass(releaseWorker));
        TaskGroup.Task<String> queued = group.submit(() -> "queued");
        CountDownLatch inCallback = new CountDownLatch(1);
        CountDownLatch releaseCallback = new CountDownLatch(1);
        queued.toCompletableFuture().whenComplete((v, e) -> {
            inCallback.countDown();
            Latches.pass(releaseCallback); // holds up Task.cancel() before it cancels the pool's future
        });
        Thread canceller = new Thread(() -> queued.cancel(false), "canceller");
        canceller.start();
        try {
            Latches.pass(inCallback);
            releaseWorker.countDown(); // the worker takes the queued task, whose pool future is not cancelled yet
            await().atMost(WAIT).until(() -> pool.stats().queued() == 0 && pool.stats().running() == 0);
        } finally {
            releaseCallback.countDown();
            canceller.join(WAIT.toMillis());
        }
        PoolStats stats = pool.stats();
        assertThat(stats.completed()).as("%s", stats).isEqualTo(1);
        assertThat(stats.cancelled()).as("%s", stats).isEqualTo(1);
    }

    @Test
    void aTaskThatThrowsACancellationOrCompletionException_hasFailed_andItsFuturesSaySo() throws Exception {
        // Found by a review: stored as is, a CancellationException read as a cancel through get(), and
        // a CompletionException was unwrapped, unlike error() and awaitAll().
        WorkerPool pool = pool(2);
        TaskGroup<String> group = invariants.track(TaskGroup.of(pool));
        TaskGroup.Task<String> cancelledInside = group.submit(() -> {
            throw new CancellationException("a sibling was cancelled");
        });
        TaskGroup.Task<String> wrapped = group.submit(() -> {
            throw new CompletionException(new java.io.IOException("disk"));
        });
        cancelledInside.await();
        wrapped.await();
        assertThat(cancelledInside.isFailed()).isTrue();
        assertThat(cancelledInside.isCancelled()).isFalse();
        assertThatThrownBy(cancelledInside::get).isInstanceOf(ExecutionException.class).hasCause(cancelledInside.error());
        assertThatThrownBy(() -> cancelledInside.get(1, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
            .hasCause(cancelledInside.error());
        assertThat(cancelledInside.toCompletableFuture().isCancelled()).isFalse();
        assertThat(cancelledInside.toCompletableFuture()).isCompletedExceptionally();
        assertThatThrownBy(wrapped::get).isInstanceOf(ExecutionException.class).hasCause(wrapped.error());
        assertThatThrownBy(() -> wrapped.toCompletableFuture().get()).isInstanceOf(ExecutionException.class)
            .hasCause(wrapped.error());
        assertThatThrownBy(group::awaitAll).hasCause(cancelledInside.error());
    }

    @Test
    void theDeadline_isKept_whileTheCommonPoolIsBusy() throws Exception {
        int parallelism = java.util.concurrent.ForkJoinPool.getCommonPoolParallelism();
        assertThat(parallelism).as("pool-core's surefire argLine gives the common pool two threads").isGreaterThan(1);
        CountDownLatch releaseCommon = new CountDownLatch(1);
        CountDownLatch busy = new CountDownLatch(parallelism);
        for (int i = 0; i < parallelism; i++) {
            java.util.concurrent.ForkJoinPool.commonPool().execute(() -> {
                busy.countDown();
                Latches.pass(releaseCommon); // blocking work, as in a parallel stream doing I/O
            });
        }
        try {
            Latches.pass(busy);
            WorkerPool pool = pool(1);
            CountDownLatch releaseTask = new CountDownLatch(1);
            TaskGroup<Integer> group = TaskGroup.builder(pool).deadline(Duration.ofMillis(100)).build();
            group.submit(() -> {
                releaseTask.await(); // interrupted by the deadline's cancel
                return 1;
            });
            await().atMost(WAIT).until(group::isStopped);
            assertThatThrownBy(group::awaitAll).isInstanceOf(TimeoutException.class);
            assertThat(releaseCommon.getCount()).as("the common pool was busy throughout").isEqualTo(1);
        } finally {
            releaseCommon.countDown();
        }
    }

    /** An ExecutorService whose execute is {@code execute}; its lifecycle does nothing. */
    private static java.util.concurrent.ExecutorService executing(java.util.function.Consumer<Runnable> execute) {
        return new java.util.concurrent.AbstractExecutorService() {
            @Override
            public void execute(Runnable command) {
                execute.accept(command);
            }

            @Override
            public void shutdown() {
            }

            @Override
            public List<Runnable> shutdownNow() {
                return List.of();
            }

            @Override
            public boolean isShutdown() {
                return false;
            }

            @Override
            public boolean isTerminated() {
                return false;
            }

            @Override
            public boolean awaitTermination(long timeout, TimeUnit unit) {
                return true;
            }
        };
    }

    /** A ForwardingPool that is also an ExecutorService over the same pool (the Spring starter's SpringPool). */
    private static final class ForwardingExecutor extends ForwardingPool implements ExecutorService {
        private final WorkerPool pool;

        ForwardingExecutor(WorkerPool pool) {
            this.pool = pool;
        }

        @Override
        protected Pool delegate() {
            return pool;
        }

        @Override
        public void execute(Runnable task) {
            pool.execute(task);
        }

        @Override
        public void shutdown() {
            pool.shutdown();
        }

        @Override
        public List<Runnable> shutdownNow() {
            return pool.shutdownNow();
        }

        @Override
        public boolean isShutdown() {
            return pool.isShutdown();
        }

        @Override
        public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
            return pool.awaitTermination(timeout, unit);
        }

        @Override
        public <T> Future<T> submit(Callable<T> task) {
            return pool.submit(task);
        }

        @Override
        public <T> Future<T> submit(Runnable task, T result) {
            return pool.submit(task, result);
        }

        @Override
        public Future<?> submit(Runnable task) {
            return pool.submit(task);
        }

        @Override
        public <T> List<Future<T>> invokeAll(java.util.Collection<? extends Callable<T>> tasks) throws InterruptedException {
            return pool.invokeAll(tasks);
        }

        @Override
        public <T> List<Future<T>> invokeAll(java.util.Collection<? extends Callable<T>> tasks, long timeout,
                TimeUnit unit) throws InterruptedException {
            return pool.invokeAll(tasks, timeout, unit);
        }

        @Override
        public <T> T invokeAny(java.util.Collection<? extends Callable<T>> tasks) throws InterruptedException, ExecutionException {
            return pool.invokeAny(tasks);
        }

        @Override
        public <T> T invokeAny(java.util.Collection<? extends Callable<T>> tasks, long timeout, TimeUnit unit)
                throws InterruptedException, ExecutionException, TimeoutException {
            return pool.invokeAny(tasks, timeout, unit);
        }
    }
}
