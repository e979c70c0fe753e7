package io.github.workerpool;

import io.github.workerpool.pipeline.Pipeline;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Registered with {@code @RegisterExtension}: every pool, group or pipeline a test tracks is
 * checked after the test, once quiet, for counts that add up; then closed, and no thread of it
 * may outlive its termination.
 */
public final class Invariants implements AfterEachCallback {

    private static final Duration QUIET = Duration.ofSeconds(10);
    private static final AtomicInteger SEQ = new AtomicInteger();

    private final List<Runnable> checks = new ArrayList<>();
    private final List<AutoCloseable> closers = new ArrayList<>();
    private final List<String> threadPrefixes = new ArrayList<>();

    /**
     * An await for a teardown check that usually holds already: checked at once, then every 10 ms
     * (Awaitility's default first waits its 100 ms poll interval, which cost a MultiPool's test
     * half a second for its five checks).
     */
    private static org.awaitility.core.ConditionFactory quietly(String what) {
        return await(what).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(10)).atMost(QUIET);
    }

    /** Returns a name unique in this JVM, so that thread-name checks see only this test's threads. */
    public static String uniqueName(String base) {
        return base + SEQ.incrementAndGet();
    }

    public <P extends WorkerPool> P track(P pool) {
        checks.add(() -> assertPoolAddsUp(pool.name(), pool::stats));
        closers.add(pool);
        threadPrefixes.add(pool.name() + "-");
        return pool;
    }

    public <T> FunctionPool<T> track(FunctionPool<T> pool) {
        checks.add(() -> assertPoolAddsUp(pool.name(), pool::stats));
        closers.add(pool);
        threadPrefixes.add(pool.name() + "-");
        return pool;
    }

    public MultiPool track(MultiPool pools) {
        checks.add(() -> {
            for (WorkerPool p : pools.pools()) {
                assertPoolAddsUp(p.name(), p::stats);
            }
            assertPoolAddsUp(pools.name(), pools::stats);
        });
        closers.add(pools);
        threadPrefixes.add(pools.name() + "-");
        return pools;
    }

    public <R> TaskGroup<R> track(TaskGroup<R> group) {
        checks.add(() -> {
            quietly("group quiet").until(() -> group.counts().pending() == 0);
            // Against the tasks' own states (the counts alone add up by construction).
            TaskGroup.Counts c = group.counts();
            List<TaskGroup.Task<R>> tasks = group.tasks();
            assertThat(new TaskGroup.Counts(tasks.size(), (int) tasks.stream().filter((t) -> !t.isDone()).count(),
                    (int) tasks.stream().filter(TaskGroup.Task::isSucceeded).count(),
                    (int) tasks.stream().filter(TaskGroup.Task::isFailed).count(),
                    (int) tasks.stream().filter(TaskGroup.Task::isCancelled).count()))
                .as("group counts against its tasks' states").isEqualTo(c);
        });
        return group;
    }

    public Pipeline track(Pipeline pipeline) {
        checks.add(() -> {
            quietly("pipeline quiet").until(() -> pipeline.stats().inFlight() == 0);
            // (submitted == completed + failed + stopped + inFlight holds by construction: inFlight is the difference.)
            Pipeline.Stats s = pipeline.stats();
            for (Pipeline.StageStats st : s.stages()) {
                assertThat(st).as("stage counts of a quiet pipeline").isEqualTo(
                        new Pipeline.StageStats(st.stage(), st.concurrency(), 0, 0, 0));
            }
        });
        closers.add(pipeline);
        threadPrefixes.add(pipeline.name() + "-");
        return pipeline;
    }

    /** Asserts, once the pool is quiet, that submitted == completed + failed + rejected + cancelled + running + queued. */
    public static void assertPoolAddsUp(String what, java.util.function.Supplier<PoolStats> stats) {
        quietly(what + " quiet and adding up").untilAsserted(() -> {
            PoolStats s = stats.get();
            assertThat(s.running() + s.queued() + s.waiting()).as(what + " busy: " + s).isZero();
            assertThat(s.submitted()).as(what + ": submitted == completed + failed + rejected + cancelled + running + queued, " + s)
                    .isEqualTo(s.completed() + s.failed() + s.rejected() + s.cancelled() + s.running() + s.queued());
        });
    }

    /** Runs the checks now (tests that want to assert mid-way); they run again after the test. */
    public void checkNow() {
        checks.forEach(Runnable::run);
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        try {
            checks.forEach(Runnable::run);
        } finally {
            for (AutoCloseable c : closers) {
                c.close();
            }
        }
        for (String prefix : threadPrefixes) {
            quietly("threads " + prefix + "* to exit").untilAsserted(() ->
                    assertThat(Thread.getAllStackTraces().keySet())
                            .filteredOn(t -> t.getName().startsWith(prefix) && t.isAlive())
                            .extracting(Thread::getName)
                            .isEmpty());
        }
    }
}
