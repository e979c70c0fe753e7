package io.github.workerpool;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Races and failure paths found in review: each test fails without its fix. */
class WorkerPoolRaceTest extends PoolTestSupport {

    /** A thread factory whose next threads can be made to fail on creation or on start. */
    static final class FlakyThreads implements ThreadFactory {
        volatile boolean failCreate;
        volatile boolean failStart;
        /** When set, start() of the next threads waits on it before failing or starting. */
        volatile CountDownLatch startGate;
        final CountDownLatch starting = new CountDownLatch(1);
        private final AtomicInteger seq = new AtomicInteger();

        @Override
        public Thread newThread(Runnable r) {
            if (failCreate) {
                throw new IllegalStateException("injected: cannot create a thread");
            }
            boolean fail = failStart;
            CountDownLatch gate = startGate;
            return new Thread(r, "flaky-" + seq.incrementAndGet()) {
                @Override
                public synchronized void start() {
                    if (gate != null) {
                        starting.countDown();
                        hold(gate);
                    }
                    if (fail) {
                        throw new OutOfMemoryError("injected: unable to create native thread");
                    }
                    super.start();
                }
            };
        }
    }

    /** Runs execute on a new thread; the returned ref gets what it threw, if anything. */
    private static Thread caller(String name, WorkerPool pool, Runnable task, AtomicReference<Throwable> thrown) {
        return start(name, () -> {
            try {
                pool.execute(task);
            } catch (Throwable t) {
                thrown.set(t);
            }
        });
    }

    private static void assertFinished(Thread t) throws InterruptedException {
        t.join(TIMEOUT.toMillis());
        assertThat(t.isAlive()).as("%s returned", t.getName()).isFalse();
    }

    @Test
    void queueMode_aNewcomerDoesNotTakeTheRoomAWorkerFreedForACallerAlreadyWaiting() throws Exception {
        // Helper-138: the room a worker freed by taking a task went to whoever reserved it first,
        // a newcomer's lock-free submit too, while the worker waited for the lock to let the
        // waiting caller in: that caller, first in line, was refused at its blockingTimeout.
        WorkerPool pool = pool(WorkerPool.builder().name("q").capacity(1).queueCapacity(1)
            .blockingTimeout(Duration.ofMillis(300)));
        CountDownLatch a = gate();
        CountDownLatch b = gate();
        pool.execute(() -> hold(a)); // runs
        pool.execute(() -> hold(b)); // queued: the queue is full
        AtomicReference<String> waiter = new AtomicReference<>();
        Thread w = start("waiting caller", () -> {
            try {
                pool.execute(() -> { });
                waiter.set("accepted");
            } catch (RejectedExecutionException e) {
                waiter.set("refused: " + e.getMessage());
            }
        });
        awaitUntil("the caller waits", () -> pool.waiting() == 1);
        AtomicBoolean newcomerReturned = new AtomicBoolean();
        Thread newcomer;
        pool.lock.lock(); // any holder of the pool's lock (stats(), a reconfigure, the expiry check)
        try {
            open(a); // the worker takes the queued task, and waits for the lock to let the caller in
            awaitUntil("the worker waits for the lock", pool.lock::hasQueuedThreads);
            newcomer = start("newcomer", () -> {
                try {
                    pool.execute(() -> { });
                } catch (RejectedExecutionException e) {
                    // refused behind the waiting caller: fair
                }
                newcomerReturned.set(true);
            });
            awaitUntil("the newcomer is in or waits for the lock",
                    () -> newcomerReturned.get() || pool.lock.hasQueuedThread(newcomer));
        } finally {
            pool.lock.unlock();
        }
        w.join(TIMEOUT.toMillis());
        assertThat(waiter.get()).as("the caller first in line").isEqualTo("accepted");
        open(b);
        newcomer.join(TIMEOUT.toMillis());
    }

    @Test
    void queueMode_aNewcomerThatSeesRoomOnlyByASecondCount_linesUpBehindTheCallerAlreadyWaiting() throws Exception {
        // Helper-160: on the full path the newcomer let the waiting callers in by one count of the
        // takes, then counted again; a take that landed between the two counts gave it the room
        // first, and the caller first in line waited on behind it.
        WorkerPool pool = pool(WorkerPool.builder().name("q").capacity(1).queueCapacity(1)
            .blockingTimeout(Duration.ofSeconds(30)));
        CountDownLatch a = gate();
        CountDownLatch b = gate();
        AtomicReference<Thread> worker = new AtomicReference<>();
        pool.execute(() -> {
            worker.set(Thread.currentThread());
            hold(a);
        }); // runs
        pool.execute(() -> hold(b)); // queued: the queue is full
        awaitUntil("a runs", () -> worker.get() != null);
        List<String> ran = new CopyOnWriteArrayList<>();
        Thread first = start("waiting caller", () -> pool.execute(() -> ran.add("first in line")));
        awaitUntil("the caller waits", () -> pool.waiting() == 1);
        AtomicBoolean armed = new AtomicBoolean(true);
        pool.searchPoint = (point) -> {
            if (point == WorkerPool.SEARCH_ROOM_RECOUNT && Thread.currentThread().getName().equals("newcomer")
                    && armed.compareAndSet(true, false)) {
                // Between the two counts, the newcomer holding the lock: the worker ends a, takes
                // b (a take the first count did not see) and waits for the lock to let the caller in.
                open(a);
                awaitUntil("the worker took b and waits for the lock",
                        () -> pool.queued() == 0 && pool.lock.hasQueuedThread(worker.get()));
            }
        };
        Thread newcomer = start("newcomer", () -> pool.execute(() -> ran.add("newcomer")));
        awaitUntil("the newcomer has been at the second count", () -> !armed.get());
        open(b);
        first.join(TIMEOUT.toMillis());
        newcomer.join(TIMEOUT.toMillis());
        awaitUntil("both ran", () -> ran.size() == 2);
        assertThat(ran).containsExactly("first in line", "newcomer");
    }

    @Test
    void tuneUp_whenNoThreadCanBeCreated_leavesCallersWaiting_andLosesNoTask() throws Exception {
        FlakyThreads threads = new FlakyThreads();
        WorkerPool pool = pool(WorkerPool.builder().capacity(1).spinNanos(0).threadFactory(threads));
        CountDownLatch gate = gate();
        pool.execute(() -> hold(gate));
        CountDownLatch ran = new CountDownLatch(1);
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread waiter = caller("waiter", pool, ran::countDown, thrown);
        awaitUntil("caller waits", () -> pool.waiting() == 1);

        threads.failCreate = true;
        pool.tune(2); // must not throw at the tuner, nor drop the waiting caller
        assertThat(pool.capacity()).isEqualTo(2);
        threads.failCreate = false;

        open(gate); // the busy worker frees up and serves the caller
        assertThat(ran.await(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)).as("waiting caller's task ran").isTrue();
        assertFinished(waiter);
        assertThat(thrown.get()).isNull();
    }

    @Test
    void tuneUp_whenThreadsFailToStart_losesNoTask_andLeaksNoUnstartedWorker() throws Exception {
        FlakyThreads threads = new FlakyThreads();
        WorkerPool pool = pool(WorkerPool.builder().capacity(1).spinNanos(0).threadFactory(threads));
        CountDownLatch gate = gate();
        pool.execute(() -> hold(gate));
        CountDownLatch ran = new CountDownLatch(2);
        AtomicReference<Throwable> thrownA = new AtomicReference<>();
        AtomicReference<Throwable> thrownB = new AtomicReference<>();
        Thread a = caller("a", pool, ran::countDown, thrownA);
        awaitUntil("a waits", () -> pool.waiting() == 1);
        Thread b = caller("b", pool, ran::countDown, thrownB);
        awaitUntil("b waits", () -> pool.waiting() == 2);

        threads.failStart = true;
        pool.tune(3); // its new threads fail to start: must not throw, drop a caller, or leave a worker unstarted
        threads.failStart = false;

        open(gate);
        assertThat(ran.await(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)).as("both callers' tasks ran").isTrue();
        assertFinished(a);
        assertFinished(b);
        assertThat(thrownA.get()).isNull();
        assertThat(thrownB.get()).isNull();
    }

    @Test
    void workerThatFailsToStart_neitherStrandsACallerThatWaitedForItsSlot_norRefusesItsOwnTask() throws Exception {
        FlakyThreads threads = new FlakyThreads();
        WorkerPool pool = pool(WorkerPool.builder().capacity(1).spinNanos(0).threadFactory(threads));
        CountDownLatch startGate = new CountDownLatch(1);
        threads.startGate = startGate;
        threads.failStart = true;
        AtomicReference<Throwable> thrownA = new AtomicReference<>();
        CountDownLatch ranA = new CountDownLatch(1);
        Thread a = caller("a", pool, ranA::countDown, thrownA);
        assertThat(threads.starting.await(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        threads.startGate = null; // later threads start normally
        threads.failStart = false;

        // a's worker takes the only slot while its thread is being started, so b waits for it.
        CountDownLatch ran = new CountDownLatch(1);
        AtomicReference<Throwable> thrownB = new AtomicReference<>();
        Thread b = caller("b", pool, ran::countDown, thrownB);
        awaitUntil("b waits", () -> pool.waiting() == 1);

        // a's thread fails to start: the slot is free again, a replacement worker serves b, and a
        // waits for a live worker instead of being refused.
        open(startGate);
        assertThat(ranA.await(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)).as("a's task ran").isTrue();
        assertFinished(a);
        assertThat(thrownA.get()).isNull();
        assertThat(ran.await(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)).as("b's task ran").isTrue();
        assertFinished(b);
        assertThat(thrownB.get()).isNull();
    }

    /**
     * Caller a's worker takes the only slot while its thread is being started (held at the start
     * gate); every thread after it fails to start at once. Returns a, once its thread is at the gate.
     */
    private static Thread callerWhoseWorkerFailsToStart(WorkerPool pool, FlakyThreads threads, CountDownLatch startGate,
            AtomicReference<Throwable> thrown) throws InterruptedException {
        threads.startGate = startGate;
        threads.failStart = true;
        Thread a = caller("a", pool, () -> { }, thrown);
        assertThat(threads.starting.await(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        threads.startGate = null; // later threads fail at once
        return a;
    }

    @Test
    void workerAndItsReplacementFailingToStart_refuseTheCallerThatWaitedForTheSlot_insteadOfStrandingIt()
            throws Exception {
        // Found by a review: with no live worker left, b waited for a later submit that might never come.
        FlakyThreads threads = new FlakyThreads();
        WorkerPool pool = pool(WorkerPool.builder().capacity(1).spinNanos(0).threadFactory(threads));
        CountDownLatch startGate = new CountDownLatch(1);
        AtomicReference<Throwable> thrownA = new AtomicReference<>();
        Thread a = callerWhoseWorkerFailsToStart(pool, threads, startGate, thrownA);
        AtomicReference<Throwable> thrownB = new AtomicReference<>();
        CountDownLatch ranB = new CountDownLatch(1);
        Thread b = caller("b", pool, ranB::countDown, thrownB);
        awaitUntil("b waits", () -> pool.waiting() == 1);

        open(startGate); // a's thread fails, and so does the replacement's
        assertFinished(a);
        assertThat(thrownA.get()).isInstanceOf(PoolOverloadException.class);
        assertFinished(b);
        assertThat(thrownB.get()).isInstanceOf(PoolOverloadException.class)
            .hasMessageContaining("could not create a worker thread").hasMessageContaining("fix the thread factory");
        assertThat(ranB.getCount()).isEqualTo(1);
        assertThat(pool.waiting()).isZero();
        PoolStats stats = pool.stats();
        assertThat(stats.rejected()).isEqualTo(2);
    }

    @Test
    void aTaskForAPoolWithTasksQueuedAndNoLiveWorker_isRefusedWhileTheFactoryFails_notQueuedThere() throws Exception {
        // Review helper-101: the order fix queued it behind the stranded one (the worker its offer
        // woke could not start), where nothing would run it; a MultiPool passed it to that sub-pool.
        FlakyThreads threads = new FlakyThreads();
        WorkerPool pool = pool(WorkerPool.builder().capacity(1).queueCapacity(5).spinNanos(0).disablePurge(true)
            .threadFactory(threads));
        CountDownLatch ranB = queuedWhileTheOnlyWorkerFailsToStart(pool, threads);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> pool.execute(() -> { }))
            .isInstanceOf(PoolOverloadException.class).hasMessageContaining("fix the thread factory");
        assertThat(pool.queued()).isEqualTo(1);
        threads.failStart = false;
        pool.shutdown();
        assertThat(pool.awaitTermination(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)).as("terminated").isTrue();
        assertThat(ranB.getCount()).as("the queued task ran").isZero();
    }

    @Test
    void tasksQueuedWhileNoThreadCouldStart_runAtShutdown_once_theFactoryWorksAgain() throws Exception {
        // Found by a review: nothing drained the queue with no worker left, so shutdown never terminated.
        FlakyThreads threads = new FlakyThreads();
        WorkerPool pool = pool(WorkerPool.builder().capacity(1).queueCapacity(5).spinNanos(0).threadFactory(threads));
        CountDownLatch ranB = queuedWhileTheOnlyWorkerFailsToStart(pool, threads);

        threads.failStart = false;
        pool.shutdown();
        assertThat(pool.awaitTermination(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)).as("terminated").isTrue();
        assertThat(ranB.getCount()).as("the queued task ran").isZero();
    }

    @Test
    void tasksQueuedWhileNoThreadCouldStart_runOnceTheFactoryWorksAgain_evenIfItStillFailedAtShutdown()
            throws Exception {
        // Found by a review: the drainer shutdown() starts was tried once; the purger tries again.
        FlakyThreads threads = new FlakyThreads();
        WorkerPool pool = pool(WorkerPool.builder().capacity(1).queueCapacity(5).spinNanos(0)
            .expiry(java.time.Duration.ofMillis(20)).threadFactory(threads));
        CountDownLatch ranB = queuedWhileTheOnlyWorkerFailsToStart(pool, threads);

        pool.shutdown(); // its drainer fails to start too
        assertThat(pool.isTerminated()).isFalse();
        assertThat(ranB.getCount()).isEqualTo(1);
        threads.failStart = false;
        assertThat(pool.awaitTermination(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)).as("terminated").isTrue();
        assertThat(ranB.getCount()).as("the queued task ran").isZero();
    }

    @Test
    void anExpiryChangedAfterShutdown_keepsTheCheckThatDrainsTasksQueuedWithNoWorker() throws Exception {
        // Found by a review: the change cancelled the expiry check and scheduled it again only while running.
        FlakyThreads threads = new FlakyThreads();
        WorkerPool pool = pool(WorkerPool.builder().capacity(1).queueCapacity(5).spinNanos(0)
            .expiry(java.time.Duration.ofMillis(20)).threadFactory(threads));
        CountDownLatch ranB = queuedWhileTheOnlyWorkerFailsToStart(pool, threads);
        pool.shutdown(); // its drainer fails to start too
        pool.reconfigure((c) -> c.withExpiry(java.time.Duration.ofMillis(30)));
        threads.failStart = false;
        assertThat(pool.awaitTermination(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)).as("terminated").isTrue();
        assertThat(ranB.getCount()).as("the queued task ran").isZero();
    }

    /**
     * A task queued while the only slot is held by a worker whose thread then fails to start, and
     * its replacement's too: left queued with no live worker. Returns the task's latch.
     */
    private static CountDownLatch queuedWhileTheOnlyWorkerFailsToStart(WorkerPool pool, FlakyThreads threads)
            throws InterruptedException {
        CountDownLatch startGate = new CountDownLatch(1);
        AtomicReference<Throwable> thrownA = new AtomicReference<>();
        Thread a = callerWhoseWorkerFailsToStart(pool, threads, startGate, thrownA);
        CountDownLatch ranB = new CountDownLatch(1);
        pool.execute(ranB::countDown); // the only slot is a's: queued
        assertThat(pool.queued()).isEqualTo(1);
        open(startGate); // a's thread fails, and so does the replacement's
        assertFinished(a);
        assertThat(thrownA.get()).isInstanceOf(PoolOverloadException.class);
        assertThat(pool.queued()).isEqualTo(1);
        return ranB;
    }

    /**
     * A worker that just went idle becomes the spinner before it can see a caller that is about
     * to wait; the caller registers and then re-checks the spinner. If purge() takes the spinner
     * in between (its lock coming after the caller's registration) and retires it, the caller
     * waits with no worker left to serve it. The window is a few instructions wide, so this
     * catches the bug only in a fraction of runs (about 1 in 3 on a loaded 2-core machine).
     */
    @Test
    void purge_racingAWorkerThatJustWentIdle_neverStrandsAWaitingCaller() throws Exception {
        WorkerPool pool = pool(WorkerPool.builder().capacity(1).spinNanos(TimeUnit.MILLISECONDS.toNanos(1)));
        AtomicInteger submitted = new AtomicInteger();
        AtomicInteger ran = new AtomicInteger();
        AtomicBoolean producing = new AtomicBoolean(true);
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(3);
        Thread purger = start("purger", () -> {
            while (producing.get()) {
                if (pool.idle() > 0) {
                    pool.purge();
                }
                Thread.onSpinWait();
            }
        });
        Thread producer = start("producer", () -> {
            ThreadLocalRandom random = ThreadLocalRandom.current();
            while (System.nanoTime() - end < 0) {
                int spins = random.nextInt(8); // about as long as a caller's path to waiting
                submitted.incrementAndGet();
                pool.execute(() -> {
                    for (int i = 0; i < spins; i++) {
                        Thread.onSpinWait();
                    }
                    ran.incrementAndGet();
                });
            }
        });
        producer.join(TimeUnit.SECONDS.toMillis(3) + TIMEOUT.toMillis());
        producing.set(false);
        purger.join(TIMEOUT.toMillis());
        assertThat(producer.isAlive()).as("producer stuck in execute: %s after %s tasks", pool, submitted.get()).isFalse();
        awaitUntil("every task ran", () -> ran.get() == submitted.get());
    }

    /**
     * Queue mode below capacity: the second task arrives while the first one's woken worker is
     * still on its way (it counts as searching, so no new worker is started for the second) and
     * then takes the first task, which waits for the second. The worker that stops searching
     * with work left must start another worker, as ThreadPoolExecutor would for its core size;
     * otherwise the two tasks deadlock in a pool with a free slot.
     */
    @Test
    void queueMode_belowCapacity_aTaskThatWaitsForAnotherDoesNotDeadlock() throws Exception {
        for (int round = 0; round < 200; round++) {
            WorkerPool pool = WorkerPool.builder().name("q").capacity(2).queueCapacity(Integer.MAX_VALUE).build();
            try {
                pool.submit(() -> { }).get(10, TimeUnit.SECONDS);
                awaitUntil("the first worker idles", () -> pool.idle() == 1 && pool.running() == 0);
                CountDownLatch second = new CountDownLatch(1);
                Future<?> first = pool.submit(() -> {
                    hold(second);
                });
                pool.execute(second::countDown);
                first.get(10, TimeUnit.SECONDS);
            } finally {
                pool.shutdownNow();
                assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
            }
        }
    }

    /**
     * Holds the pool's worker once at a point of its search ({@link WorkerPool#searchPoint}):
     * {@code reached} opens when it gets there, and it goes on when {@code release} opens.
     */
    private static void holdOnceAt(WorkerPool pool, int point, CountDownLatch reached, CountDownLatch release) {
        AtomicBoolean armed = new AtomicBoolean(true);
        java.util.function.IntConsumer before = pool.searchPoint;
        pool.searchPoint = (p) -> {
            if (before != null) {
                before.accept(p);
            }
            if (p == point && armed.compareAndSet(true, false)) {
                reached.countDown();
                hold(release);
            }
        };
    }

    @ParameterizedTest
    @ValueSource(ints = { 0, 1 })
    void aWorkerPastItsCapacityCheckWhenTuneShrinks_doesNotTakeAWaitingCallersTask(int queueCapacity) throws Exception {
        // Found by a review (helper-130): a worker that had passed the capacity check at the top of
        // its loop when tune(1) returned took a waiting caller's task: two tasks ran under capacity 1.
        WorkerPool pool = pool(WorkerPool.builder().name("shrink").capacity(2).queueCapacity(queueCapacity)
                .spinNanos(0).disablePurge(true));
        CountDownLatch gate = new CountDownLatch(1);
        AtomicBoolean firstRunning = new AtomicBoolean(true);
        pool.execute(() -> {
            hold(gate);
            firstRunning.set(false);
        });
        CountDownLatch atPoint = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        holdOnceAt(pool, WorkerPool.SEARCH_EMPTY_POLL, atPoint, release);
        pool.execute(() -> { }); // a second worker runs it, then is held past its capacity check
        hold(atPoint);
        pool.tune(1);
        AtomicBoolean overlapped = new AtomicBoolean();
        CountDownLatch ran = new CountDownLatch(queueCapacity + 1);
        Thread caller = start("caller", () -> {
            for (int i = 0; i <= queueCapacity; i++) { // the last one waits: the queue (if any) is full
                pool.execute(() -> {
                    overlapped.compareAndSet(false, firstRunning.get());
                    ran.countDown();
                });
            }
        });
        awaitUntil("the caller waits", () -> pool.waiting() == 1);
        open(release);
        awaitUntil("the held worker retired or ran the task", () -> pool.workerThreads().size() == 1 || ran.getCount() == 0);
        open(gate);
        assertThat(ran.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        caller.join(TIMEOUT.toMillis());
        assertThat(overlapped).as("a task ran beside the first one under capacity 1").isFalse();
    }

    @Test
    void aCallersTaskThatWaitsForRoom_runsAfterItsQueuedOne_evenIfTheWorkerFoundTheQueueEmptyFirst() throws Exception {
        // Found by a review: a worker that found the queue empty, then saw a waiting caller, ran
        // that caller's waiting task before the one it had queued just before (capacity 1: a
        // single-thread executor's order broken).
        WorkerPool pool = pool(WorkerPool.builder().name("order-a").capacity(1).queueCapacity(1).spinNanos(0));
        CountDownLatch gate = new CountDownLatch(1);
        pool.execute(() -> hold(gate));
        CountDownLatch atPoint = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        holdOnceAt(pool, WorkerPool.SEARCH_EMPTY_POLL, atPoint, release);
        open(gate);
        hold(atPoint); // the worker found the queue empty and has not looked at waiting callers
        List<String> order = new CopyOnWriteArrayList<>();
        CountDownLatch ran = new CountDownLatch(2);
        Thread caller = start("caller", () -> {
            pool.execute(() -> { order.add("A"); ran.countDown(); });   // queued: the queue has room for one
            pool.execute(() -> { order.add("B"); ran.countDown(); });   // waits for room
        });
        awaitUntil("B waits for room", () -> pool.waiting() == 1);
        open(release);
        assertThat(ran.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        caller.join(TIMEOUT.toMillis());
        assertThat(order).containsExactly("A", "B");
    }

    @Test
    void aCallersTaskIsNotHandedToAWorkerOnItsWayToTheQueue_whileItsQueuedOneWaits() throws Exception {
        // Found by a review: a worker that found the queue empty went idle; the caller queued A
        // (nobody idle yet to wake), then B found the queue full, popped the idle worker and
        // handed B to it, while the worker was on its way back to A: B ran first.
        popsAnIdleWorkerWhileItsQueuedTaskWaits(false);
    }

    @Test
    void aNonblockingPoolWithAnIdleWorker_takesTheTask_andKeepsTheCallersOrder() throws Exception {
        // Review helper-84 of the fix above: sending the popped worker back to the queue left the
        // caller's task no worker and no room, so a nonblocking pool refused it with a worker idle.
        // The worker takes the first queued task instead, and the task goes into the room it frees.
        popsAnIdleWorkerWhileItsQueuedTaskWaits(true);
    }

    private void popsAnIdleWorkerWhileItsQueuedTaskWaits(boolean nonblocking) throws Exception {
        WorkerPool pool = pool(WorkerPool.builder().name("order-b").capacity(1).queueCapacity(1).spinNanos(0)
                .nonblocking(nonblocking));
        CountDownLatch gate = new CountDownLatch(1);
        pool.execute(() -> hold(gate));
        CountDownLatch atPoll = new CountDownLatch(1);
        CountDownLatch releasePoll = new CountDownLatch(1);
        CountDownLatch atIdle = new CountDownLatch(1);
        CountDownLatch releaseIdle = new CountDownLatch(1);
        holdOnceAt(pool, WorkerPool.SEARCH_EMPTY_POLL, atPoll, releasePoll);
        holdOnceAt(pool, WorkerPool.SEARCH_IDLE_PUSHED, atIdle, releaseIdle);
        open(gate);
        hold(atPoll); // found the queue empty: A is queued now, with nobody idle to wake
        List<String> order = new CopyOnWriteArrayList<>();
        CountDownLatch ran = new CountDownLatch(2);
        CountDownLatch queuedA = new CountDownLatch(1);
        CountDownLatch sendB = new CountDownLatch(1);
        AtomicBoolean bReturned = new AtomicBoolean();
        AtomicReference<Throwable> bThrew = new AtomicReference<>();
        Thread caller = start("caller", () -> {
            pool.execute(() -> { order.add("A"); ran.countDown(); });
            open(queuedA);
            hold(sendB);
            try {
                pool.execute(() -> { order.add("B"); ran.countDown(); });
            } catch (Throwable t) {
                bThrew.set(t);
            }
            bReturned.set(true);
        });
        hold(queuedA);
        open(releasePoll);
        hold(atIdle); // on the idle stack, about to look at the queue again
        open(sendB);
        awaitUntil("B handed over, queued or waiting", () -> bReturned.get() || pool.waiting() == 1);
        open(releaseIdle);
        caller.join(TIMEOUT.toMillis());
        assertThat(bThrew.get()).as("B refused").isNull();
        assertThat(ran.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isTrue();
        assertThat(order).containsExactly("A", "B");
    }

    @Test
    void aThreadFactoryBlockingInOnePool_doesNotStopAnotherPoolsExpiry() throws Exception {
        // Review helper-87: the purger's one thread waited for pool A's lock, which A held while its
        // thread factory blocked: idle workers of every pool stopped expiring.
        CountDownLatch inFactory = new CountDownLatch(1);
        CountDownLatch releaseFactory = new CountDownLatch(1);
        CountDownLatch hold = new CountDownLatch(1);
        AtomicInteger made = new AtomicInteger();
        WorkerPool a = pool(WorkerPool.builder().name("blocked-factory").capacity(2).expiry(java.time.Duration.ofMillis(5))
                .threadFactory((r) -> {
                    if (made.incrementAndGet() == 2) {
                        inFactory.countDown();
                        try { // longer than the wait below: the lock stays held until the test lets go
                            releaseFactory.await(60, TimeUnit.SECONDS);
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    }
                    return new Thread(r);
                }));
        WorkerPool b = pool(WorkerPool.builder().name("expiring").capacity(1).expiry(java.time.Duration.ofMillis(50)));
        try {
            a.execute(() -> hold(hold));
            Thread second = start("second-worker", () -> a.execute(() -> { })); // A's factory blocks under A's lock
            hold(inFactory);
            CountDownLatch ran = new CountDownLatch(1);
            b.execute(ran::countDown);
            assertThat(ran.await(TIMEOUT.toSeconds(), TimeUnit.SECONDS)).isTrue();
            // Expiry 50 ms, checked every 25 ms: 5 s is far more than it needs.
            org.awaitility.Awaitility.await("B's worker expired while A's factory blocks").atMost(java.time.Duration.ofSeconds(5))
                .until(() -> b.idle() == 0 && b.running() == 0);
            open(releaseFactory);
            second.join(TIMEOUT.toMillis());
        } finally {
            open(releaseFactory);
            open(hold);
        }
    }

    @Test
    void aThreadFactoryThatReturnsStartedThreads_runsNoTaskOnThem_andIsNamedInTheRefusal() throws Exception {
        // Review helper-87: the started thread ran the worker, and so its first task; start() then
        // threw, the caller got the task back and it ran again, on a worker nobody counted.
        AtomicInteger runs = new AtomicInteger();
        List<Thread> rogue = new CopyOnWriteArrayList<>();
        WorkerPool pool = pool(WorkerPool.builder().name("rogue").capacity(1).threadFactory((r) -> {
            Thread t = new Thread(r);
            t.start();
            rogue.add(t);
            return t;
        }));
        Throwable refused = null;
        try {
            pool.execute(runs::incrementAndGet);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            refused = e;
        }
        assertThat(refused).as("no worker could be made").isNotNull();
        for (Thread t : rogue) {
            t.join(TIMEOUT.toMillis());
            assertThat(t.isAlive()).isFalse();
        }
        assertThat(runs.get()).as("the task ran on a thread the pool does not count").isZero();
        assertThat(pool.running() + pool.idle()).isZero();
    }
}
