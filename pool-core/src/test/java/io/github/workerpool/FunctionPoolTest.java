package io.github.workerpool;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

class FunctionPoolTest {

    @RegisterExtension
    final Invariants invariants = new Invariants();

    private static final Duration WAIT = Duration.ofSeconds(5);

    private WorkerPool.Builder builder(int capacity) {
        return WorkerPool.builder().name(Invariants.uniqueName("fp")).capacity(capacity);
    }

    @Test
    void invoke_appliesTheFunctionToEveryArgument() throws Exception {
        AtomicLong sum = new AtomicLong();
        FunctionPool<Integer> pool = invariants.track(FunctionPool.of(builder(8), (Integer i) -> sum.addAndGet(i)));
        for (int i = 1; i <= 1000; i++) {
            pool.invoke(i);
        }
        await().atMost(WAIT).until(() -> pool.stats().completed() == 1000);
        assertThat(sum.get()).isEqualTo(500_500);
        assertThat(pool.stats().submitted()).isEqualTo(1000);
    }

    @Test
    void invoke_runsOnPoolThreadsNamedAfterThePool() throws Exception {
        CopyOnWriteArrayList<String> threads = new CopyOnWriteArrayList<>();
        FunctionPool<String> pool = invariants.track(FunctionPool.of(builder(2), (String s) ->
                threads.add(Thread.currentThread().getName())));
        pool.invoke("a");
        await().atMost(WAIT).until(() -> threads.size() == 1);
        assertThat(threads.get(0)).startsWith(pool.name() + "-");
    }

    @Test
    void invoke_nullArgument_throwsNullPointerException() {
        FunctionPool<String> pool = invariants.track(FunctionPool.of(builder(1), (String s) -> { }));
        assertThatThrownBy(() -> pool.invoke(null)).isInstanceOf(NullPointerException.class).hasMessageContaining("arg");
    }

    @Test
    void of_withoutCapacity_throwsIllegalState() {
        assertThatThrownBy(() -> FunctionPool.of(WorkerPool.builder().name("nocap"), (String s) -> { }))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("capacity");
    }

    @Test
    void invoke_whenFull_nonblocking_rejects() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        FunctionPool<String> pool = invariants.track(FunctionPool.of(builder(1).nonblocking(true), (String s) -> {
            started.countDown();
            Latches.pass(release);
        }));
        pool.invoke("first");
        assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();
        assertThatThrownBy(() -> pool.invoke("second")).isInstanceOf(PoolOverloadException.class)
                .hasMessageContaining(pool.name()).hasMessageContaining("nonblocking");
        assertThat(pool.stats().rejected()).isEqualTo(1);
        release.countDown();
    }

    @Test
    void invoke_whenFull_blocking_waitsForAFreeWorker() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        ConcurrentLinkedQueue<String> done = new ConcurrentLinkedQueue<>();
        FunctionPool<String> pool = invariants.track(FunctionPool.of(builder(1), (String s) -> {
            if (s.equals("first")) {
                Latches.pass(release);
            }
            done.add(s);
        }));
        pool.invoke("first");
        Thread caller = new Thread(() -> pool.invoke("second"));
        caller.start();
        await().atMost(WAIT).until(() -> pool.waiting() == 1);
        assertThat(done).isEmpty();
        release.countDown();
        caller.join(5000);
        await().atMost(WAIT).until(() -> done.size() == 2);
        assertThat(done).containsExactly("first", "second");
    }

    @Test
    void functionThatThrows_countsAsFailed_goesToPanicHandler_andTheWorkerCarriesOn() throws Exception {
        CopyOnWriteArrayList<Throwable> panics = new CopyOnWriteArrayList<>();
        AtomicInteger ok = new AtomicInteger();
        FunctionPool<Integer> pool = invariants.track(FunctionPool.of(builder(1).panicHandler(panics::add), (Integer i) -> {
            if (i == 2) {
                throw new IllegalStateException("boom " + i);
            }
            ok.incrementAndGet();
        }));
        for (int i = 1; i <= 3; i++) {
            pool.invoke(i);
        }
        await().atMost(WAIT).until(() -> pool.stats().completed() + pool.stats().failed() == 3);
        assertThat(pool.stats().failed()).isEqualTo(1);
        assertThat(ok.get()).isEqualTo(2);
        assertThat(panics).singleElement().satisfies(t -> assertThat(t).hasMessage("boom 2"));
    }

    @Test
    void tune_growsCapacity_andLetsTheWaitingCallerIn() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger running = new AtomicInteger();
        FunctionPool<Integer> pool = invariants.track(FunctionPool.of(builder(1), (Integer i) -> {
            running.incrementAndGet();
            Latches.pass(release);
        }));
        pool.invoke(1);
        Thread caller = new Thread(() -> pool.invoke(2));
        caller.start();
        await().atMost(WAIT).until(() -> pool.waiting() == 1);
        pool.tune(2);
        await().atMost(WAIT).until(() -> running.get() == 2);
        assertThat(pool.capacity()).isEqualTo(2);
        assertThat(pool.running()).isEqualTo(2);
        assertThat(pool.free()).isZero();
        release.countDown();
        caller.join(5000);
    }

    @Test
    void purge_stopsIdleWorkers() {
        // No spinner: idle() counts a spinning worker, which purge() cannot take until it parks.
        FunctionPool<Integer> pool = invariants.track(FunctionPool.of(builder(4).spinNanos(0), (Integer i) -> { }));
        pool.invoke(1);
        await().atMost(WAIT).until(() -> pool.stats().completed() == 1 && pool.idle() == 1);
        assertThat(pool.purge()).isEqualTo(1);
        assertThat(pool.idle()).isZero();
    }

    @Test
    void releaseNow_returnsEveryArgumentThatNeverStarted_inQueueOrder() throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        FunctionPool<String> pool = invariants.track(FunctionPool.of(builder(1).queueCapacity(5), (String s) -> {
            started.countDown();
            Latches.pass(release);
        }));
        pool.invoke("running");
        assertThat(started.await(5, TimeUnit.SECONDS)).isTrue();
        pool.invoke("a");
        pool.invoke("b");
        pool.invoke("c");
        assertThat(pool.queued()).isEqualTo(3);
        List<String> never = pool.releaseNow();
        assertThat(never).containsExactly("a", "b", "c");
        assertThat(pool.isClosed()).isTrue();
        release.countDown();
        assertThat(pool.awaitTermination(WAIT)).isTrue();
        assertThat(pool.stats().cancelled()).isEqualTo(3);
    }

    @Test
    void release_rejectsLaterInvocations_andReboot_reopens() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        FunctionPool<Integer> pool = invariants.track(FunctionPool.of(builder(2), (Integer i) -> calls.incrementAndGet()));
        pool.invoke(1);
        assertThat(pool.releaseTimeout(WAIT)).isTrue();
        assertThat(pool.isClosed()).isTrue();
        assertThat(pool.isTerminated()).isTrue();
        assertThatThrownBy(() -> pool.invoke(2)).isInstanceOf(PoolClosedException.class);
        pool.reboot();
        pool.invoke(3);
        await().atMost(WAIT).until(() -> calls.get() == 2);
        assertThat(pool.stats().rejected()).isEqualTo(1);
    }

    @Test
    void stress_manyCallersOnABlockingQueuedPool_everyArgumentOnce() throws Exception {
        int callers = 4;
        int perCaller = 5_000;
        AtomicLong sum = new AtomicLong();
        AtomicInteger concurrent = new AtomicInteger();
        AtomicInteger maxConcurrent = new AtomicInteger();
        FunctionPool<Integer> pool = invariants.track(FunctionPool.of(builder(4).queueCapacity(16), (Integer i) -> {
            int c = concurrent.incrementAndGet();
            maxConcurrent.accumulateAndGet(c, Math::max);
            sum.addAndGet(i);
            concurrent.decrementAndGet();
        }));
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < callers; t++) {
            Thread th = new Thread(() -> {
                for (int i = 1; i <= perCaller; i++) {
                    pool.invoke(i);
                }
            });
            threads.add(th);
            th.start();
        }
        for (Thread th : threads) {
            th.join(30_000);
            assertThat(th.isAlive()).isFalse();
        }
        await().atMost(WAIT).until(() -> pool.stats().completed() == (long) callers * perCaller);
        assertThat(sum.get()).isEqualTo(callers * (long) perCaller * (perCaller + 1) / 2);
        assertThat(maxConcurrent.get()).isLessThanOrEqualTo(4);
        assertThat(pool.stats().rejected()).isZero();
    }

    @Test
    void anArgumentThatIsAPoolsFuture_isJustAnArgument() throws Exception {
        // Found by a review: a failed future counted the call as failed, a cancelled one skipped
        // the function, though the function is what the FunctionPool runs.
        WorkerPool other = invariants.track(builder(1).queueCapacity(5).build());
        java.util.concurrent.Future<?> failed = other.submit(() -> {
            throw new IllegalStateException("the other pool's task failed");
        });
        await().atMost(WAIT).until(failed::isDone);
        CountDownLatch release = new CountDownLatch(1);
        other.execute(() -> Latches.pass(release));
        java.util.concurrent.Future<?> cancelled = other.submit(() -> { });
        cancelled.cancel(false);
        release.countDown();
        List<Object> seen = new CopyOnWriteArrayList<>();
        FunctionPool<java.util.concurrent.Future<?>> pool = invariants.track(FunctionPool.of(builder(1), seen::add));
        pool.invoke(failed);
        pool.invoke(cancelled);
        await().atMost(WAIT).until(() -> pool.stats().completed() == 2);
        assertThat(seen).containsExactly(failed, cancelled);
        assertThat(pool.stats().failed()).isZero();
        assertThat(pool.stats().cancelled()).isZero();
    }

    @Test
    void awaitTermination_takesAnyDuration_asAWorkerPoolDoes() throws Exception {
        FunctionPool<String> pool = invariants.track(FunctionPool.of(builder(1), s -> { }));
        pool.release();
        assertThat(pool.awaitTermination(Duration.ofSeconds(Long.MAX_VALUE))).isTrue();
    }
}
