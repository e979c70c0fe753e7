package io.github.workerpool.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.function.Executable;
import org.junit.jupiter.api.Timeout;
import org.openjdk.jmh.annotations.Param;

/**
 * The quick smoke run by the normal build: every benchmark method, for every peer in its
 * {@code @Param} list, runs once on tiny sizes and finishes. Asserts that each one runs, never a
 * timing. Peers that need virtual threads are skipped on Java 17.
 */
@Timeout(60)
class BenchmarksSmokeTest {

    /** How long one case may take: a lost task parks a benchmark for ever, and CI with it. */
    private static final Duration CASE_TIMEOUT = Duration.ofSeconds(60);

    /**
     * A dynamic test that fails after {@link #CASE_TIMEOUT}: the class's {@code @Timeout} times the
     * factory methods only, not the tests they return (review helper-165).
     */
    private static DynamicTest timed(String name, Executable executable) {
        return dynamicTest(name, () -> assertTimeoutPreemptively(CASE_TIMEOUT, executable,
                () -> name + " did not finish within " + CASE_TIMEOUT.toSeconds() + " s"));
    }

    private static List<String> peersOf(Class<?> benchmark) throws NoSuchFieldException {
        return Arrays.asList(benchmark.getField("peer").getAnnotation(Param.class).value());
    }

    /**
     * Skips a virtual-thread case on Java 17, unless {@code -Dworkerpool.requireVirtualThreads=true}
     * (CI's newest-JDK pass), where a JVM without virtual threads fails the case instead.
     */
    private static void assumeRunnable(boolean needsVirtualThreads) {
        if (!needsVirtualThreads) {
            return;
        }
        boolean supported = Peer.virtualThreadsSupported();
        if (Boolean.getBoolean("workerpool.requireVirtualThreads")) {
            assertThat(supported).as("virtual threads required on Java " + Runtime.version()).isTrue();
        }
        assumeTrue(supported, "virtual threads need Java 21+");
    }

    @TestFactory
    Stream<DynamicTest> tinyTasks() throws Exception {
        List<DynamicTest> tests = new ArrayList<>();
        for (String peer : peersOf(TinyTaskBenchmark.class)) {
            for (int producers : new int[] {1, 2}) {
                tests.add(timed(peer + " producers=" + producers, () -> {
                    assumeRunnable(Peer.of(peer).needsVirtualThreads());
                    TinyTaskBenchmark b = new TinyTaskBenchmark();
                    b.peer = peer;
                    b.n = 2;
                    b.producers = producers;
                    b.work = 16;
                    b.batchSize = 200;
                    b.setUp();
                    try {
                        b.tasks();
                        b.tasks();
                    } finally {
                        b.tearDown();
                    }
                }));
            }
        }
        return tests.stream();
    }

    @TestFactory
    Stream<DynamicTest> queueModes() throws Exception {
        List<DynamicTest> tests = new ArrayList<>();
        for (String config : Arrays.asList(QueueModesBenchmark.class.getField("config").getAnnotation(Param.class).value())) {
            for (String peer : peersOf(QueueModesBenchmark.class)) {
                for (int producers : new int[] {1, 2}) {
                    tests.add(timed(config + " " + peer + " producers=" + producers, () -> {
                        QueueModesBenchmark b = new QueueModesBenchmark();
                        b.config = config;
                        b.peer = peer;
                        b.n = 2;
                        b.producers = producers;
                        b.batchSize = 300;
                        b.setUp();
                        try {
                            QueueModesBenchmark.Outcome outcome = new QueueModesBenchmark.Outcome();
                            b.tasks(outcome);
                            b.tasks(outcome);
                            // Only a rejecting config refuses; every task a batch accepted ran (run() waits for them).
                            if (!config.startsWith("abort-")) {
                                assertThat(outcome.rejected).as("rejected").isZero();
                            }
                            assertThat(outcome.accepted).as("accepted").isPositive();
                            assertThat(outcome.accepted + outcome.rejected).isEqualTo(600);
                        } finally {
                            b.tearDown();
                        }
                    }));
                }
            }
        }
        return tests.stream();
    }

    @TestFactory
    Stream<DynamicTest> springLayer() throws Exception {
        return Arrays.asList(SpringLayerBenchmark.class.getField("executor").getAnnotation(Param.class).value())
                .stream().map(executor -> timed(executor, () -> {
                    SpringLayerBenchmark b = new SpringLayerBenchmark();
                    b.executor = executor;
                    b.n = 2;
                    b.queue = Integer.MAX_VALUE;
                    b.producers = 2;
                    b.batchSize = 200;
                    b.setUp();
                    try {
                        b.tasks();
                        b.tasks();
                    } finally {
                        b.tearDown();
                    }
                }));
    }

    @Test
    void scrape() throws Exception {
        ScrapeBenchmark b = new ScrapeBenchmark();
        b.queued = 1_000;
        b.setUp();
        try {
            ScrapeBenchmark.FreshRead fresh = new ScrapeBenchmark.FreshRead();
            fresh.waitMillis = 0;
            assertThat(b.scrape(fresh)).contains("executor_queued_tasks");
            assertThat(b.stats().queued()).isEqualTo(1_000);
        } finally {
            b.tearDown();
        }
    }

    @TestFactory
    Stream<DynamicTest> contention() throws Exception {
        return peersOf(ContentionBenchmark.class).stream().map(peer -> timed(peer, () -> {
            ContentionBenchmark b = new ContentionBenchmark();
            b.peer = peer;
            b.n = 4;
            b.producers = 4;
            b.batchSize = 200;
            b.setUp();
            try {
                b.tasks();
            } finally {
                b.tearDown();
            }
        }));
    }

    @TestFactory
    Stream<DynamicTest> tune() throws Exception {
        return peersOf(TuneBenchmark.class).stream().map(peer -> timed(peer, () -> {
            TuneBenchmark b = new TuneBenchmark();
            b.peer = peer;
            b.low = 1;
            b.high = 4;
            b.periodMs = 1;
            b.batchSize = 2_000;
            b.setUp();
            try {
                b.tasks();
            } finally {
                b.tearDown();
            }
        }));
    }

    @TestFactory
    Stream<DynamicTest> ants() throws Exception {
        return peersOf(AntsBenchmark.class).stream().map(peer -> timed(peer, () -> {
            assumeRunnable(Peer.of(peer).needsVirtualThreads());
            AntsBenchmark b = new AntsBenchmark();
            b.peer = peer;
            b.tasks = 200;
            b.capacity = 50;
            b.sleepMs = 1;
            b.setUp();
            try {
                b.run();
            } finally {
                b.tearDown();
            }
        }));
    }

    @TestFactory
    Stream<DynamicTest> antsFloor() throws Exception {
        // The defaults, and "queue", which run.sh leaves out (platform threads take at most 1,000 there).
        String[] backlogs = Stream.concat(Arrays.stream(AntsFloorBenchmark.class.getField("backlog").getAnnotation(Param.class).value()),
                Stream.of("queue")).distinct().toArray(String[]::new);
        return Arrays.stream(AntsFloorBenchmark.class.getField("threads").getAnnotation(Param.class).value())
                .flatMap(threads -> Arrays.stream(backlogs).map(backlog -> timed(threads + ", backlog " + backlog, () -> {
                    assumeRunnable("virtual".equals(threads));
                    AntsFloorBenchmark b = new AntsFloorBenchmark();
                    b.threads = threads;
                    b.backlog = backlog;
                    b.tasks = 200;
                    b.capacity = 50;
                    b.sleepMs = 1;
                    b.run();
                    b.tearDown();
                })));
    }

    @TestFactory
    Stream<DynamicTest> latency() throws Exception {
        return peersOf(LatencyBenchmark.class).stream().map(peer -> timed(peer, () -> {
            assumeRunnable(Peer.of(peer).needsVirtualThreads());
            LatencyBenchmark b = new LatencyBenchmark();
            b.peer = peer;
            b.load = 50;
            b.n = 2;
            b.serviceUs = 200;
            b.setUp();
            try {
                for (int i = 0; i < 20; i++) {
                    assertThat(b.submitToStart()).isTrue();
                }
            } finally {
                b.tearDown();
            }
        }));
    }

    @TestFactory
    Stream<DynamicTest> pingPong() {
        return Stream.of("park", "spin").map(mode -> timed(mode, () -> {
            PingPongBenchmark b = new PingPongBenchmark();
            b.mode = mode;
            b.setUp();
            try {
                for (int i = 1; i <= 100; i++) {
                    assertThat(b.roundTrip()).isEqualTo(i);
                }
            } finally {
                b.tearDown();
            }
        }));
    }

    @Test
    void spinPairs() throws Exception {
        // Two pairs from two threads, as JMH's @Threads(2) runs twoPairs; only that both run.
        SpinPairsBenchmark b = new SpinPairsBenchmark();
        SpinPairsBenchmark.Pair[] pairs = {new SpinPairsBenchmark.Pair(), new SpinPairsBenchmark.Pair()};
        for (SpinPairsBenchmark.Pair p : pairs) {
            p.setUp();
        }
        try {
            Thread other = new Thread(() -> {
                for (int i = 1; i <= 100; i++) {
                    b.twoPairs(pairs[1]);
                }
            });
            other.start();
            for (int i = 1; i <= 100; i++) {
                assertThat(b.onePair(pairs[0])).isEqualTo(i);
            }
            other.join(TimeUnit.SECONDS.toMillis(30));
            assertThat(other.isAlive()).as("second pair still running").isFalse();
            assertThat(pairs[1].seq).isEqualTo(100);
        } finally {
            for (SpinPairsBenchmark.Pair p : pairs) {
                p.tearDown();
            }
        }
    }

    @Test
    void mailboxes() throws Exception {
        SpinPairsBenchmark b = new SpinPairsBenchmark();
        SpinPairsBenchmark.Mailboxes m = new SpinPairsBenchmark.Mailboxes();
        m.setUp();
        try {
            Thread other = new Thread(() -> {
                for (int i = 0; i < 100; i++) {
                    b.mailboxesTwoProducers(m);
                }
            });
            other.start();
            for (int i = 0; i < 100; i++) {
                assertThat(b.mailboxesOneProducer(m)).isTrue();
            }
            other.join(TimeUnit.SECONDS.toMillis(30));
            assertThat(other.isAlive()).as("second producer still running").isFalse();
        } finally {
            m.tearDown();
        }
    }

    @TestFactory
    Stream<DynamicTest> virtualThreads() {
        return Stream.of("reuse", "start").map(mode -> timed(mode, () -> {
            assumeRunnable(true);
            VirtualThreadBenchmark b = new VirtualThreadBenchmark();
            b.mode = mode;
            b.batchSize = 100;
            b.setUp();
            try {
                b.tasks();
                b.tasks();
            } finally {
                b.tearDown();
            }
        }));
    }

    @Test
    void theNoPoolPipeRunsEveryQueueMode() throws Exception {
        for (String config : QueueModesBenchmark.class.getField("config").getAnnotation(Param.class).value()) {
            try (Target pipe = QueueModesBenchmark.create(config, "Pipe", 2);
                    Batch batch = new Batch(pipe, 2, 0, config.startsWith("abort-"))) {
                batch.run(200);
            }
        }
    }

    @Test
    void everyPeerIsInTheTinyTaskBenchmark() throws Exception {
        // Two peers are for the ants workload only. WorkerPool-queue-n (a queue as long as the pool
        // is wide): with tiny tasks at n = 2 it is a queue of 2, which QueueModesBenchmark's configs
        // cover. TPE-LBQ-virtual (a TPE of virtual threads): the virtual-worker queue mode's
        // same-semantics peer on that workload; with tiny tasks, TPE-LBQ is. MultiPool-least is for
        // ContentionBenchmark: what its balancing costs against MultiPool's round-robin.
        List<String> labels = Arrays.stream(Peer.values()).map(Peer::label)
                .filter(label -> !label.equals("WorkerPool-queue-n") && !label.equals("TPE-LBQ-virtual")
                        && !label.equals("MultiPool-least")).toList();
        assertThat(peersOf(TinyTaskBenchmark.class)).containsExactlyInAnyOrderElementsOf(labels);
    }

    @Test
    void sharedLine() {
        SharedLineBenchmark b = new SharedLineBenchmark();
        SharedLineBenchmark.Shared shared = new SharedLineBenchmark.Shared();
        SharedLineBenchmark.Own own = new SharedLineBenchmark.Own();
        for (int i = 1; i <= 100; i++) {
            assertThat(b.shared(shared)).isEqualTo(i);
            assertThat(b.own(own)).isEqualTo(i);
        }
    }

    @Test
    void processCpuTimeIsRead() {
        long before = CpuTimeProfiler.processCpuNanos();
        assertThat(before).isPositive();
        // Linux counts a process's CPU time in clock ticks (10 ms): a fixed bit of work could end
        // within one tick and read the same (it did in CI). Work until it moves, 5 s of wall at most.
        long x = 0;
        long after = before;
        for (long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                after <= before && System.nanoTime() - deadline < 0; ) {
            for (int i = 0; i < 5_000_000; i++) {
                x += Long.numberOfTrailingZeros(i ^ x);
            }
            after = CpuTimeProfiler.processCpuNanos();
        }
        assertThat(after).as("after some work (%d)", x).isGreaterThan(before);
    }

    @Test
    void peakRssIsReadOnLinux() {
        assumeTrue(System.getProperty("os.name").startsWith("Linux"));
        assertThat(PeakRssProfiler.vmHwmKb()).isPositive();
    }

    /**
     * The adaptive-capacity harness (its own command, adaptive.sh): every configuration through the
     * load step for one second against a backend of capacity 4 (the no-pool baseline at 0.5K: it
     * is for loads below K); asserts that each runs and reports.
     */
    @Test
    void adaptiveHarness() throws Exception {
        AdaptiveHarness.Settings settings = new AdaptiveHarness.Settings(4, 5, 1.0, 1.5);
        AdaptiveHarness.Load step = AdaptiveHarness.loads().get(AdaptiveHarness.loads().size() - 1);
        List<AdaptiveHarness.Run> runs = new ArrayList<>();
        for (AdaptiveHarness.Config config : AdaptiveHarness.configs(4)) {
            AdaptiveHarness.Run run = AdaptiveHarness.run(settings, config,
                    config.noPool() ? AdaptiveHarness.loads().get(0) : step);
            assertThat(run.completed()).as(config.name()).isPositive();
            assertThat(run.lateP99Ms()).as(config.name()).isNotNegative();
            assertThat(run.limits()).as(config.name()).isNotEmpty();
            runs.add(run);
        }
        assertThat(AdaptiveHarness.json(settings, runs)).contains("\"config\": \"vegas\"")
            .contains("\"config\": \"no pool\"");
        assertThat(AdaptiveHarness.settleSeconds(new int[] {1, 1, 4, 4, 4}, 4)).isEqualTo(0.2);
        assertThat(AdaptiveHarness.settleSeconds(new int[] {4, 4, 1}, 4)).isEqualTo(-1);
    }
}
