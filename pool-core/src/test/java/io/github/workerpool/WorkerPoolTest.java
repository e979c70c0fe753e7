package io.github.workerpool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** One test per rule of WorkerPool's semantics (issue 2). */
class WorkerPoolTest extends PoolTestSupport {

    @Test
    void execute_runsOnWorkerNamedAfterPool() throws Exception {
        WorkerPool pool = pool(WorkerPool.builder().name("mail").capacity(2));
        AtomicReference<String> thread = new AtomicReference<>();
        CountDownLatch done = new CountDownLatch(1);
        pool.execute(() -> {
            thread.set(Thread.currentThread().getName());
            done.countDown();
        });
        assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(thread.get()).isEqualTo("mail-1");
    }

    @Test
    void capacity_isNeverExceeded_underConcurrentSubmitters() throws Exception {
        int capacity = 3;
        WorkerPool pool = pool(WorkerPool.builder().capacity(capacity));
        AtomicInteger now = new AtomicInteger();
        AtomicInteger max = new AtomicInteger();
        int perProducer = 300;
        CountDownLatch done = new CountDownLatch(4 * perProducer);
        List<Thread> producers = new ArrayList<>();
        for (int p = 0; p < 4; p++) {
            producers.add(start("producer-" + p, () -> {
                for (int i = 0; i < perProducer; i++) {
                    pool.execute(() -> {
                        int n = now.incrementAndGet();
                        max.accumulateAndGet(n, Math::max);
                        Thread.onSpinWait();
                        assertThat(pool.running()).isLessThanOrEqualTo(capacity);
                        now.decrementAndGet();
                        done.countDown();
                    });
                }
            }));
        }
        for (Thread t : producers) {
            t.join();
        }
        assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(max.get()).isBetween(1, capacity);
        assertThat(pool.stats().failed()).isZero();
    }

    @Test
    void workers_areStartedOnDemand_andReused() throws Exception {
        WorkerPool pool = pool(WorkerPool.builder().capacity(8));
        assertThat(pool.idle()).isZero();
        assertThat(pool.running()).isZero();
        Set<String> threads = ConcurrentHashMap.newKeySet();
        for (int i = 0; i < 50; i++) {
            pool.submit(() -> threads.add(Thread.currentThread().getName())).get();
            awaitUntil("worker back to idle", () -> pool.idle() == 1);
        }
        // Each task came after the previous worker was idle again, so one worker served them all.
        assertThat(threads).containsExactly("pool-1");
        assertThat(pool.running() + pool.idle()).isEqualTo(1);
        assertThat(pool.stats().completed()).isEqualTo(50);
    }

    @Test
    void idleWorkers_areReusedMostRecentlyUsedFirst() throws Exception {
        WorkerPool pool = pool(WorkerPool.builder().name("lifo").capacity(3).spinNanos(0));
        List<String> lastToFinish = finishThreeWorkersInOrder(pool);
        assertThat(runOnce(pool)).isEqualTo(lastToFinish.get(2));
    }

    @Test
    void preAlloc_reusesLongestIdleWorkerFirst() throws Exception {
        WorkerPool pool = pool(WorkerPool.builder().name("ring").capacity(3).preAlloc(true).spinNanos(0));
        List<String> order = finishThreeWorkersInOrder(pool);
        assertThat(runOnce(pool)).isEqualTo(order.get(0));
        assertThat(runOnce(pool)).isEqualTo(order.get(1));
    }

    @Test
    void platformWorker_keepsItsThreadForGood() throws Exception {
        WorkerPool pool = pool(WorkerPool.builder().capacity(1).queueCapacity(10));
        int n = WorkerPool.FIRST_MOVE_AFTER * WorkerPool.MOVE_GROWTH + 2; // past where a virtual worker moves twice
        Set<Thread> threads = new HashSet<>();
        for (int i = 0; i < n; i++) {
            threads.add(pool.submit(Thread::currentThread).get(10, TimeUnit.SECONDS));
        }
        assertThat(threads).hasSize(1);
    }

    /** Starts three workers, lets them finish one after another, returns their names in that order. */
    private List<String> finishThreeWorkersInOrder(WorkerPool pool) throws Exception {
        List<CountDownLatch> gates = List.of(gate(), gate(), gate());
        List<String> finished = new CopyOnWriteArrayList<>();
        CountDownLatch started = new CountDownLatch(3);
        for (CountDownLatch g : gates) {
            pool.execute(() -> {
                started.countDown();
                hold(g);
                finished.add(Thread.currentThread().getName());
            });
        }
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        for (int i = 0; i < 3; i++) {
            open(gates.get(i));
            int idleNow = i + 1;
            awaitUntil(idleNow + " idle", () -> pool.idleInStructure() == idleNow);
        }
        return finished;
    }

    private static String runOnce(WorkerPool pool) throws Exception {
        return pool.submit(() -> Thread.currentThread().getName()).get(10, TimeUnit.SECONDS);
    }

    @Test
    void full_blockingPool_makesCallerWait_untilAWorkerFrees() throws Exception {
        WorkerPool pool = pool(WorkerPool.builder().capacity(1));
        CountDownLatch gate = gate();
        pool.execute(() -> hold(gate));
        CountDownLatch secondRan = new CountDownLatch(1);
        Thread caller = start("caller", () -> pool.execute(secondRan::countDown));
        awaitUntil("caller waits", () -> pool.waiting() == 1);
        assertThat(caller.isAlive()).isTrue();
        assertThat(secondRan.getCount()).isEqualTo(1);
        open(gate);
        assertThat(secondRan.await(10, TimeUnit.SECONDS)).isTrue();
        caller.join(10_000);
        assertThat(pool.waiting()).isZero();
    }

    @Test
    void waitingCallers_areServedFirstComeFirstServed() throws Exception {
        WorkerPool pool = pool(WorkerPool.builder().capacity(1).spinNanos(0));
        CountDownLatch gate = gate();
        pool.execute(() -> hold(gate));
        List<Integer> order = Collections.synchronizedList(new ArrayList<>());
        List<Thread> callers = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            int id = i;
            callers.add(start("caller-" + i, () -> pool.execute(() -> order.add(id))));
            awaitUntil("caller " + i + " waits", () -> pool.waiting() == id + 1);
        }
        open(gate);
        for (Thread t : callers) {
            t.join(10_000);
        }
        awaitUntil("all ran", () -> order.size() == 5);
        assertThat(order).containsExactly(0, 1, 2, 3, 4);
    }

    @Test
    void nonblocking_fullPool_rejectsAtOnce_namingPoolAndLimit() {
        WorkerPool pool = pool(WorkerPool.builder().name("crawler").capacity(1).nonblocking(true));
        CountDownLatch gate = gate();
        pool.execute(() -> hold(gate));
        awaitUntil("busy", () -> pool.running() == 1);
        assertThatThrownBy(() -> pool.execute(() -> { }))
                .isInstanceOf(PoolOverloadException.class)
                .hasMessageContaining("crawler")
                .hasMessageContaining("nonblocking")
                .satisfies(e -> assertThat(((PoolOverloadException) e).getPoolName()).isEqualTo("crawler"));
        assertThat(pool.stats().rejected()).isEqualTo(1);
    }

    @Test
    void maxBlockingTasks_rejectsCallersBeyondTheLimit() throws Exception {
        WorkerPool pool = pool(WorkerPool.builder().name("m").capacity(1).maxBlockingTasks(1));
        CountDownLatch gate = gate();
        pool.execute(() -> hold(gate));
        CountDownLatch waiterRan = new CountDownLatch(1);
        Thread waiter = start("waiter", () -> pool.execute(waiterRan::countDown));
        awaitUntil("one waits", () -> pool.waiting() == 1);
        assertThatThrownBy(() -> pool.execute(() -> { }))
                .isInstanceOf(PoolOverloadException.class)
                .hasMessageContaining("maxBlockingTasks=1");
        open(gate);
        assertThat(waiterRan.await(10, TimeUnit.SECONDS)).isTrue();
        waiter.join(10_000);
    }

    @Test
    void blockingTimeout_rejectsCallerThatWaitedTooLong() {
        WorkerPool pool = pool(WorkerPool.builder().name("t").capacity(1).blockingTimeout(Duration.ofMillis(50)));
        CountDownLatch gate = gate();
        pool.execute(() -> hold(gate));
        long start = System.nanoTime();
        assertThatThrownBy(() -> pool.execute(() -> { }))
                .isInstanceOf(PoolOverloadException.class)
                .hasMessageContaining("blockingTimeout");
        assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(50));
        assertThat(pool.waiting()).isZero();
    }

    @Test
    void interruptedWaitingCaller_isRejected_andKeepsItsInterruptStatus() throws Exception {
        WorkerPool pool = pool(WorkerPool.builder().capacity(1));
        CountDownLatch gate = gate();
        pool.execute(() -> hold(gate));
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        AtomicReference<Boolean> interrupted = new AtomicReference<>();
        Thread caller = start("caller", () -> {
            try {
                pool.execute(() -> { });
            } catch (Throwable t) {
                thrown.set(t);
                interrupted.set(Thread.currentThread().isInterrupted());
            }
        });
        awaitUntil("caller waits", () -> pool.waiting() == 1);
        caller.interrupt();
        caller.join(10_000);
        assertThat(thrown.get()).isInstanceOf(PoolOverloadException.class).hasMessageContaining("interrupted");
        assertThat(interrupted.get()).isTrue();
        assertThat(pool.waiting()).isZero();
    }

    @Test
    void queue_holdsTasksWhileWorkersAreBusy_andRunsThemInOrder() throws Exception {
        WorkerPool pool = pool(WorkerPool.builder().capacity(1).queueCapacity(2).nonblocking(true));
        CountDownLatch gate = gate();
        List<Integer> order = Collections.synchronizedList(new ArrayList<>());
        pool.execute(() -> hold(gate));
        awaitUntil("busy", () -> pool.running() == 1);
        pool.execute(() -> order.add(1));
        pool.execute(() -> order.add(2));
        assertThat(pool.queued()).isEqualTo(2);
        assertThatThrownBy(() -> pool.execute(() -> order.add(3)))
                .isInstanceOf(PoolOverloadException.class)
                .hasMessageContaining("queue is full");
        open(gate);
        awaitUntil("queue drained", () -> order.size() == 2);
        assertThat(order).containsExactly(1, 2);
        assertThat(pool.queued()).isZero();
    }

    @Test
    void aTaskThatStartsANewWorker_runsBehindTheSameThreadsQueuedTasks() throws Exception {
        // Review helper-95: with tasks queued (here: while the thread factory failed) and room for
        // a worker, the next task started a new worker and ran ahead of them.
        java.util.concurrent.atomic.AtomicBoolean failing = new java.util.concurrent.atomic.AtomicBoolean();
        WorkerPool pool = pool(WorkerPool.builder().capacity(2).queueCapacity(10).disablePurge(true).threadFactory((r) -> {
            if (failing.get()) {
                throw new IllegalStateException("no threads now");
            }
            return new Thread(r);
        }));
        CountDownLatch gate = gate();
        List<Integer> order = Collections.synchronizedList(new ArrayList<>());
        pool.execute(() -> hold(gate));
        awaitUntil("busy", () -> pool.running() == 1);
        failing.set(true);
        for (int i = 1; i <= 3; i++) {
            int n = i;
            pool.execute(() -> order.add(n)); // queued: no second worker could start
        }
        assertThat(pool.queued()).isEqualTo(3);
        failing.set(false);
        pool.execute(() -> order.add(4)); // starts the second worker
        awaitUntil("all ran", () -> order.size() == 4);
        assertThat(order).containsExactly(1, 2, 3, 4);
        open(gate);
    }

    @Test
    void aTaskThatFindsTheQueueFull_withRoomForAWorker_startsOne_nonblockingToo() throws Exception {
        // Review helper-100: the order fix started a worker without a task and then offered this
        // one to the full queue, which refused it: a nonblocking pool with a free worker slot
        // rejected it.
        java.util.concurrent.atomic.AtomicBoolean failing = new java.util.concurrent.atomic.AtomicBoolean();
        WorkerPool pool = pool(WorkerPool.builder().capacity(2).queueCapacity(2).nonblocking(true).disablePurge(true)
                .threadFactory((r) -> {
                    if (failing.get()) {
                        throw new IllegalStateException("no threads now");
                    }
                    return new Thread(r);
                }));
        CountDownLatch gate = gate();
        AtomicInteger ran = new AtomicInteger();
        pool.execute(() -> hold(gate));
        awaitUntil("busy", () -> pool.running() == 1);
        failing.set(true);
        pool.execute(ran::incrementAndGet);
        pool.execute(ran::incrementAndGet);
        assertThat(pool.queued()).isEqualTo(2);
        failing.set(false);
        pool.execute(ran::incrementAndGet); // the queue is full; a second worker may start: it takes this one
        awaitUntil("all ran", () -> ran.get() == 3);
        open(gate);
    }

    @Test
    void queueFull_blockingCaller_waitsForQueueRoom() throws Exception {
        WorkerPool pool = pool(WorkerPool.builder().capacity(1).queueCapacity(1).spinNanos(0));
        CountDownLatch gate = gate();
        CountDownLatch queuedGate = gate();
        pool.execute(() -> hold(gate));
        awaitUntil("busy", () -> pool.running() == 1);
        pool.execute(() -> hold(queuedGate));
        CountDownLatch third = new CountDownLatch(1);
        Thread caller = start("caller", () -> pool.execute(third::countDown));
        awaitUntil("caller waits", () -> pool.waiting() == 1);
        open(gate); // the worker takes the queued task; the waiting caller's task moves into the queue
        awaitUntil("caller admitted", () -> pool.waiting() == 0 && pool.queued() == 1);
        caller.join(10_000);
        open(queuedGate);
        assertThat(third.await(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void queueFull_aCallerThatArrivesLater_waitsBehindOneAlreadyWaiting() throws Exception {
        // A blocking caller of a full queue spins briefly for a slot before it waits, but only
        // while nobody waits: a slot that frees goes to the caller waiting first.
        WorkerPool pool = pool(WorkerPool.builder().capacity(1).queueCapacity(1));
        CountDownLatch gate = gate();
        pool.execute(() -> hold(gate));
        awaitUntil("busy", () -> pool.running() == 1);
        List<String> order = new CopyOnWriteArrayList<>();
        pool.execute(() -> order.add("queued"));
        Thread first = start("first", () -> pool.execute(() -> order.add("first")));
        awaitUntil("first waits", () -> pool.waiting() == 1);
        Thread second = start("second", () -> pool.execute(() -> order.add("second")));
        awaitUntil("second waits", () -> pool.waiting() == 2);
        open(gate);
        awaitUntil("all ran", () -> order.size() == 3);
        assertThat(order).containsExactly("queued", "first", "second");
        first.join(10_000);
        second.join(10_000);
    }

    @Test
    void boundedQueue_holdsExactlyItsCapacity_againstManyProducers() throws Exception {
        // Producers take slots against a count of the tasks workers took that may be stale (it
        // only errs towards full): never more than the capacity is accepted while workers are busy.
        WorkerPool pool = pool(WorkerPool.builder().name("exact").capacity(2).queueCapacity(100).nonblocking(true));
        for (int round = 0; round < 3; round++) {
            CountDownLatch gate = occupy(pool, 2);
            AtomicInteger accepted = new AtomicInteger();
            AtomicInteger rejected = new AtomicInteger();
            CountDownLatch go = new CountDownLatch(1);
            List<Thread> producers = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                producers.add(start("producer-" + t, () -> {
                    hold(go);
                    for (int i = 0; i < 1_000; i++) {
                        try {
                            pool.execute(() -> { });
                            accepted.incrementAndGet();
                        } catch (PoolOverloadException e) {
                            rejected.incrementAndGet();
                        }
                    }
                }));
            }
            open(go);
            for (Thread p : producers) {
                p.join(10_000);
            }
            assertThat(accepted.get()).isEqualTo(100);
            assertThat(rejected.get()).isEqualTo(3_900);
            assertThat(pool.queued()).isEqualTo(100);
            open(gate);
            awaitUntil("drained", () -> pool.queued() == 0 && pool.running() == 0);
        }
        PoolStats s = pool.stats();
        assertThat(s.completed()).isEqualTo(3 * 102L);
        assertThat(s.rejected()).isEqualTo(3 * 3_900L);
    }

    @Test
    void tuneUp_letsWaitingCallersIn_atOnce() throws Exception {
        WorkerPool pool = pool(WorkerPool.builder().capacity(1));
        CountDownLatch gate = gate();
        pool.execute(() -> hold(gate));
        CountDownLatch ran = new CountDownLatch(2);
        Thread a = start("a", () -> pool.execute(ran::countDown));
        Thread b = start("b", () -> pool.execute(ran::countDown));
        awaitUntil("two wait", () -> pool.waiting() == 2);
        pool.tune(3);
        assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue(); // while the first task still holds its worker
        assertThat(pool.capacity()).isEqualTo(3);
        a.join(10_000);
        b.join(10_000);
        assertThat(pool.waiting()).isZero();
    }

    @Test
    void tuneUp_startsWorkersForQueuedTasks() throws Exception {
        WorkerPool pool = pool(WorkerPool.builder().capacity(1).queueCapacity(10));
        CountDownLatch gate = gate();
        pool.execute(() -> hold(gate));
        awaitUntil("busy", () -> pool.running() == 1);
        CountDownLatch ran = new CountDownLatch(3);
        for (int i = 0; i < 3; i++) {
            pool.execute(ran::countDown);
        }
        assertThat(pool.queued()).isEqualTo(3);
        pool.tune(4);
        assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void tuneDown_letsRunningTasksFinish_thenKeepsAtMostTheNewCapacity() throws Exception {
        WorkerPool pool = pool(WorkerPool.builder().capacity(4).spinNanos(0));
        CountDownLatch gate = gate();
        AtomicInteger interrupted = new AtomicInteger();
        CountDownLatch started = new CountDownLatch(4);
        for (int i = 0; i < 4; i++) {
            pool.execute(() -> {
                started.countDown();
                hold(gate);
                if (Thread.currentThread().isInterrupted()) {
                    interrupted.incrementAndGet();
                }
            });
        }
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        pool.tune(2);
        assertThat(pool.capacity()).isEqualTo(2);
        assertThat(pool.running()).isEqualTo(4); // nobody is stopped mid-task
        open(gate);
        awaitUntil("surplus workers retired", () -> pool.running() + pool.idle() <= 2 && pool.running() == 0);
        assertThat(interrupted.get()).isZero();

        AtomicInteger now = new AtomicInteger();
        AtomicInteger max = new AtomicInteger();
        List<Future<?>> futures = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            futures.add(pool.submit(() -> {
                max.accumulateAndGet(now.incrementAndGet(), Math::max);
                Thread.yield();
                now.decrementAndGet();
            }));
        }
        for (Future<?> f : futures) {
            f.get(10, TimeUnit.SECONDS);
        }
        assertThat(max.get()).isBetween(1, 2);
    }

    @Test
    void tuneDown_stopsSurplusIdleWorkersAtOnce() throws Exception {
        WorkerPool pool = pool(WorkerPool.builder().capacity(3).spinNanos(0));
        finishThreeWorkersInOrder(pool);
        pool.tune(1);
        assertThat(pool.idle()).isEqualTo(1);
    }

    @Test
    void tune_invalidCapacity_throws_andChangesNothing() {
        WorkerPool pool = pool(WorkerPool.builder().capacity(5));
        for (int bad : new int[] {0, -2, Integer.MIN_VALUE}) {
            assertThatThrownBy(() -> pool.tune(bad))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("capacity")
                    .hasMessageContaining(String.valueOf(bad));
            assertThat(pool.capacity()).isEqualTo(5);
        }
    }

    @Test
    void tune_minusOne_makesPoolUnbounded() throws Exception {
        WorkerPool pool = pool(WorkerPool.builder().capacity(1));
        pool.tune(-1);
        assertThat(pool.capacity()).isEqualTo(-1);
        assertThat(pool.free()).isEqualTo(-1);
        CountDownLatch gate = gate();
        CountDownLatch started = new CountDownLatch(20);
        for (int i = 0; i < 20; i++) {
            pool.execute(() -> {
                started.countDown();
                hold(gate);
            });
        }
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(pool.running()).isEqualTo(20);
    }

    @Test
    void tune_onPreAllocPool_isIllegalState_sayingWhy() {
        WorkerPool pool = pool(WorkerPool.builder().capacity(2).preAlloc(true));
        assertThatThrownBy(() -> pool.tune(4))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("preAlloc");
        // Found by a review: to its own capacity, tune said nothing.
        assertThatThrownBy(() -> pool.tune(2))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("preAlloc");
        assertThat(pool.capacity()).isEqualTo(2);
    }

    @Test
    void purge_stopsEveryIdleWorker_andLeavesRunningTasksAlone() throws Exception {
        WorkerPool pool = pool(WorkerPool.builder().capacity(4));
        List<String> names = finishThreeWorkersInOrder(pool);
        CountDownLatch gate = gate();
        CountDownLatch busy = new CountDownLatch(1);
        AtomicReference<Boolean> interrupted = new AtomicReference<>();
        pool.execute(() -> {
            busy.countDown();
            hold(gate);
            interrupted.set(Thread.currentThread().isInterrupted());
        });
        assertThat(busy.await(10, TimeUnit.SECONDS)).isTrue();
        awaitUntil("one running", () -> pool.running() == 1);
        int idleBefore = pool.idle();
        assertThat(pool.purge()).isEqualTo(idleBefore);
        assertThat(pool.idle()).isZero();
        assertThat(pool.running()).isEqualTo(1);
        awaitUntil("purged threads exit", () -> pool.workerThreads().size() == 1);
        open(gate);
        awaitUntil("task finished", () -> interrupted.get() != null);
        assertThat(interrupted.get()).isFalse();
        assertThat(names).hasSize(3);
    }

    /**
     * Found by a review: a queue-mode worker that has just run out of tasks spins on the queue
     * (a searcher) before it parks; purge() could not take it, and it then parked as idle for
     * good. It now leaves as it parks.
     */
    @Test
    void purge_stopsAQueueWorkerStillSearching_whenItStopsSearching() throws Exception {
        // A spin long enough that the purge surely meets the worker searching (spinNanos / 5: 2 s,
        // and the test waits that long only with the fix; without it, for ever).
        WorkerPool pool = pool(WorkerPool.builder().capacity(2).queueCapacity(10)
                .spinNanos(TimeUnit.SECONDS.toNanos(10)));
        CountDownLatch ran = new CountDownLatch(1);
        pool.execute(ran::countDown);
        assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
        awaitUntil("the worker searches", () -> pool.running() == 0 && pool.idle() == 1);
        assertThat(pool.idleInStructure()).isZero();

        assertThat(pool.purge()).isZero(); // nothing parked to stop yet

        await().atMost(Duration.ofSeconds(20)).alias("the searcher leaves instead of parking")
                .until(() -> pool.workerThreads().isEmpty());
        assertThat(pool.idle()).isZero();
        assertThat(pool.idleInStructure()).isZero();
        // Workers start again on demand.
        CountDownLatch again = new CountDownLatch(1);
        pool.execute(again::countDown);
        assertThat(again.await(10, TimeUnit.SECONDS)).isTrue();
    }

    /** A worker busy when purge() is called is not purged when it goes idle later. */
    @Test
    void purge_leavesAWorkerThatWasRunning_idleAfterwards() throws Exception {
        WorkerPool pool = pool(WorkerPool.builder().capacity(2).queueCapacity(10).spinNanos(0));
        CountDownLatch gate = gate();
        CountDownLatch busy = new CountDownLatch(1);
        pool.execute(() -> {
            busy.countDown();
            hold(gate);
        });
        assertThat(busy.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(pool.purge()).isZero();
        open(gate);
        awaitUntil("the worker parks idle", () -> pool.idleInStructure() == 1);
        assertThat(pool.workerThreads()).hasSize(1);
    }

    @Test
    void expiry_stopsWorkersIdleLongerThanIt_oldestFirst() throws Exception {
        AtomicLong clock = new AtomicLong(1_000);
        // No shared purger: it reads the same manual clock and could expire them between our looks.
        WorkerPool pool = pool(WorkerPool.builder().capacity(3).spinNanos(0).disablePurge(true)
                .expiry(Duration.ofSeconds(10)).clock(clock::get));
        CountDownLatch gate = gate();
        CountDownLatch started = new CountDownLatch(2);
        for (int i = 0; i < 2; i++) {
            pool.execute(() -> {
                started.countDown();
                hold(gate);
            });
        }
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        open(gate);
        awaitUntil("two idle", () -> pool.idleInStructure() == 2);
        clock.addAndGet(TimeUnit.SECONDS.toNanos(5));
        assertThat(pool.purgeExpired()).isZero();
        clock.addAndGet(TimeUnit.SECONDS.toNanos(5));
        assertThat(pool.purgeExpired()).isEqualTo(2);
        assertThat(pool.idle()).isZero();
        awaitUntil("expired threads exit", () -> pool.workerThreads().isEmpty());
    }

    @Test
    void expiry_neverTouchesBusyWorkers() throws Exception {
        AtomicLong clock = new AtomicLong();
        WorkerPool pool = pool(WorkerPool.builder().capacity(2).spinNanos(0).disablePurge(true)
                .expiry(Duration.ofMillis(1)).clock(clock::get));
        CountDownLatch gate = gate();
        CountDownLatch started = new CountDownLatch(1);
        pool.execute(() -> {
            started.countDown();
            hold(gate);
        });
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        clock.addAndGet(TimeUnit.HOURS.toNanos(1));
        assertThat(pool.purgeExpired()).isZero();
        assertThat(pool.running()).isEqualTo(1);
    }

    @Test
    void expiry_withTheRealPurger_stopsIdleWorkers() {
        WorkerPool pool = pool(WorkerPool.builder().capacity(2).expiry(Duration.ofMillis(20)));
        pool.execute(() -> { });
        awaitUntil("worker expired", () -> pool.workerThreads().isEmpty() && pool.idle() == 0);
    }

    @Test
    void disablePurge_idleWorkersNeverExpire() throws Exception {
        WorkerPool pool = pool(WorkerPool.builder().capacity(2).disablePurge(true).expiry(Duration.ofMillis(1)));
        assertThat(pool.hasPurgeSchedule()).isFalse();
        WorkerPool purged = pool(WorkerPool.builder().capacity(2).expiry(Duration.ofMillis(1)));
        assertThat(purged.hasPurgeSchedule()).isTrue();
    }

    @Test
    void panic_fromExecute_goesToHandler_andWorkerLivesOn() throws Exception {
        List<Throwable> panics = new CopyOnWriteArrayList<>();
        WorkerPool pool = pool(WorkerPool.builder().capacity(1).panicHandler(panics::add));
        RuntimeException boom = new IllegalStateException("boom");
        pool.execute(() -> {
            throw boom;
        });
        awaitUntil("handler called", () -> panics.size() == 1);
        assertThat(panics).containsExactly(boom);
        String first = runOnce(pool);
        assertThat(first).isEqualTo(runOnce(pool)); // the same worker, still alive
        // A future completes inside run(); the worker counts the task just after, so wait for quiet.
        awaitUntil("second task counted", () -> pool.stats().completed() == 2);
        assertThat(pool.stats().failed()).isEqualTo(1);
    }

    @Test
    void panic_errorsToo_stackOverflowDoesNotKillTheWorker() throws Exception {
        List<Throwable> panics = new CopyOnWriteArrayList<>();
        WorkerPool pool = pool(WorkerPool.builder().capacity(1).panicHandler(panics::add));
        pool.execute(WorkerPoolTest::recurse);
        awaitUntil("handler called", () -> panics.size() == 1);
        assertThat(panics.get(0)).isInstanceOf(StackOverflowError.class);
        assertThat(runOnce(pool)).isNotNull();
    }

    private static void recurse() {
        recurse();
    }

    @Test
    void panicHandlerThatThrows_doesNotKillTheWorker() throws Exception {
        WorkerPool pool = pool(WorkerPool.builder().capacity(1).panicHandler(t -> {
            throw new IllegalStateException("handler broke");
        }));
        pool.execute(() -> {
            throw new RuntimeException("task broke");
        });
        awaitUntil("failed counted", () -> pool.stats().failed() == 1);
        assertThat(runOnce(pool)).isNotNull();
    }

    @Test
    void panicHandlerThatRethrowsTheTasksException_doesNotKillTheWorker_andTheTaskCountsAsFailed() throws Exception {
        // Found by a review: addSuppressed(itself) threw past the worker's catch, so the worker
        // died and the task counted as neither completed nor failed.
        WorkerPool pool = pool(WorkerPool.builder().capacity(1).panicHandler(t -> {
            throw (RuntimeException) t;
        }));
        pool.execute(() -> {
            throw new IllegalStateException("task broke");
        });
        awaitUntil("failed counted", () -> pool.stats().failed() == 1);
        assertThat(runOnce(pool)).isNotNull();
    }

    @Test
    void aListenerWhoseToStringThrows_losesNoTask() throws Exception {
        // Found by a review: the warning about the listener's failure was built from its
        // toString(), which threw past the worker's catch: the task never ran, the worker died.
        PoolListener broken = new PoolListener() {
            @Override
            public void taskStarted(Pool p, long queuedNanos) {
                throw new IllegalStateException("listener broke");
            }

            @Override
            public String toString() {
                throw new IllegalStateException("toString broke");
            }
        };
        WorkerPool pool = pool(WorkerPool.builder().capacity(1).listener(broken));
        CountDownLatch ran = new CountDownLatch(1);
        pool.execute(ran::countDown);
        assertThat(ran.await(5, TimeUnit.SECONDS)).as("the task ran").isTrue();
        awaitUntil("completed counted", () -> pool.stats().completed() == 1);
    }

    @Test
    void aLogThatThrows_losesNoTaskAndNoWorker() throws Exception {
        // Review helper-147: the warnings in the pool's catch blocks were not guarded, and a log
        // handler that throws (Log4j2 with ignoreExceptions=false on a full disk) threw past them:
        // a failed task counted nowhere and its worker died; a listener's failure dropped the task.
        java.util.logging.Logger jul = java.util.logging.Logger.getLogger(WorkerPool.class.getName());
        java.util.logging.Handler throwing = new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord record) {
                throw new IllegalStateException("the log is down");
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        jul.addHandler(throwing);
        try {
            WorkerPool pool = pool(WorkerPool.builder().capacity(1));
            pool.execute(() -> {
                throw new IllegalStateException("task broke"); // the default panic handler logs it
            });
            awaitUntil("failed counted", () -> pool.stats().failed() == 1);
            String first = runOnce(pool);
            assertThat(runOnce(pool)).as("the same worker, still alive").isEqualTo(first);

            WorkerPool listened = pool(WorkerPool.builder().capacity(1).listener(new PoolListener() {
                @Override
                public void taskStarted(Pool p, long queuedNanos) {
                    throw new IllegalStateException("listener broke"); // its warning is logged
                }
            }));
            CountDownLatch ran = new CountDownLatch(1);
            listened.execute(ran::countDown);
            assertThat(ran.await(5, TimeUnit.SECONDS)).as("the task ran").isTrue();
            awaitUntil("completed counted", () -> listened.stats().completed() == 1);
        } finally {
            jul.removeHandler(throwing);
        }
    }

    @Test
    void awaitTerminationForMinusAges_returnsAtOnce() throws Exception {
        WorkerPool pool = pool(WorkerPool.builder().capacity(1));
        CompletableFuture<Boolean> waited = CompletableFuture.supplyAsync(() -> {
            try {
                return pool.awaitTermination(Duration.ofMillis(Long.MIN_VALUE));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        assertThat(waited.get(5, TimeUnit.SECONDS)).isFalse();
    }

    @Test
    void submit_failure_isCarriedByTheFuture_notThePanicHandler() throws Exception {
        List<Throwable> panics = new CopyOnWriteArrayList<>();
        WorkerPool pool = pool(WorkerPool.builder().capacity(1).panicHandler(panics::add));
        Future<Object> f = pool.submit(() -> {
            throw new java.io.IOException("disk");
        });
        assertThatThrownBy(() -> f.get(10, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(java.io.IOException.class);
        awaitUntil("failed counted", () -> pool.stats().failed() == 1);
        assertThat(panics).isEmpty();
    }

    @Test
    void futureCancelledBeforeStart_isCountedCancelled_andNeverRuns() throws Exception {
        WorkerPool pool = pool(WorkerPool.builder().capacity(1).queueCapacity(5));
        CountDownLatch gate = gate();
        pool.execute(() -> hold(gate));
        awaitUntil("busy", () -> pool.running() == 1);
        AtomicInteger ran = new AtomicInteger();
        Future<?> f = pool.submit(ran::incrementAndGet);
        assertThat(f.cancel(false)).isTrue();
        open(gate);
        awaitUntil("cancelled counted", () -> pool.stats().cancelled() == 1);
        assertThat(ran.get()).isZero();
    }

    @Test
    void aDecoratorsWrapperThatThrowsBeforeTheTask_endsTheTasksFutureWithItsFailure() throws Exception {
        // Review helper-98: the future was never run, so get() waited for ever (a wrapper reading
        // a request's context off a request thread, say).
        IllegalStateException noContext = new IllegalStateException("no request context here");
        WorkerPool pool = pool(WorkerPool.builder().capacity(1).panicHandler((t) -> { }).taskDecorator((task) -> () -> {
            throw noContext;
        }));
        Future<Integer> future = pool.submit(() -> 1);
        assertThatThrownBy(() -> future.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .hasCause(noContext);
        awaitUntil("counted as failed", () -> pool.stats().failed() == 1);
        assertThat(pool.stats().completed()).isZero();
    }

    @Test
    void aDecoratorsWrapperThatThrowsBeforeTheTask_failsAnInvokeAny_insteadOfLeavingItWaiting() throws Exception {
        // Review helper-170: invokeAny's own wrapper was no future the pool could see into, so it
        // never ended: the untimed call waited for ever, a timed one threw TimeoutException.
        IllegalStateException noContext = new IllegalStateException("no request context here");
        AtomicInteger wrapped = new AtomicInteger();
        java.util.concurrent.atomic.AtomicBoolean allThrow = new java.util.concurrent.atomic.AtomicBoolean();
        WorkerPool pool = pool(WorkerPool.builder().capacity(1).panicHandler((t) -> { }).taskDecorator((task) -> () -> {
            if (wrapped.incrementAndGet() == 1 || allThrow.get()) {
                throw noContext; // the first task's: the call goes on to the next
            }
            task.run();
        }));
        ExecutorService caller = Executors.newSingleThreadExecutor();
        try {
            Future<String> any = caller.submit(() -> pool.invokeAny(List.of(() -> "first", () -> "second")));
            assertThat(any.get(10, TimeUnit.SECONDS)).isEqualTo("second");
            allThrow.set(true);
            Future<String> none = caller.submit(() -> pool.invokeAny(List.of(() -> "x")));
            assertThatThrownBy(() -> none.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .cause().isInstanceOf(ExecutionException.class).hasCause(noContext);
        } finally {
            caller.shutdownNow();
        }
    }

    @Test
    void aThreadWhoseStartThrowsAfterStartingIt_runsItsTaskOnce() throws Exception {
        // Review helper-170: start() threw after the thread had started (a factory's Thread that
        // registers itself after super.start(), say); the pool took that as "not started" and gave
        // the task to another worker, while the thread ran it too: run twice, counts off by one.
        List<Thread> made = new CopyOnWriteArrayList<>();
        java.util.concurrent.ThreadFactory factory = (r) -> {
            Thread t = made.isEmpty() ? startsThenThrows(r) : new Thread(r);
            made.add(t);
            return t;
        };
        WorkerPool pool = WorkerPool.builder().name(Invariants.uniqueName("start")).capacity(2)
            .threadFactory(factory).build();
        AtomicInteger runs = new AtomicInteger();
        pool.execute(runs::incrementAndGet);
        pool.shutdown();
        assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        for (Thread t : made) {
            t.join(10_000);
        }
        assertThat(runs).hasValue(1);
        PoolStats s = pool.stats();
        assertThat(s.completed()).as(s.toString()).isEqualTo(s.submitted());
    }

    @Test
    void aThreadWhoseStartThrowsAndThatRunsOnlyAfterwards_isNoWorker_soTheCapacityHolds() throws Exception {
        // Review helper-173: the starter took the throw as "not started" and freed the slot, and
        // the thread, running after all, worked as an uncounted extra worker: two tasks at once
        // on a pool of capacity 1.
        CountDownLatch caught = new CountDownLatch(1);
        List<Thread> made = new CopyOnWriteArrayList<>();
        java.util.concurrent.ThreadFactory factory = (r) -> {
            if (made.size() == 1) {
                caught.countDown(); // the pool asks for another: it has taken the throw as "not started"
            }
            Thread t = made.isEmpty() ? startsThenThrows(() -> {
                Latches.pass(caught); // runs only once the pool dealt with the throw
                r.run();
            }) : new Thread(r);
            made.add(t);
            return t;
        };
        WorkerPool pool = WorkerPool.builder().name(Invariants.uniqueName("ghost")).capacity(1).queueCapacity(10)
            .threadFactory(factory).build();
        AtomicInteger now = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        CountDownLatch gate = new CountDownLatch(1);
        Runnable task = () -> {
            most.accumulateAndGet(now.incrementAndGet(), Math::max);
            Latches.pass(gate);
            now.decrementAndGet();
        };
        pool.execute(task);
        pool.execute(task);
        made.get(0).join(10_000); // the thread that started after all has returned
        assertThat(made.get(0).isAlive()).isFalse();
        gate.countDown();
        pool.shutdown();
        assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        assertThat(most).as("tasks at once on a pool of capacity 1").hasValue(1);
        assertThat(pool.stats().completed()).isEqualTo(2);
    }

    @Test
    void taskDecorator_wrapsOnTheSubmittingThread() throws Exception {
        ThreadLocal<String> context = new ThreadLocal<>();
        WorkerPool pool = pool(WorkerPool.builder().capacity(1).taskDecorator(task -> {
            String captured = context.get();
            return () -> {
                context.set(captured);
                try {
                    task.run();
                } finally {
                    context.remove();
                }
            };
        }));
        context.set("request-42");
        try {
            assertThat(pool.submit(context::get).get(10, TimeUnit.SECONDS)).isEqualTo("request-42");
        } finally {
            context.remove();
        }
        Future<Object> failing = pool.submit(() -> {
            throw new IllegalStateException("x");
        });
        assertThatThrownBy(() -> failing.get(10, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class);
        awaitUntil("failure counted through the decorator", () -> pool.stats().failed() == 1);
    }

    @Test
    void unboundedPool_startsAWorkerPerConcurrentTask() throws Exception {
        WorkerPool pool = pool(WorkerPool.builder().capacity(-1));
        CountDownLatch gate = gate();
        CountDownLatch started = new CountDownLatch(30);
        Set<String> names = ConcurrentHashMap.newKeySet();
        for (int i = 0; i < 30; i++) {
            pool.execute(() -> {
                names.add(Thread.currentThread().getName());
                started.countDown();
                hold(gate);
            });
        }
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(names).hasSize(30);
        assertThat(pool.free()).isEqualTo(-1);
    }

    /**
     * An unbounded queue counts nothing on the submitting path: a queued task is counted as
     * submitted by being in the queue, then by the worker that polls it, and, if shutdownNow
     * returns it, by the drain. The totals must add up at every step.
     */
    @Test
    void unboundedQueue_countsQueuedTasksAsSubmitted() throws Exception {
        WorkerPool pool = pool(WorkerPool.builder().name("unbounded").capacity(2).queueCapacity(Integer.MAX_VALUE));
        CountDownLatch gate = occupy(pool, 2);
        for (int i = 0; i < 5; i++) {
            pool.execute(() -> { });
        }
        PoolStats s = pool.stats();
        assertThat(s.queued()).isEqualTo(5);
        assertThat(s.submitted()).isEqualTo(7);
        open(gate);
        awaitUntil("quiet", () -> pool.running() == 0 && pool.queued() == 0);
        s = pool.stats();
        assertThat(s.submitted()).isEqualTo(7);
        assertThat(s.completed()).isEqualTo(7);

        occupy(pool, 2);
        for (int i = 0; i < 3; i++) {
            pool.execute(() -> { });
        }
        assertThat(pool.shutdownNow()).hasSize(3);
        assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        assertThatThrownBy(() -> pool.execute(() -> { })).isInstanceOf(PoolClosedException.class);
        s = pool.stats();
        assertThat(s.submitted()).isEqualTo(13);
        assertThat(s.queued()).isZero();
        assertThat(s.cancelled()).isEqualTo(3);
        assertThat(s.rejected()).isEqualTo(1);
        assertThat(s.completed() + s.failed()).isEqualTo(9);
    }

    @Test
    void unboundedQueue_submittedNeverGoesDown_whileWorkersDrainIt() throws Exception {
        // stats() reads an unbounded queue's counts (offers, polls) while workers take tasks out:
        // read in the wrong order, a task taken meanwhile is in neither, and the total dips mid-drain.
        WorkerPool pool = pool(WorkerPool.builder().name("drain").capacity(2).queueCapacity(Integer.MAX_VALUE));
        CountDownLatch gate = occupy(pool, 2);
        int tasks = 300_000;
        for (int i = 0; i < tasks; i++) {
            pool.execute(() -> { });
        }
        long expected = tasks + 2;
        assertThat(pool.stats().submitted()).isEqualTo(expected);
        open(gate);
        long lowest = expected;
        int samples = 0;
        for (PoolStats s; (s = pool.stats()).queued() > 0; samples++) {
            lowest = Math.min(lowest, s.submitted());
        }
        assertThat(lowest).as("lowest of %d totals taken while the queue drained", samples).isEqualTo(expected);
        awaitUntil("quiet", () -> pool.running() == 0);
        assertThat(pool.stats().submitted()).isEqualTo(expected);
        assertThat(pool.stats().completed()).isEqualTo(expected);
    }

    @Test
    void unboundedQueue_countsTheOffersOfMoreThreadsThanItHasCells_andOfThreadsThatEnded() throws Exception {
        // Each submitting thread counts its offers in a cell of its own (OfferCounts); 100 threads
        // are more than the 64 cells, so some share the fallback counter, and the threads end
        // one after another, so later ones take over ended threads' cells, counts and all.
        WorkerPool pool = pool(WorkerPool.builder().name("cells").capacity(2).queueCapacity(Integer.MAX_VALUE));
        CountDownLatch gate = occupy(pool, 2);
        int threads = 100;
        int each = 1_000;
        List<Thread> producers = new ArrayList<>();
        CountDownLatch go = new CountDownLatch(1);
        for (int t = 0; t < threads; t++) {
            Thread p = new Thread(() -> {
                hold(go);
                for (int i = 0; i < each; i++) {
                    pool.execute(() -> { });
                }
            });
            producers.add(p);
            p.start();
            if (t % 10 == 9) {
                open(go); // later threads start while earlier ones run or have ended
            }
        }
        joinAll(producers, 30);
        // A second wave after the first ended: its threads reclaim the ended threads' cells.
        Thread late = new Thread(() -> {
            for (int i = 0; i < each; i++) {
                pool.execute(() -> { });
            }
        });
        late.start();
        late.join(TimeUnit.SECONDS.toMillis(30));
        int queued = (threads + 1) * each;
        assertThat(pool.queued()).isEqualTo(queued);
        PoolStats s = pool.stats();
        assertThat(s.queued()).isEqualTo(queued);
        assertThat(s.submitted()).isEqualTo(queued + 2L);
        open(gate);
        awaitUntil("quiet", () -> pool.running() == 0 && pool.queued() == 0);
        s = pool.stats();
        assertThat(s.queued()).isZero();
        assertThat(s.submitted()).isEqualTo(queued + 2L);
        assertThat(s.completed()).isEqualTo(queued + 2L);
    }

    @Test
    void levels_describeThePool() throws Exception {
        WorkerPool pool = pool(WorkerPool.builder().name("levels").capacity(4).queueCapacity(3).spinNanos(0));
        CountDownLatch gate = gate();
        CountDownLatch started = new CountDownLatch(4);
        for (int i = 0; i < 4; i++) {
            pool.execute(() -> {
                started.countDown();
                hold(gate);
            });
        }
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        pool.execute(() -> { });
        PoolStats s = pool.stats();
        assertThat(s.name()).isEqualTo("levels");
        assertThat(s.capacity()).isEqualTo(4);
        assertThat(s.running()).isEqualTo(4);
        assertThat(s.free()).isZero();
        assertThat(s.queued()).isEqualTo(1);
        assertThat(s.submitted()).isEqualTo(5);
        assertThat(pool.toString()).contains("levels", "RUNNING", "capacity=4", "running=4", "queued=1");
        open(gate);
        awaitUntil("quiet", () -> pool.running() == 0 && pool.queued() == 0);
        s = pool.stats();
        assertThat(s.completed()).isEqualTo(5);
        assertThat(s.idle()).isEqualTo(4);
        assertThat(s.free()).isEqualTo(4);
    }

    @Test
    void config_reportsTheOptions() {
        WorkerPool pool = pool(WorkerPool.builder().name("cfg").capacity(7).queueCapacity(3).nonblocking(true)
                .maxBlockingTasks(2).blockingTimeout(Duration.ofSeconds(1)).expiry(Duration.ofSeconds(5)));
        PoolConfig c = pool.config();
        assertThat(c.name()).isEqualTo("cfg");
        assertThat(c.capacity()).isEqualTo(7);
        assertThat(c.queueCapacity()).isEqualTo(3);
        assertThat(c.nonblocking()).isTrue();
        assertThat(c.maxBlockingTasks()).isEqualTo(2);
        assertThat(c.blockingTimeout()).isEqualTo(Duration.ofSeconds(1));
        assertThat(c.expiry()).isEqualTo(Duration.ofSeconds(5));
        pool.tune(9);
        assertThat(pool.config().capacity()).isEqualTo(9);
    }
}
