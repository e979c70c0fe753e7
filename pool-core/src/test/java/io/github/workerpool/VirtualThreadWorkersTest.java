package io.github.workerpool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Virtual-thread workers. Skipped below Java 21, unless the build sets
 * {@code -Dworkerpool.requireVirtualThreads=true} (CI does on its newest JDK), in which case a
 * JVM without virtual threads fails the suite instead of silently skipping it.
 */
class VirtualThreadWorkersTest extends PoolTestSupport {

    @BeforeEach
    void needsVirtualThreads() {
        boolean required = Boolean.getBoolean("workerpool.requireVirtualThreads");
        boolean supported = Threads.virtualThreadsSupported();
        if (required) {
            assertThat(supported).as("virtual threads required on Java " + Runtime.version()).isTrue();
        }
        assumeTrue(supported, "virtual threads need Java 21+");
    }

    @Test
    void virtualWorkers_runTasksOnVirtualThreadsNamedAfterThePool() throws Exception {
        WorkerPool pool = pool(WorkerPool.builder().name("crawler").capacity(4).virtualThreads(true));
        Thread t = pool.submit(Thread::currentThread).get(10, TimeUnit.SECONDS);
        assertThat(Threads.isVirtual(t)).isTrue();
        assertThat(t.getName()).isEqualTo("crawler-1");
        assertThat(pool.config().virtualThreads()).isTrue();
    }

    @Test
    void aThreadFactoryOfVirtualThreads_makesWorkersThatParkAtOnce_asVirtualWorkersDo() throws Exception {
        // Review helper-65: a factory of virtual threads passed to threadFactory(...) got the
        // platform workers' spin before parking, which holds a carrier other virtual threads need.
        WorkerPool pool = pool(WorkerPool.builder().capacity(2).threadFactory(Threads.virtualUnnamed()));
        assertThat(pool.spinNanos).as("before any worker").isEqualTo(WorkerPool.DEFAULT_SPIN_NANOS);
        Thread t = pool.submit(Thread::currentThread).get(10, TimeUnit.SECONDS);
        assertThat(Threads.isVirtual(t)).isTrue();
        assertThat(pool.spinNanos).isZero();
        assertThat(pool.spinnerNanos).isZero();
        // A platform factory keeps the spin.
        WorkerPool platform = pool(WorkerPool.builder().capacity(2).threadFactory(Thread::new));
        platform.submit(() -> null).get(10, TimeUnit.SECONDS);
        assertThat(platform.spinNanos).isEqualTo(WorkerPool.DEFAULT_SPIN_NANOS);
    }

    @Test
    void virtualWorkers_keepCapacity_andAreReused() throws Exception {
        assertIdleWorkersAreReused(pool(WorkerPool.builder().capacity(100).virtualThreads(true)), 100);
    }

    @Test
    void virtualWorkers_handOff_manyProducers_runEveryTask_neverAboveCapacity() throws Exception {
        int capacity = 8;
        int producers = 4;
        int perProducer = 20_000;
        WorkerPool pool = pool(WorkerPool.builder().capacity(capacity).virtualThreads(true));
        AtomicInteger active = new AtomicInteger();
        AtomicInteger maxActive = new AtomicInteger();
        LongAdder ran = new LongAdder();
        Runnable task = () -> {
            int now = active.incrementAndGet();
            maxActive.accumulateAndGet(now, Math::max);
            ran.increment();
            active.decrementAndGet();
        };
        submitFromThreads(pool, producers, perProducer, task);
        awaitUntil("every task ran", () -> ran.sum() == (long) producers * perProducer);
        assertThat(maxActive.get()).isLessThanOrEqualTo(capacity);
        // The last worker counts its task after run() returns: wait for it.
        awaitUntil("every task counted", () -> pool.stats().completed() == (long) producers * perProducer);
    }

    @Test
    void virtualWorkers_queueMode_stayIdleForTheNextTasks() throws Exception {
        assertIdleWorkersAreReused(pool(WorkerPool.builder().capacity(4).queueCapacity(100).virtualThreads(true)
                .expiry(Duration.ofMinutes(1))), 4);
    }

    @Test
    void virtualWorker_movesToAFreshThreadAfter16Then128Tasks_keepingItsName() throws Exception {
        WorkerPool pool = pool(WorkerPool.builder().name("mover").capacity(1).virtualThreads(true));
        int first = WorkerPool.FIRST_MOVE_AFTER;
        int second = first * WorkerPool.MOVE_GROWTH;
        List<Thread> ran = new ArrayList<>();
        for (int i = 0; i < first + second + 1; i++) {
            ran.add(pool.submit(Thread::currentThread).get(10, TimeUnit.SECONDS));
        }
        Thread a = ran.get(0);
        Thread b = ran.get(first);
        Thread c = ran.get(first + second);
        assertThat(ran.subList(0, first)).as("the first thread's tasks").containsOnly(a);
        assertThat(ran.subList(first, first + second)).as("the second thread's tasks").containsOnly(b);
        assertThat(b).isNotSameAs(a);
        assertThat(c).isNotSameAs(b);
        assertThat(List.of(a, b, c)).extracting(Thread::getName).containsOnly("mover-1");
        assertThat(Threads.isVirtual(b)).isTrue();
        awaitUntil("the old threads end", () -> !a.isAlive() && !b.isAlive());
        assertThat(pool.workerThreads()).containsExactly(c);
        awaitUntil("every task counted", () -> pool.stats().completed() == first + second + 1);
        assertThat(pool.running() + pool.idle()).isEqualTo(1);
        // The moves took no numbers: the pool's second worker is mover-2.
        pool.tune(2);
        CountDownLatch gate = occupy(pool, 2);
        assertThat(pool.workerThreads()).extracting(Thread::getName).containsExactlyInAnyOrder("mover-1", "mover-2");
        open(gate);
    }

    @Test
    void virtualWorker_thatMoved_isInterruptedByShutdownNow() throws Exception {
        WorkerPool pool = pool(WorkerPool.builder().capacity(1).virtualThreads(true));
        Thread first = null;
        for (int i = 0; i < WorkerPool.FIRST_MOVE_AFTER; i++) {
            first = pool.submit(Thread::currentThread).get(10, TimeUnit.SECONDS);
        }
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch interrupted = new CountDownLatch(1);
        List<Thread> mover = new ArrayList<>();
        pool.execute(() -> {
            mover.add(Thread.currentThread());
            started.countDown();
            try {
                Thread.sleep(TIMEOUT.toMillis());
            } catch (InterruptedException e) {
                interrupted.countDown();
            }
        });
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(mover.get(0)).as("the task runs on the worker's new thread").isNotSameAs(first);
        pool.shutdownNow();
        assertThat(interrupted.await(10, TimeUnit.SECONDS)).as("the moved task saw shutdownNow's interrupt").isTrue();
    }

    @Test
    void virtualWorker_whoseNewThreadCannotBeMade_carriesOnWhereItIs() throws Exception {
        ThreadFactory virtual = Threads.virtual("stuck");
        AtomicInteger made = new AtomicInteger();
        ThreadFactory onlyOne = r -> {
            if (made.incrementAndGet() > 1) {
                throw new IllegalStateException("no more threads");
            }
            return virtual.newThread(r);
        };
        WorkerPool.Settings s = WorkerPool.builder().name("stuck").capacity(1).virtualThreads(true).settings();
        WorkerPool pool = track(new WorkerPool(new WorkerPool.Settings(s.config(), onlyOne, s.panicHandler(),
                s.taskDecorator(), s.listeners(), s.spinNanos(), s.clock()), null, null));
        int n = WorkerPool.FIRST_MOVE_AFTER * WorkerPool.MOVE_GROWTH * 2;
        List<Thread> ran = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            ran.add(pool.submit(Thread::currentThread).get(10, TimeUnit.SECONDS));
        }
        assertThat(ran).containsOnly(ran.get(0));
        assertThat(made.get()).as("asked once for the worker, once for its move, then never again").isEqualTo(2);
        awaitUntil("every task counted", () -> pool.stats().completed() == n);
    }

    @Test
    void virtualWorker_whoseNewThreadsStartThrowsAfterStartingIt_runsTheTaskOnce() throws Exception {
        // Review helper-170: the move took a start() that threw as "not moved" and ran the task on
        // the old thread, while the new one, started after all, ran it too.
        ThreadFactory virtual = Threads.virtual("twice");
        AtomicInteger made = new AtomicInteger();
        ThreadFactory startThrows = r -> made.incrementAndGet() == 2 ? startsThenThrows(r) : virtual.newThread(r);
        WorkerPool.Settings s = WorkerPool.builder().name("twice").capacity(1).virtualThreads(true).settings();
        WorkerPool pool = track(new WorkerPool(new WorkerPool.Settings(s.config(), startThrows, s.panicHandler(),
                s.taskDecorator(), s.listeners(), s.spinNanos(), s.clock()), null, null));
        int n = WorkerPool.FIRST_MOVE_AFTER * 4;
        AtomicInteger runs = new AtomicInteger();
        for (int i = 0; i < n; i++) {
            pool.submit(runs::incrementAndGet).get(10, TimeUnit.SECONDS);
        }
        assertThat(made.get()).as("the move was tried").isGreaterThanOrEqualTo(2);
        awaitUntil("every task counted", () -> pool.stats().completed() == n);
        assertThat(runs).hasValue(n);
    }

    /** Fills the pool, lets every worker go idle, then runs ten times as many tasks on at most as many workers. */
    private void assertIdleWorkersAreReused(WorkerPool pool, int capacity) throws InterruptedException {
        CountDownLatch gate = occupy(pool, capacity);
        assertThat(pool.running()).isEqualTo(capacity);
        assertThat(pool.free()).isZero();
        open(gate);
        awaitUntil("all idle", () -> pool.idle() == capacity);
        for (int i = 0; i < 10 * capacity; i++) {
            pool.execute(() -> { });
        }
        awaitUntil("all done", () -> pool.stats().completed() == 11L * capacity);
        assertThat(pool.running() + pool.idle()).isLessThanOrEqualTo(capacity);
    }
}
