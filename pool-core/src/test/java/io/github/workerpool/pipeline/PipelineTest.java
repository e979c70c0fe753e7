package io.github.workerpool.pipeline;

import io.github.workerpool.Invariants;
import io.github.workerpool.Latches;
import io.github.workerpool.Pool;
import io.github.workerpool.PoolListener;
import io.github.workerpool.TaskEnds;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Seed 002's guarantees. The seed numbers the ETL steps (1) to (5) with step (1) outside the
 * pipeline, so its step (k) is our stage k-1: "<12>(4) fails" is batch 12 failing at stage 3,
 * and "<13> does not reach (5)" is batch 13 never entering stage 4, the checkpoint stage.
 */
class PipelineTest {

    @RegisterExtension
    final Invariants invariants = new Invariants();

    private static final Duration WAIT = Duration.ofSeconds(5);

    private Pipeline pipeline(int... limits) {
        return invariants.track(Pipeline.builder().name(Invariants.uniqueName("pl")).concurrency(limits).build());
    }

    /** Records (batch, stage) events: starts, concurrency per stage. */
    private static final class Trace {
        final CopyOnWriteArrayList<String> starts = new CopyOnWriteArrayList<>();   // steps run (any order)
        final CopyOnWriteArrayList<String> entries = new CopyOnWriteArrayList<>();  // stage entries, as granted
        final AtomicInteger[] running;
        final int[] limits;
        final CopyOnWriteArrayList<String> violations = new CopyOnWriteArrayList<>();

        Trace(int... limits) {
            this.limits = limits;
            running = new AtomicInteger[limits.length];
            for (int i = 0; i < limits.length; i++) {
                running[i] = new AtomicInteger();
            }
        }

        /** Watches the pipeline's stage entries, in the order it grants them (under its lock). */
        Trace watch(Pipeline p) {
            p.enterListener = (batch, stage) -> entries.add(batch + ":" + stage);
            return this;
        }

        Pipeline.Step step(int batch, int stage, Pipeline.Step body) {
            return () -> {
                starts.add(batch + ":" + stage);
                if (running[stage - 1].incrementAndGet() > limits[stage - 1]) {
                    violations.add("stage " + stage + " over its limit at batch " + batch);
                }
                try {
                    body.run();
                } finally {
                    running[stage - 1].decrementAndGet();
                }
            };
        }

        /** Batches that ran their step of this stage, in no particular order. */
        List<Integer> ran(int stage) {
            return order(starts, stage);
        }

        /** Batches in the order they entered this stage. */
        List<Integer> startOrder(int stage) {
            return order(entries, stage);
        }

        private static List<Integer> order(List<String> events, int stage) {
            List<Integer> out = new ArrayList<>();
            for (String s : events) {
                String[] p = s.split(":");
                if (Integer.parseInt(p[1]) == stage) {
                    out.add(Integer.parseInt(p[0]));
                }
            }
            return out;
        }
    }

    @Test
    void aFailureWhoseMessageCannotBeRead_stillEndsTheBatch_andReachesAwait() throws Exception {
        // Found by a review: the exception's getMessage() threw while the failure was recorded, the
        // batch never ended, and await() and close() hung for good. Not tracked by the invariants:
        // on the old code their close would hang too.
        Pipeline p = Pipeline.builder().name(Invariants.uniqueName("unprintable")).concurrency(1, 1).build();
        Exception bad = new Exception() {
            @Override
            public String getMessage() {
                throw new IllegalStateException("no message");
            }
        };
        try {
            assertThat(p.submit(() -> {
                throw bad;
            }, null)).isTrue();
            Throwable thrown = null;
            try {
                p.await(WAIT);
            } catch (PipelineException e) {
                thrown = e;
            }
            assertThat(thrown).as("await throws the failure").isInstanceOf(PipelineException.class);
            assertThat(thrown.getCause()).isSameAs(bad);
            assertThat(thrown.getMessage()).contains("whose message could not be read");
            assertThat(p.stats().inFlight()).isZero();
        } finally {
            p.cancel();
        }
        p.close();
    }

    @Test
    void anEndedBatchsSteps_areNotKeptByTheBatchAfterIt() throws Exception {
        // Found by a review: a batch submitted while the one before it ran holds a link to it, and
        // through it that batch's steps and the data they hold, until it reaches the last stage.
        Pipeline p = pipeline(2, 1);
        CountDownLatch firstInStage2 = new CountDownLatch(1);
        CountDownLatch releaseFirst = new CountDownLatch(1);
        CountDownLatch secondIn = new CountDownLatch(1);
        CountDownLatch releaseSecond = new CountDownLatch(1);
        java.lang.ref.WeakReference<byte[]> data = submitHolding(p, new byte[1 << 20], firstInStage2, releaseFirst);
        assertThat(firstInStage2.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        assertThat(p.submit(() -> {
            secondIn.countDown();
            releaseSecond.await();
        }, null)).isTrue();
        try {
            assertThat(secondIn.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
            releaseFirst.countDown();
            await().atMost(WAIT).until(() -> p.stats().completed() == 1);
            await().atMost(WAIT).until(() -> {
                System.gc();
                return data.get() == null;
            });
        } finally {
            releaseFirst.countDown();
            releaseSecond.countDown();
        }
        p.await(WAIT);
    }

    /** Submits a batch whose steps hold {@code bytes}, its second waiting for {@code release}; returns a weak reference to them. */
    private static java.lang.ref.WeakReference<byte[]> submitHolding(Pipeline p, byte[] bytes, CountDownLatch inStage2,
            CountDownLatch release) throws InterruptedException {
        assertThat(p.submit(() -> bytes[0]++, () -> {
            bytes[1]++;
            inStage2.countDown();
            release.await();
        })).isTrue();
        return new java.lang.ref.WeakReference<>(bytes);
    }

    @Test
    void of_badLimits_throwNamingTheStageAndValue() {
        assertThatThrownBy(Pipeline::of).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("one limit per stage");
        assertThatThrownBy(() -> Pipeline.of(4, 0, 2)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("stage 2").hasMessageContaining("was 0");
        assertThatThrownBy(() -> Pipeline.builder().build()).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void awaitWithATimeout_returnsFalseOnceItRunsOut() throws Exception {
        Pipeline p = pipeline(1);
        CountDownLatch release = new CountDownLatch(1);
        p.submit(() -> Latches.pass(release));
        AtomicReference<Boolean> result = new AtomicReference<>();
        CountDownLatch returned = new CountDownLatch(1);
        Thread waiter = new Thread(() -> {
            try {
                result.set(p.await(Duration.ofMillis(1)));
            } catch (Exception e) {
                throw new AssertionError(e);
            } finally {
                returned.countDown();
            }
        });
        waiter.start();
        try {
            // Found by a review: once the time was up it waited for ever, as await() does.
            assertThat(returned.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).as("await(1 ms) returned").isTrue();
            assertThat(result.get()).isFalse();
        } finally {
            release.countDown();
        }
        p.await();
        assertThat(p.await(Duration.ofSeconds(Long.MAX_VALUE))).as("a duration past long nanos").isTrue();
    }

    @Test
    void closeOrAwaitFromAStep_throwsInsteadOfWaitingForItsOwnBatch() throws Exception {
        Pipeline p = pipeline(1, 1);
        AtomicReference<Throwable> fromClose = new AtomicReference<>();
        AtomicReference<Throwable> fromAwait = new AtomicReference<>();
        AtomicReference<Throwable> fromTimedAwait = new AtomicReference<>();
        CountDownLatch done = new CountDownLatch(1);
        p.submit(() -> {
            try {
                p.close();
            } catch (Throwable t) {
                fromClose.set(t);
            }
        }, () -> {
            try {
                p.await();
            } catch (Throwable t) {
                fromAwait.set(t);
            }
            try {
                p.await(Duration.ofMinutes(1));
            } catch (Throwable t) {
                fromTimedAwait.set(t);
            }
            done.countDown();
        });
        assertThat(done.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).as("the steps returned").isTrue();
        assertThat(fromClose.get()).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("close() called from a step of batch 1").hasMessageContaining("cancel()");
        assertThat(fromAwait.get()).isInstanceOf(IllegalStateException.class).hasMessageContaining("await()");
        assertThat(fromTimedAwait.get()).isInstanceOf(IllegalStateException.class);
        p.await();
        assertThat(p.stats().completed()).isEqualTo(1);
    }

    @Test
    void submitFromAStep_throwsInsteadOfWaitingForAStageItsOwnBatchHolds() throws Exception {
        // Found by a review: with stage 1 full (here by the step's own batch), the nested submit
        // waited for a slot that only the step's return would free.
        Pipeline p = pipeline(1, 1);
        AtomicReference<Throwable> fromSubmit = new AtomicReference<>();
        p.submit(() -> {
            try {
                p.submit(() -> { }, () -> { });
            } catch (Throwable t) {
                fromSubmit.set(t);
            }
        }, () -> { });
        try {
            assertThat(p.await(WAIT)).as("the batch ended").isTrue();
        } finally {
            p.cancel(); // if the nested submit waits, this ends it, so the test fails instead of hanging
        }
        assertThat(fromSubmit.get()).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("submit() called from a step of batch 1");
        assertThat(p.stats().completed()).isEqualTo(1);
        assertThat(p.stats().submitted()).as("the nested batch was never made").isEqualTo(1);
    }

    @Test
    void closeOrAwaitFromAListenerOfItsPool_throwsInsteadOfWaitingForItsOwnThread() throws Exception {
        // Found by a review: a listener's close() waited for the thread it ran on, for ever; with
        // one worker, an await() there waits for a batch that thread holds up.
        Pipeline p = pipeline(1);
        AtomicReference<Object> fromAwait = new AtomicReference<>();
        AtomicReference<Object> fromClose = new AtomicReference<>();
        CountDownLatch told = new CountDownLatch(1);
        p.pool().addListener(new PoolListener() {
            @Override
            public void taskEnded(Pool pool, long runNanos, Throwable failure) {
                if (told.getCount() == 0) {
                    return;
                }
                try {
                    fromAwait.set(p.await(Duration.ofSeconds(1)));
                } catch (Throwable t) {
                    fromAwait.set(t);
                }
                try {
                    p.close();
                    fromClose.set("closed");
                } catch (Throwable t) {
                    fromClose.set(t);
                }
                told.countDown();
            }
        });
        CountDownLatch second = new CountDownLatch(1);
        p.submit(() -> { });
        p.submit(() -> Latches.pass(second));
        assertThat(told.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).as("the listener returned").isTrue();
        second.countDown();
        assertThat(fromAwait.get()).isInstanceOf(IllegalStateException.class);
        assertThat(fromClose.get()).isInstanceOf(IllegalStateException.class);
        assertThat((Throwable) fromClose.get()).hasMessageContaining("from one of its own threads");
        p.await();
    }

    @Test
    void theListenersOfThePipelinesPool_areToldOfTheGuardedView_notOfThePoolUnderIt() throws Exception {
        // Found by a review: told of the WorkerPool underneath, a listener could releaseNow() it,
        // dropping admitted batches so that await() and close() waited for ever.
        Pipeline p = pipeline(1);
        Pool view = p.pool();
        TaskEnds listener = new TaskEnds();
        List<Pool> told = listener.told;
        view.addListener(listener);
        p.submit(() -> { });
        p.await();
        await().atMost(WAIT).until(() -> !told.isEmpty());
        assertThat(told).allSatisfy(pool -> assertThat(pool).isSameAs(view));
        assertThatThrownBy(() -> told.get(0).close()).isInstanceOf(IllegalStateException.class);
        view.removeListener(listener);
        int before = told.size();
        p.submit(() -> { });
        p.await();
        await().atMost(WAIT).until(() -> p.pool().running() == 0);
        assertThat(told).as("removed: told no more").hasSize(before);
    }

    @Test
    void aForwardingPoolsListenerWrapper_forwardsEveryCallback() throws Exception {
        // A callback PoolListener gains later must be forwarded too, or the view's listeners miss it.
        Class<?> told = Class.forName("io.github.workerpool.ForwardingPool$Told");
        for (java.lang.reflect.Method m : PoolListener.class.getMethods()) {
            assertThat(told.getDeclaredMethod(m.getName(), m.getParameterTypes()))
                    .as("ForwardingPool.Told overrides %s", m.getName()).isNotNull();
        }
    }

    @Test
    void submit_withTheWrongNumberOfSteps_throws() {
        Pipeline p = pipeline(1, 1);
        assertThatThrownBy(() -> p.submit(() -> { })).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("2 stages").hasMessageContaining("got 1");
    }

    @Test
    void everyStageStartsBatchesInOrder_andNeverExceedsItsLimit() throws Exception {
        int[] limits = {3, 4, 2, 1};
        Pipeline p = pipeline(limits);
        Trace trace = new Trace(limits).watch(p);
        int batches = 60;
        for (int b = 1; b <= batches; b++) {
            Pipeline.Step[] steps = new Pipeline.Step[4];
            for (int s = 1; s <= 4; s++) {
                steps[s - 1] = trace.step(b, s, () -> Thread.sleep(ThreadLocalRandom.current().nextInt(3)));
            }
            assertThat(p.submit(steps)).isTrue();
        }
        p.await();
        List<Integer> expected = new ArrayList<>();
        for (int b = 1; b <= batches; b++) {
            expected.add(b);
        }
        for (int s = 1; s <= 4; s++) {
            assertThat(trace.startOrder(s)).as("stage %d start order", s).isEqualTo(expected);
        }
        assertThat(trace.violations).isEmpty();
        assertThat(p.stats().completed()).isEqualTo(batches);
    }

    @Test
    void aBatchsStepBegins_afterItsPredecessorsStepOfThatStageBegan_evenIfItsWorkerIsLate() throws Exception {
        // Review helper-142: batches were granted stage 1 in order, but a batch whose worker was
        // slow to reach its step (thread start, a GC pause, a listener) saw the next batch's
        // whole step run first. The first batch's worker is held after it starts, before its step.
        Pipeline p = pipeline(2, 1);
        CountDownLatch held = new CountDownLatch(1);
        CountDownLatch releaseFirst = new CountDownLatch(1);
        AtomicBoolean first = new AtomicBoolean(true);
        p.pool().addListener(new PoolListener() {
            @Override
            public void taskStarted(Pool pool, long queuedNanos) {
                if (first.getAndSet(false)) {
                    held.countDown();
                    Latches.pass(releaseFirst);
                }
            }
        });
        AtomicLong heldWhenSecondBegan = new AtomicLong(-1);
        CountDownLatch secondBegun = new CountDownLatch(1);
        p.submit(() -> { }, () -> { });
        Latches.pass(held);
        p.submit(() -> {
            heldWhenSecondBegan.set(releaseFirst.getCount());
            secondBegun.countDown();
        }, () -> { });
        // Batch 2 has its worker and stage 1; it must not begin before batch 1 does, and batch 1
        // cannot begin before the release. (Which step's first instruction runs first after that
        // is the threads' race, stage 1 running two at once: the javadoc says so.)
        assertThat(secondBegun.await(200, TimeUnit.MILLISECONDS)).as("batch 2 began first").isFalse();
        releaseFirst.countDown();
        assertThat(p.await(WAIT)).isTrue();
        assertThat(heldWhenSecondBegan.get()).as("batch 1's worker was still held when batch 2 began")
                .isZero();
    }

    /** Seed: "<22>(2) finished before <21>(2) ... <22> must wait until <21>(2) is done" — here: until <21> enters the next stage. */
    @Test
    void aBatchThatFinishedEarly_waitsForItsPredecessor_andKeepsItsSlot() throws Exception {
        Pipeline p = pipeline(2, 2);
        CountDownLatch releaseFirst = new CountDownLatch(1);
        Trace trace = new Trace(2, 2).watch(p);
        p.submit(trace.step(1, 1, () -> Latches.pass(releaseFirst)), trace.step(1, 2, () -> { }));
        p.submit(trace.step(2, 1, () -> { }), trace.step(2, 2, () -> { }));

        await().atMost(WAIT).until(() -> p.stats().stages().get(1).waiting() == 1);
        Pipeline.StageStats stage1 = p.stats().stages().get(0);
        assertThat(stage1.occupied()).as("batch 2 holds its stage-1 slot").isEqualTo(2);
        assertThat(stage1.running()).isEqualTo(1);
        assertThat(trace.startOrder(2)).isEmpty();
        assertThat(trace.ran(2)).isEmpty();

        releaseFirst.countDown();
        p.await();
        assertThat(trace.startOrder(2)).containsExactly(1, 2);
    }

    /** Seed: "(4) is full, <14>(3) finished and waits, keeping its (3) slot"; and submit blocks while stage 1 is full. */
    @Test
    void aSlowStage_slowsEverythingBeforeIt_andSubmitBlocksWhileStage1IsFull() throws Exception {
        Pipeline p = pipeline(1, 1);
        CountDownLatch releaseSlow = new CountDownLatch(1);
        p.submit(() -> { }, () -> Latches.pass(releaseSlow));      // batch 1: slow in stage 2
        p.submit(() -> { }, () -> { });                            // batch 2: done with stage 1, holds it
        await().atMost(WAIT).until(() -> p.stats().stages().get(1).waiting() == 1);

        AtomicBoolean admitted = new AtomicBoolean();
        Thread submitter = new Thread(() -> {
            try {
                admitted.set(p.submit(() -> { }, () -> { }));     // batch 3: stage 1 is full
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        submitter.start();
        await().atMost(WAIT).until(() -> p.stats().stages().get(0).waiting() == 1);
        assertThat(submitter.isAlive()).isTrue();
        assertThat(p.stats().inFlight()).isEqualTo(3);

        releaseSlow.countDown();
        submitter.join(5000);
        assertThat(admitted.get()).isTrue();
        p.await();
        assertThat(p.stats().completed()).isEqualTo(3);
    }

    /**
     * Seed: "<12>(4) fails: <13>, <14>... stop before their next step wherever they are; <11> runs to
     * the end; Wait() returns <12>(4)'s error". <13>(4) runs (and writes) but neither <12>(5) nor
     * <13>(5) runs, so the checkpoint is <11>'s.
     */
    @Test
    void seed002_batch12FailsAtStage3_batch13NeverReachesTheCheckpoint_batch11Completes() throws Exception {
        Pipeline p = pipeline(4, 8, 2, 1);
        Checkpoint<Integer> store = Checkpoint.inMemory();
        CopyOnWriteArrayList<Integer> saves = new CopyOnWriteArrayList<>();
        Trace trace = new Trace(4, 8, 2, 1).watch(p);
        CountDownLatch batch13Loaded = new CountDownLatch(1);
        int admitted = 0;
        for (int b = 1; b <= 100; b++) {
            int n = b;
            boolean ok = p.submit(
                    trace.step(n, 1, () -> { }),
                    trace.step(n, 2, () -> { }),
                    trace.step(n, 3, () -> {
                        if (n == 12) {
                            Latches.pass(batch13Loaded); // fail only once <13>(4) has written its data
                            throw new IllegalStateException("elasticsearch is down");
                        }
                        if (n == 13) {
                            batch13Loaded.countDown();
                        }
                    }),
                    trace.step(n, 4, () -> {
                        store.save(n);
                        saves.add(n);
                    }));
            if (!ok) {
                break;
            }
            admitted++;
        }

        assertThatThrownBy(p::await).isInstanceOfSatisfying(PipelineException.class, e -> {
            assertThat(e.batch()).isEqualTo(12);
            assertThat(e.stage()).isEqualTo(3);
            assertThat(e).hasRootCauseMessage("elasticsearch is down");
        });
        assertThat(admitted).as("submit answers false once the pipeline failed").isLessThan(100);
        assertThat(trace.ran(3)).as("<13>(4) ran and wrote its data").contains(13);
        assertThat(trace.startOrder(4)).as("no batch after 11 reaches the checkpoint stage")
                .containsExactly(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11);
        assertThat(saves).containsExactly(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11);
        assertThat(trace.ran(4)).containsExactly(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11);
        assertThat(store.load()).hasValue(11);
        for (int s = 1; s <= 4; s++) {
            assertThat(trace.startOrder(s)).as("stage %d order", s).isSorted().doesNotHaveDuplicates();
        }
        assertThat(p.submit(null, null, null, null)).isFalse();
        Pipeline.Stats stats = p.stats();
        assertThat(stats.completed()).isEqualTo(11);
        assertThat(stats.failed()).isEqualTo(1);
        // Batches 13 and later stopped, including one whose submit was waiting for stage 1 and answered false.
        assertThat(stats.submitted()).isBetween((long) admitted, admitted + 1L);
        assertThat(stats.stopped()).isEqualTo(stats.submitted() - 12);
    }

    /** A restart that loads the checkpoint loses no batch and skips none, after a failure mid-run. */
    @Test
    void restartFromCheckpoint_afterAFailureMidRun_processesEveryRecord() throws Exception {
        int records = 1_000;
        int batchSize = 10;
        Checkpoint<Integer> store = Checkpoint.inMemory();
        Map<Integer, Integer> sink = new ConcurrentHashMap<>();           // idempotent writes by record id
        CopyOnWriteArrayList<Integer> saves = new CopyOnWriteArrayList<>();
        AtomicBoolean failOnce = new AtomicBoolean(true);
        int failAt = 10 * ThreadLocalRandom.current().nextInt(5, 95);   // the batch starting at this offset fails

        Throwable firstRun = runEtl(store, sink, saves, records, batchSize, offset -> {
            if (offset == failAt && failOnce.getAndSet(false)) {
                throw new IllegalStateException("database C failed at offset " + offset);
            }
        });
        assertThat(firstRun).isInstanceOf(PipelineException.class).hasRootCauseMessage("database C failed at offset " + failAt);
        assertThat(store.load()).as("the last batch whose every stage succeeded").hasValue(failAt);
        assertThat(saves).as("saves in batch order, none skipped").isEqualTo(range(batchSize, failAt, batchSize));
        for (int r = 0; r < failAt; r++) {
            assertThat(sink).containsKey(r);
        }

        Throwable secondRun = runEtl(store, sink, saves, records, batchSize, offset -> { });
        assertThat(secondRun).isNull();
        assertThat(store.load()).hasValue(records);
        assertThat(sink).hasSize(records);
        assertThat(sink.values()).allSatisfy(v -> assertThat(v).isEqualTo(1)); // every record transformed once per write
        assertThat(saves).isEqualTo(range(batchSize, records, batchSize));
    }

    interface Load {
        void check(int offset) throws Exception;
    }

    private Throwable runEtl(Checkpoint<Integer> store, Map<Integer, Integer> sink, List<Integer> saves,
            int records, int batchSize, Load load) throws Exception {
        Pipeline etl = pipeline(4, 8, 2, 1);
        int offset = store.load().orElse(0);
        while (offset < records) {
            int from = offset;
            int to = Math.min(records, offset + batchSize);
            List<Integer> data = new ArrayList<>();
            for (int r = from; r < to; r++) {
                data.add(r);                                              // (1) extract
            }
            Map<Integer, Integer> joined = new ConcurrentHashMap<>();
            boolean ok = etl.submit(
                    () -> data.forEach(r -> joined.put(r, 0)),            // (2) join
                    () -> joined.replaceAll((k, v) -> v + 1),             // (3) transform
                    () -> {                                               // (4) load, overwriting by id
                        Thread.sleep(ThreadLocalRandom.current().nextInt(2));
                        load.check(from);
                        sink.putAll(joined);
                    },
                    () -> {                                               // (5) checkpoint
                        store.save(to);
                        saves.add(to);
                    });
            if (!ok) {
                break;
            }
            offset = to;
        }
        try {
            etl.await();
            return null;
        } catch (PipelineException e) {
            return e;
        } finally {
            etl.close();
        }
    }

    private static List<Integer> range(int from, int toInclusive, int step) {
        List<Integer> out = new ArrayList<>();
        for (int i = from; i <= toInclusive; i += step) {
            out.add(i);
        }
        return out;
    }

    @Test
    void await_reportsTheFirstFailureInBatchOrder_notInTime() throws Exception {
        Pipeline p = pipeline(2, 2);
        CountDownLatch laterFailed = new CountDownLatch(1);
        p.submit(() -> { }, () -> {
            Latches.pass(laterFailed);
            throw new IllegalStateException("batch 1");
        });
        p.submit(() -> {
            try {
                throw new IllegalStateException("batch 2");
            } finally {
                laterFailed.countDown();
            }
        }, () -> { });
        assertThatThrownBy(p::await).isInstanceOfSatisfying(PipelineException.class, e -> {
            assertThat(e.batch()).isEqualTo(1);
            assertThat(e.stage()).isEqualTo(2);
            assertThat(e).hasMessageStartingWith("pipeline '" + p.name() + "': batch 1 failed at stage 2");
            // The other failure is kept, not lost (found by a review).
            assertThat(e.getSuppressed()).singleElement().isInstanceOfSatisfying(PipelineException.class, other -> {
                assertThat(other.batch()).isEqualTo(2);
                assertThat(other.stage()).isEqualTo(1);
                assertThat(other).hasRootCauseMessage("batch 2");
            });
        });
    }

    @Test
    void interruptingTheSubmitter_stopsThePipelineAtThatBatch_earlierBatchesRunToTheEnd() throws Exception {
        Pipeline p = pipeline(1, 1);
        CountDownLatch releaseFirst = new CountDownLatch(1);
        AtomicInteger completedSteps = new AtomicInteger();
        p.submit(() -> Latches.pass(releaseFirst), completedSteps::incrementAndGet);
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread submitter = new Thread(() -> {
            try {
                p.submit(completedSteps::incrementAndGet, completedSteps::incrementAndGet);
            } catch (Throwable t) {
                thrown.set(t);
            }
        });
        submitter.start();
        await().atMost(WAIT).until(() -> p.stats().stages().get(0).waiting() == 1);
        submitter.interrupt();
        submitter.join(5000);
        assertThat(thrown.get()).isInstanceOf(InterruptedException.class);

        releaseFirst.countDown();
        p.await();                                                  // no failure to report
        assertThat(completedSteps.get()).isEqualTo(1);              // batch 1 ran to the end
        assertThat(p.submit(() -> { }, () -> { })).isFalse();
        assertThat(p.isStopped()).isTrue();
        assertThat(p.stats()).satisfies(s -> {
            assertThat(s.completed()).isEqualTo(1);
            assertThat(s.stopped()).isEqualTo(1);
        });
    }

    @Test
    void aStepThatReturnsWithItsThreadInterrupted_failsItsBatch_inOrder_andAwaitSaysSo() throws Exception {
        // The usual "catch InterruptedException, restore the flag, return" of a step whose work was
        // cut short: the batch fails (not a silent stop, not a half-done stage passed on), and
        // batch 1, ahead of it, still completes.
        Pipeline p = pipeline(2, 1);
        CountDownLatch inStage2 = new CountDownLatch(1);
        CountDownLatch releaseFirst = new CountDownLatch(1);
        AtomicBoolean secondReachedStage2 = new AtomicBoolean();
        assertThat(p.submit(() -> { }, () -> {
            inStage2.countDown();
            Latches.pass(releaseFirst);
        })).isTrue();
        Latches.pass(inStage2);
        assertThat(p.submit(() -> Thread.currentThread().interrupt(), () -> secondReachedStage2.set(true))).isTrue();
        await().atMost(WAIT).until(() -> p.stats().failed() == 1);
        releaseFirst.countDown();
        assertThatThrownBy(p::await).isInstanceOfSatisfying(PipelineException.class, e -> {
            assertThat(e.batch()).isEqualTo(2);
            assertThat(e.stage()).isEqualTo(1);
            assertThat(e.getCause()).isInstanceOf(InterruptedException.class).hasMessageContaining("stage 1");
        });
        assertThat(secondReachedStage2).isFalse();
        assertThat(p.stats()).satisfies(s -> {
            assertThat(s.completed()).isEqualTo(1);
            assertThat(s.failed()).isEqualTo(1);
            assertThat(s.stopped()).isZero();
        });
    }

    @Test
    void interruptingTheSubmitter_afterItsBatchWasAdmitted_doesNotFailTheBatch() throws Exception {
        // Batch 1 has ended (its slot is free) but its worker is still busy in a listener: batch 2 is
        // admitted and handed to the pool, which must not make the submitter wait for that worker
        // (an interrupt there used to fail batch 2 with a PoolOverloadException).
        Pipeline p = pipeline(1);
        CountDownLatch inEnded = new CountDownLatch(1);
        CountDownLatch releaseListener = new CountDownLatch(1);
        p.pool().addListener(new PoolListener() {
            @Override
            public void taskEnded(Pool pool, long runNanos, Throwable failure) {
                if (inEnded.getCount() > 0) {
                    inEnded.countDown();
                    Latches.pass(releaseListener);
                }
            }
        });
        assertThat(p.submit(() -> { })).isTrue();
        Latches.pass(inEnded);
        AtomicBoolean ran = new AtomicBoolean();
        AtomicReference<Object> outcome = new AtomicReference<>();
        CountDownLatch submitted = new CountDownLatch(1);
        Thread submitter = new Thread(() -> {
            try {
                outcome.set(p.submit(() -> ran.set(true)));
            } catch (Throwable t) {
                outcome.set(t);
            }
            submitted.countDown();
            Thread.currentThread().interrupt(); // too late to matter: the batch is the pipeline's now
        });
        submitter.start();
        // The listener holds the worker for up to 10 s: half that is "at once" here.
        assertThat(submitted.await(5, TimeUnit.SECONDS)).as("submit returned without waiting for the busy worker").isTrue();
        assertThat(outcome.get()).isEqualTo(true);
        submitter.join(5000);
        releaseListener.countDown();
        p.await();
        assertThat(ran).isTrue();
        assertThat(p.stats().completed()).isEqualTo(2);
    }

    @Test
    void aBatchStillInThePoolsQueue_whenThePipelineIsCancelled_stopsWithoutRunningItsFirstStep() throws Exception {
        // Helper-103: a batch admitted to stage 1 but not yet taken by a worker ran its first step
        // after cancel() (or an earlier batch's failure), though it had not started it.
        Pipeline p = pipeline(1);
        CountDownLatch inEnded = new CountDownLatch(1);
        CountDownLatch releaseListener = new CountDownLatch(1);
        p.pool().addListener(new PoolListener() {
            @Override
            public void taskEnded(Pool pool, long runNanos, Throwable failure) {
                if (inEnded.getCount() > 0) {
                    inEnded.countDown();
                    Latches.pass(releaseListener); // holds the pipeline's only worker
                }
            }
        });
        assertThat(p.submit(() -> { })).isTrue();
        Latches.pass(inEnded);
        AtomicBoolean ran = new AtomicBoolean();
        assertThat(p.submit(() -> ran.set(true))).as("admitted, queued behind the busy worker").isTrue();
        assertThat(p.pool().stats().queued()).isEqualTo(1);
        p.cancel();
        releaseListener.countDown();
        p.await();
        assertThat(ran).as("its step had not started: it stops at the boundary").isFalse();
        Pipeline.Stats stats = p.stats();
        assertThat(stats.completed()).isEqualTo(1);
        assertThat(stats.stopped()).isEqualTo(1);
        assertThat(stats.stages().get(0).occupied()).isZero();
    }

    @Test
    void await_reportsOnlyTheFailuresOfTheBatchesItWaitedFor() throws Exception {
        // Helper-103: a batch submitted after await() began, failing meanwhile, was attached to the
        // failure await() threw, though await() had not waited for it.
        Pipeline p = pipeline(2, 1);
        CountDownLatch failFirst = new CountDownLatch(1);
        p.submit(() -> { }, () -> {
            Latches.pass(failFirst);
            throw new IllegalStateException("batch 1");
        });
        AtomicReference<Throwable> thrown = new AtomicReference<>();
        Thread awaiting = new Thread(() -> {
            try {
                p.await();
            } catch (Throwable t) {
                thrown.set(t);
            }
        });
        awaiting.start();
        // Waiting on the pipeline's condition, not for its lock: it has read which batches to wait for.
        await().atMost(WAIT).until(() -> java.util.Arrays.stream(awaiting.getStackTrace())
            .anyMatch((f) -> f.getClassName().endsWith("ConditionObject") && f.getMethodName().startsWith("await")));
        assertThat(p.submit(() -> {
            throw new IllegalStateException("batch 2");
        }, () -> { })).isTrue();
        await().atMost(WAIT).until(() -> p.stats().failed() == 1);
        failFirst.countDown();
        awaiting.join(WAIT.toMillis());
        assertThat(thrown.get()).isInstanceOfSatisfying(PipelineException.class, e -> {
            assertThat(e.batch()).isEqualTo(1);
            assertThat(e.getSuppressed()).as("batch 2 was submitted after the call").isEmpty();
        });
        // A call made now waits for batch 2 too, and reports it.
        assertThatThrownBy(p::await).isInstanceOfSatisfying(PipelineException.class,
                e -> assertThat(e.getSuppressed()).singleElement()
                    .isInstanceOfSatisfying(PipelineException.class, other -> assertThat(other.batch()).isEqualTo(2)));
    }

    @Test
    void itsThreads_takeNeitherTheFeedersPriorityNorItsInheritableThreadLocals() throws Exception {
        // Helper-103: the pipeline made its threads with new Thread(r, name), so a low-priority
        // feeder slowed every step, and its request context was seen by every later batch.
        InheritableThreadLocal<String> context = new InheritableThreadLocal<>();
        ClassLoader builders = Thread.currentThread().getContextClassLoader();
        Pipeline p = pipeline(1, 1);
        AtomicReference<Object[]> seen = new AtomicReference<>();
        Thread feeder = new Thread(() -> {
            context.set("request-42");
            Thread.currentThread().setContextClassLoader(new ClassLoader(builders) { });
            try {
                p.submit(() -> { }, () -> {
                    Thread t = Thread.currentThread();
                    seen.set(new Object[] { context.get(), t.getPriority(), t.getContextClassLoader(), t.isDaemon() });
                });
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        feeder.setPriority(Thread.MIN_PRIORITY);
        feeder.start();
        feeder.join(WAIT.toMillis());
        p.await();
        assertThat(seen.get()).containsExactly(null, Thread.NORM_PRIORITY, builders, false);
    }

    @Test
    void close_admitsNoMoreBatches_letsSubmittedOnesFinish_andWaits() throws Exception {
        Pipeline p = pipeline(3, 1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger saved = new AtomicInteger();
        for (int i = 0; i < 3; i++) {
            p.submit(() -> Latches.pass(release), saved::incrementAndGet);
        }
        Thread closer = new Thread(p::close);
        closer.start();
        await().atMost(WAIT).until(p::isStopped);
        assertThat(p.submit(() -> { }, () -> { })).isFalse();
        release.countDown();
        closer.join(5000);
        assertThat(closer.isAlive()).isFalse();
        assertThat(saved.get()).isEqualTo(3);
        assertThat(p.stats().completed()).isEqualTo(3);
    }

    @Test
    void cancel_stopsEveryUnfinishedBatchAtItsNextStageBoundary() throws Exception {
        Pipeline p = pipeline(3, 3);
        CountDownLatch allInStage1 = new CountDownLatch(3);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger stage2 = new AtomicInteger();
        for (int i = 0; i < 3; i++) {
            p.submit(() -> {
                allInStage1.countDown();
                Latches.pass(release);
            }, stage2::incrementAndGet);
        }
        Latches.pass(allInStage1);
        p.cancel();
        release.countDown();
        p.await();
        assertThat(stage2.get()).isZero();
        assertThat(p.stats().stopped()).isEqualTo(3);
        assertThat(p.submit(() -> { }, () -> { })).isFalse();
    }

    @Test
    void nullSteps_passTheirStageInTurn() throws Exception {
        Pipeline p = pipeline(1, 1, 1);
        AtomicInteger ran = new AtomicInteger();
        p.submit(null, ran::incrementAndGet, null);
        p.await();
        assertThat(ran.get()).isEqualTo(1);
        assertThat(p.stats().completed()).isEqualTo(1);
    }

    @Test
    void stress_concurrentSubmitters_withAFailure_keepOrderLimitsAndCheckpoint() throws Exception {
        for (int round = 0; round < 3; round++) {
            int[] limits = {3, 5, 2, 1};
            Pipeline p = pipeline(limits);
            int failBatch = ThreadLocalRandom.current().nextInt(20, 120);
            AtomicInteger checkpoint = new AtomicInteger();
            CopyOnWriteArrayList<String> checkpointViolations = new CopyOnWriteArrayList<>();
            Trace trace = new Trace(limits).watch(p);
            Object submitOrder = new Object();
            int[] nextId = {0};
            List<Thread> submitters = new ArrayList<>();
            for (int t = 0; t < 3; t++) {
                Thread th = new Thread(() -> {
                    try {
                        for (int i = 0; i < 60; i++) {
                            // Batches are numbered in submit order; knowing the number needs the
                            // numbering and the submit to happen together.
                            synchronized (submitOrder) {
                                int n = ++nextId[0];
                                boolean ok = p.submit(
                                        trace.step(n, 1, () -> { }),
                                        trace.step(n, 2, () -> Thread.sleep(ThreadLocalRandom.current().nextInt(2))),
                                        trace.step(n, 3, () -> {
                                            if (n == failBatch) {
                                                throw new IllegalStateException("injected");
                                            }
                                        }),
                                        trace.step(n, 4, () -> {
                                            if (!checkpoint.compareAndSet(n - 1, n)) {
                                                checkpointViolations.add("saved " + n + " after " + checkpoint.get());
                                            }
                                        }));
                                if (!ok) {
                                    return;
                                }
                            }
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                });
                submitters.add(th);
                th.start();
            }
            for (Thread th : submitters) {
                th.join(30_000);
                assertThat(th.isAlive()).isFalse();
            }
            assertThatThrownBy(p::await).isInstanceOfSatisfying(PipelineException.class,
                    e -> assertThat(e.stage()).isEqualTo(3));
            assertThat(checkpointViolations).isEmpty();
            assertThat(checkpoint.get()).isEqualTo(failBatch - 1);
            assertThat(trace.violations).isEmpty();
            for (int st = 1; st <= 4; st++) {
                assertThat(trace.startOrder(st)).as("stage %d order", st).isSorted().doesNotHaveDuplicates();
            }
            Pipeline.Stats s = p.stats();
            assertThat(s.completed()).isEqualTo(failBatch - 1);
            assertThat(s.submitted()).isEqualTo(s.completed() + s.failed() + s.stopped());
            p.close();
        }
    }

    @Test
    void anErrorWhileABatchEntersStageOne_failsAndEndsIt_soAwaitAndCloseReturn() throws Exception {
        // Found by a review: only an interrupt was handled there, so an Error (out of memory, a
        // stack overflow in the wait) left a numbered batch that never ended, and close() hung.
        Pipeline p = Pipeline.builder().name(Invariants.uniqueName("enter-1")).concurrency(1, 1).build();
        StackOverflowError boom = throwOnEntering(p, 1);
        assertThatThrownBy(() -> p.submit(() -> { }, () -> { })).isSameAs(boom);
        p.enterListener = null;
        assertThatThrownBy(() -> p.await(WAIT)).isInstanceOfSatisfying(PipelineException.class, e -> {
            assertThat(e.stage()).isEqualTo(1);
            assertThat(e.getCause()).isSameAs(boom);
        });
        Pipeline.Stats s = p.stats();
        assertThat(s.failed()).isEqualTo(1);
        assertThat(s.inFlight()).isZero();
        assertThat(s.stages().get(0).occupied()).isZero();
        p.close();
    }

    @Test
    void anErrorWhileABatchEntersALaterStage_failsAndEndsIt_andFreesItsSlots() throws Exception {
        Pipeline p = Pipeline.builder().name(Invariants.uniqueName("enter-2")).concurrency(1, 1).build();
        StackOverflowError boom = throwOnEntering(p, 2);
        AtomicBoolean secondStepRan = new AtomicBoolean();
        assertThat(p.submit(() -> { }, () -> secondStepRan.set(true))).isTrue();
        assertThatThrownBy(() -> p.await(WAIT)).isInstanceOfSatisfying(PipelineException.class, e -> {
            assertThat(e.stage()).isEqualTo(2);
            assertThat(e.getCause()).isSameAs(boom);
        });
        p.enterListener = null;
        assertThat(secondStepRan).isFalse();
        Pipeline.Stats s = p.stats();
        assertThat(s.failed()).isEqualTo(1);
        assertThat(s.inFlight()).isZero();
        assertThat(s.stages()).allSatisfy(st -> assertThat(st.occupied()).isZero());
        p.close();
    }

    /** Replaces the pipeline's ThreadLocal {@code field} with one whose first set throws {@code boom}. */
    private static AtomicBoolean setThrowsOnce(Pipeline p, String field, Error boom) throws Exception {
        AtomicBoolean armed = new AtomicBoolean(true);
        java.lang.reflect.Field f = Pipeline.class.getDeclaredField(field);
        f.setAccessible(true);
        f.set(p, new ThreadLocal<Object>() {
            @Override
            public void set(Object value) {
                if (armed.compareAndSet(true, false)) {
                    throw boom;
                }
                super.set(value);
            }
        });
        return armed;
    }

    @ParameterizedTest
    @ValueSource(strings = { "handingOver", "runningBatch" })
    void anOutOfMemoryErrorBetweenAdmissionAndTheFirstStep_failsTheBatch_andAwaitEnds(String field) throws Exception {
        // Review helper-167: the submitter's and the worker's ThreadLocal sets (a thread's first
        // allocates) ran outside the code that fails the batch: admitted and never ended, it held
        // stage 1 and await() and close() waited for it for ever.
        Pipeline p = Pipeline.builder().name(Invariants.uniqueName("oom")).concurrency(1, 1).build();
        OutOfMemoryError boom = new OutOfMemoryError("simulated");
        AtomicBoolean armed = setThrowsOnce(p, field, boom);
        AtomicInteger ran = new AtomicInteger();
        if (field.equals("handingOver")) {
            assertThatThrownBy(() -> p.submit(ran::incrementAndGet, () -> { })).isSameAs(boom);
        } else {
            p.submit(ran::incrementAndGet, () -> { }); // the worker's set throws, not the submit
        }
        assertThatThrownBy(() -> p.await(WAIT)).as("await ends, with the failure")
            .isInstanceOf(PipelineException.class).hasCause(boom);
        assertThat(armed).as("the set threw where the test meant it to").isFalse();
        p.close();
        Pipeline.Stats s = p.stats();
        assertThat(s.submitted()).isEqualTo(1);
        assertThat(s.failed()).as(s.toString()).isEqualTo(1);
        assertThat(s.inFlight()).isZero();
        assertThat(ran).as("no step ran").hasValue(0);
        assertThat(s.stages()).allSatisfy(st -> assertThat(st.occupied()).isZero());
    }

    @Test
    void anErrorFromThePoolAfterItTookTheBatch_endsTheBatchOnce() throws Exception {
        // Found by a review: the pool can throw after handing the batch to a worker (here its
        // submitted counter, on the submitting thread); submit failed the batch, and the worker ran
        // and ended it again: counted twice, inFlight -1, stage 1 occupied -1.
        Pipeline p = Pipeline.builder().name(Invariants.uniqueName("handed")).concurrency(1, 1).build();
        OutOfMemoryError boom = new OutOfMemoryError("simulated");
        AtomicBoolean armed = throwOnceAfterTheHandOff(p, () -> {
            throw boom;
        });
        CountDownLatch ran = new CountDownLatch(1);
        assertThatThrownBy(() -> p.submit(ran::countDown, () -> { })).isSameAs(boom);
        assertThat(armed).as("the pool threw where the test meant it to").isFalse();
        p.close(); // waits for the worker too
        Pipeline.Stats s = p.stats();
        assertThat(s.submitted()).isEqualTo(1);
        assertThat(s.completed() + s.failed() + s.stopped()).as(s.toString()).isEqualTo(1);
        assertThat(s.inFlight()).isZero();
        assertThat(s.stages()).allSatisfy(st -> assertThat(st.occupied()).isZero());
    }

    @Test
    void closeFromAListenerToldOfARefusal_throwsInsteadOfWaitingForTheBatchItsThreadHandsOver() throws Exception {
        // Found by a review (helper-122): the pool tells its listeners of a refusal on the thread
        // in submit, which alone ends the refused batch once the pool returns; a listener's close()
        // there passed the own-thread check and waited for that batch for ever.
        Pipeline p = pipeline(1);
        java.lang.reflect.Field workers = Pipeline.class.getDeclaredField("workers");
        workers.setAccessible(true);
        java.lang.reflect.Field factory = io.github.workerpool.WorkerPool.class.getDeclaredField("threadFactory");
        factory.setAccessible(true);
        factory.set(workers.get(p), (java.util.concurrent.ThreadFactory) (r) -> null); // no thread: refused
        AtomicReference<Object> fromClose = new AtomicReference<>();
        p.pool().addListener(new PoolListener() {
            @Override
            public void taskRejected(Pool pool, java.util.concurrent.RejectedExecutionException rejection) {
                try {
                    p.close();
                    fromClose.set("closed");
                } catch (Throwable t) {
                    fromClose.set(t);
                }
            }
        });
        AtomicReference<Object> submitted = new AtomicReference<>();
        Thread feeder = new Thread(() -> {
            try {
                submitted.set(p.submit(() -> { }));
            } catch (Throwable t) {
                submitted.set(t);
            }
        }, "feeder");
        feeder.setDaemon(true); // should it hang, it must not keep the test JVM alive
        feeder.start();
        feeder.join(WAIT.toMillis());
        assertThat(feeder.isAlive()).as("submit returned").isFalse();
        assertThat(submitted.get()).as("refused").isEqualTo(false);
        assertThat(fromClose.get()).isInstanceOf(IllegalStateException.class);
        assertThat((Throwable) fromClose.get()).hasMessageContaining("while batch 1 is handed to the pool");
        assertThat(p.stats().failed()).isEqualTo(1);
        p.close();
    }

    @Test
    void aRefusalFromThePoolAfterAWorkerTookTheBatch_isNoRefusal_theBatchRuns() throws Exception {
        // Review helper-84: submit threw the refusal (or returned false) for a batch a worker
        // already ran. The worker claims it first here: the pool's counter throws only once the
        // batch's first step runs.
        Pipeline p = Pipeline.builder().name(Invariants.uniqueName("refused-late")).concurrency(1, 1).build();
        CountDownLatch firstStepRuns = new CountDownLatch(1);
        AtomicBoolean armed = throwOnceAfterTheHandOff(p, () -> {
            Latches.pass(firstStepRuns);
            throw new java.util.concurrent.RejectedExecutionException("simulated, after the hand-off");
        });
        assertThat(p.submit(firstStepRuns::countDown, () -> { })).isTrue();
        assertThat(armed).as("the pool threw where the test meant it to").isFalse();
        p.await(WAIT);
        Pipeline.Stats s = p.stats();
        assertThat(s.completed()).as(s.toString()).isEqualTo(1);
        assertThat(s.failed() + s.stopped()).isZero();
        p.close();
    }

    /**
     * Makes the pipeline's pool throw, once, on the submitting thread after it handed the batch to
     * a worker (its submitted counter, bumped after the worker starts): {@code thrower} throws.
     * The returned flag turns false once it has.
     */
    private static AtomicBoolean throwOnceAfterTheHandOff(Pipeline p, Runnable thrower) throws Exception {
        java.lang.reflect.Field workers = Pipeline.class.getDeclaredField("workers");
        workers.setAccessible(true);
        java.lang.reflect.Field countersField = io.github.workerpool.WorkerPool.class.getDeclaredField("counters");
        countersField.setAccessible(true);
        Object counters = countersField.get(workers.get(p));
        java.lang.reflect.Field submitted = counters.getClass().getDeclaredField("submitted");
        submitted.setAccessible(true);
        Thread me = Thread.currentThread();
        AtomicBoolean armed = new AtomicBoolean(true);
        submitted.set(counters, new java.util.concurrent.atomic.LongAdder() {
            @Override
            public void increment() {
                if (Thread.currentThread() == me && armed.getAndSet(false)) {
                    thrower.run();
                }
                super.increment();
            }
        });
        return armed;
    }

    /** Makes entering {@code stage} throw a (simulated) StackOverflowError, as a wait could; returns it. */
    private static StackOverflowError throwOnEntering(Pipeline p, int stage) {
        StackOverflowError boom = new StackOverflowError("simulated");
        p.enterListener = (batch, entered) -> {
            if (entered == stage) {
                throw boom;
            }
        };
        return boom;
    }
}
