package io.github.workerpool.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

import io.github.workerpool.WorkerPool;
import io.github.workerpool.adaptive.AdaptiveCapacity;
import io.github.workerpool.adaptive.Algorithm;

/**
 * The proof of adaptive capacity: not a JMH benchmark but a load harness, because what it measures
 * is how a limit moves over seconds. A fake backend of true capacity K (a fair {@link Semaphore}
 * of K permits held for a sleep of {@code base} ms: beyond K tasks in flight, tasks wait for a
 * permit and run time rises) behind a pool, fed open-loop (arrivals on a schedule, whatever the
 * pool does) at several rates and in a step from half to twice the backend's capacity. Each
 * algorithm starts at K/4; the static capacities K/4, K and 4K are the yardstick. Per run:
 * throughput, end-to-end p50 and p99 (from each task's scheduled arrival, so that a late
 * generator does not hide the waits it caused: coordinated omission), the generator's lateness,
 * run time p50 and p99, rejections, the load average, and the capacity every 100 ms. Below K a
 * "no pool" row (a thread per task) measures the machine's own tail the same way.
 *
 * <p>Results depend on sleeps, not on CPU: a run uses a few percent of one core, so a shared
 * machine shifts them little (sleep overshoot shows in the p99). Writes JSON for
 * {@code adaptive_chart.py}.
 *
 * <pre>
 *   java -cp pool-benchmarks/target/benchmarks.jar io.github.workerpool.benchmarks.AdaptiveHarness \
 *        [--k 32] [--base-ms 100] [--seconds 20] [--late-after 1.15] [--out results/adaptive.json] [--only aimd]
 * </pre>
 */
public final class AdaptiveHarness {

    /**
     * One pool setup: an algorithm starting at K/4, or a static capacity; or, with {@code noPool},
     * the baseline: no pool at all, a new thread per task (JDK cached threads), which shows what
     * the machine itself adds to a 100 ms sleep at that load.
     */
    public record Config(String name, Algorithm algorithm, int capacity, boolean noPool) {

        Config(String name, Algorithm algorithm, int capacity) {
            this(name, algorithm, capacity, false);
        }
    }

    /** A load: {@code rate} x the backend's capacity (K / base per second), stepping to {@code stepRate} at {@code stepAt}. */
    public record Load(String name, double rate, double stepRate, double stepAtFraction) {
    }

    /** The result of one run. */
    public record Run(String load, String config, double throughput, double steadyThroughput, long completed,
            long rejected, double p50Ms,
            double p99Ms, double steadyP99Ms, double runP50Ms, double runP99Ms, double settleSeconds,
            double inBandAfter10s, double meanLimitAfter10s, double lateP99Ms, String machineLoad, int[] limits) {
    }

    /** The harness's settings. */
    public record Settings(int k, long baseMillis, double seconds, double lateAfter) {
    }

    /** Held so that its level sticks: the on/off INFO lines of every run would bury the results. */
    private static final java.util.logging.Logger ADAPTIVE_LOG =
            java.util.logging.Logger.getLogger("io.github.workerpool.adaptive.AdaptiveCapacity");

    private AdaptiveHarness() {
    }

    /** The configurations compared: each algorithm from K/4, and static K/4, K, 4K. */
    public static List<Config> configs(int k) {
        return List.of(new Config("gradient2", Algorithm.GRADIENT2, k / 4), new Config("aimd", Algorithm.AIMD, k / 4),
                new Config("vegas", Algorithm.VEGAS, k / 4), new Config("static K/4", null, k / 4),
                new Config("static K", null, k), new Config("static 4K", null, 4 * k),
                new Config("no pool", null, -1, true));
    }

    /** The loads: steady at 0.5, 1.25 and 2 x the backend's capacity, and a step from 0.5 to 2. */
    public static List<Load> loads() {
        return List.of(new Load("0.5K", 0.5, 0.5, 1), new Load("1.25K", 1.25, 1.25, 1), new Load("2K", 2, 2, 1),
                new Load("step 0.5K->2K", 0.5, 2, 1.0 / 3));
    }

    /**
     * Runs one configuration under one load.
     * @param settings K, the base latency, the run's length, the run timeout (x base) that AIMD backs off on
     * @param config the pool setup
     * @param load the load
     * @return what was measured
     */
    public static Run run(Settings settings, Config config, Load load) throws InterruptedException {
        int k = settings.k();
        long baseNanos = TimeUnit.MILLISECONDS.toNanos(settings.baseMillis());
        Semaphore backend = new Semaphore(k, true);
        WorkerPool.Builder builder = WorkerPool.builder().name("adaptive-" + config.name().replace(' ', '-'))
            .capacity(Math.max(1, config.capacity())).queueCapacity(4 * k).nonblocking(true);
        if (config.algorithm() == Algorithm.AIMD) {
            builder.runTimeout(Duration.ofNanos((long) (baseNanos * settings.lateAfter())));
        }
        WorkerPool pool = config.noPool() ? null : builder.build();
        ExecutorService threads = config.noPool() ? Executors.newCachedThreadPool() : null;
        Executor executor = config.noPool() ? threads : pool;
        AdaptiveCapacity adaptive = (config.algorithm() == null) ? null
                : AdaptiveCapacity.builder().algorithm(config.algorithm()).minCapacity(1).maxCapacity(8 * k).attach(pool);

        long runNanos = (long) (settings.seconds() * 1e9);
        double capacityPerSecond = k * 1e9 / baseNanos;
        int expected = (int) (Math.max(load.rate(), load.stepRate()) * capacityPerSecond * settings.seconds() * 1.2) + 1000;
        long[] latencies = new long[expected];
        long[] runTimes = new long[expected];
        long[] submitTimes = new long[expected];
        long[] lateness = new long[expected];
        AtomicInteger recorded = new AtomicInteger();
        AtomicLong rejected = new AtomicLong();
        int[] limits = new int[(int) (settings.seconds() * 10) + 1];

        long start = System.nanoTime();
        long stepAt = start + (long) (runNanos * load.stepAtFraction());
        long end = start + runNanos;
        long nextSample = start;
        int samples = 0;
        long submitted = 0;
        double due = 0;
        long last = start;
        while (true) {
            long now = System.nanoTime();
            if (now >= end) {
                break;
            }
            double rate = (now < stepAt ? load.rate() : load.stepRate()) * capacityPerSecond;
            double dueBefore = due;
            due += (now - last) * rate / 1e9;
            long lastBefore = last;
            last = now;
            while (submitted < (long) due) {
                submitted++;
                // Coordinated omission: latency counts from when the task was due on the schedule
                // (due crossed it between lastBefore and now), not from when this thread, waking
                // late from its 1 ms park or stalled by the machine, got round to submitting it.
                long submittedAt = lastBefore + (long) ((submitted - dueBefore) * 1e9 / rate);
                long late = System.nanoTime() - submittedAt;
                try {
                    executor.execute(() -> {
                        long started = System.nanoTime();
                        backend.acquireUninterruptibly();
                        try {
                            // The backend's time from the permit on; parkNanos may wake early, so it is a floor.
                            long until = System.nanoTime() + baseNanos;
                            for (long left = baseNanos; left > 0; left = until - System.nanoTime()) {
                                LockSupport.parkNanos(left);
                            }
                        }
                        finally {
                            backend.release();
                        }
                        long ended = System.nanoTime();
                        int i = recorded.getAndIncrement();
                        if (i < latencies.length) {
                            latencies[i] = ended - submittedAt;
                            runTimes[i] = ended - started;
                            submitTimes[i] = submittedAt;
                            lateness[i] = late;
                        }
                    });
                }
                catch (RejectedExecutionException ex) {
                    rejected.incrementAndGet();
                }
            }
            while (now >= nextSample && samples < limits.length) {
                limits[samples++] = config.noPool() ? 0 : pool.capacity();
                nextSample += TimeUnit.MILLISECONDS.toNanos(100);
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
        long elapsed = System.nanoTime() - start;
        int completedInRun = Math.min(recorded.get(), latencies.length);
        if (adaptive != null) {
            adaptive.close();
        }
        if (pool != null) {
            pool.release();
            pool.awaitTermination(Duration.ofMinutes(1));
        }
        else {
            threads.shutdown();
            threads.awaitTermination(1, TimeUnit.MINUTES);
        }
        int n = Math.min(completedInRun, latencies.length);
        // Steady: tasks submitted from 10 s on (from half the run in shorter runs), after the start-up.
        long steadyFrom = start + Math.min(TimeUnit.SECONDS.toNanos(10), runNanos / 2);
        long[] steady = java.util.stream.IntStream.range(0, n).filter((i) -> submitTimes[i] - steadyFrom >= 0)
            .mapToLong((i) -> latencies[i]).sorted().toArray();
        long[] steadyLate = java.util.stream.IntStream.range(0, n).filter((i) -> submitTimes[i] - steadyFrom >= 0)
            .mapToLong((i) -> lateness[i]).sorted().toArray();
        long steadyEnded = java.util.stream.IntStream.range(0, n)
            .filter((i) -> submitTimes[i] + latencies[i] - steadyFrom >= 0 && submitTimes[i] + latencies[i] - end < 0)
            .count();
        double steadyThroughput = steadyEnded * 1e9 / (end - steadyFrom);
        long[] e2e = Arrays.copyOf(latencies, n);
        long[] run = Arrays.copyOf(runTimes, n);
        Arrays.sort(e2e);
        Arrays.sort(run);
        int[] series = Arrays.copyOf(limits, samples);
        return new Run(load.name(), config.name(), n * 1e9 / elapsed, steadyThroughput, n, rejected.get(), ms(percentile(e2e, 0.5)),
                ms(percentile(e2e, 0.99)), ms(percentile(steady, 0.99)), ms(percentile(run, 0.5)), ms(percentile(run, 0.99)),
                settleSeconds(series, k), inBand(series, k, 100), meanFrom(series, 100), ms(percentile(steadyLate, 0.99)),
                loadAverage(), series);
    }

    /** Seconds until the capacity enters [0.75K, 1.25K] and stays there to the end; -1 if it never does. */
    static double settleSeconds(int[] series, int k) {
        int lastOutside = -1;
        for (int i = 0; i < series.length; i++) {
            if (series[i] < 0.75 * k || series[i] > 1.25 * k) {
                lastOutside = i;
            }
        }
        return (lastOutside == series.length - 1) ? -1 : (lastOutside + 1) / 10.0;
    }

    /** The share of samples from {@code from} on inside [0.75K, 1.25K]. */
    static double inBand(int[] series, int k, int from) {
        int in = 0;
        int all = 0;
        for (int i = from; i < series.length; i++) {
            all++;
            if (series[i] >= 0.75 * k && series[i] <= 1.25 * k) {
                in++;
            }
        }
        return (all == 0) ? Double.NaN : (double) in / all;
    }

    static double meanFrom(int[] series, int from) {
        return Arrays.stream(series).skip(from).average().orElse(Double.NaN);
    }

    private static long percentile(long[] sorted, double p) {
        return (sorted.length == 0) ? 0 : sorted[Math.min(sorted.length - 1, (int) Math.ceil(p * sorted.length) - 1)];
    }

    private static double ms(long nanos) {
        return nanos / 1e6;
    }

    /** Runs every configuration under every load and writes the JSON. */
    public static void main(String[] args) throws Exception {
        int k = 32;
        long base = 100;
        double seconds = 20;
        double lateAfter = 1.15;
        String out = "pool-benchmarks/results/adaptive.json";
        String only = null;
        String loadOnly = null;
        for (int i = 0; i < args.length; i += 2) {
            switch (args[i]) {
                case "--k" -> k = Integer.parseInt(args[i + 1]);
                case "--base-ms" -> base = Long.parseLong(args[i + 1]);
                case "--seconds" -> seconds = Double.parseDouble(args[i + 1]);
                case "--late-after" -> lateAfter = Double.parseDouble(args[i + 1]);
                case "--out" -> out = args[i + 1];
                case "--only" -> only = args[i + 1];
                case "--load" -> loadOnly = args[i + 1];
                default -> throw new IllegalArgumentException("unknown option " + args[i]
                        + "; options: --k, --base-ms, --seconds, --late-after, --out, --only <config>, --load <load>");
            }
        }
        ADAPTIVE_LOG.setLevel(java.util.logging.Level.WARNING);
        Settings settings = new Settings(k, base, seconds, lateAfter);
        System.out.printf(Locale.ROOT, "K=%d base=%d ms (%.0f tasks/s) run=%.0f s, aimd late after %.2f x base, Java %s%n",
                k, base, k * 1000.0 / base, seconds, lateAfter, Runtime.version());
        List<Run> runs = new ArrayList<>();
        for (Load load : loads()) {
            if (loadOnly != null && !load.name().equals(loadOnly)) {
                continue;
            }
            for (Config config : configs(k)) {
                if (only != null && !config.name().equals(only)) {
                    continue;
                }
                // Without a pool, load above K piles up threads without end: the baseline is for loads below K.
                if (config.noPool() && Math.max(load.rate(), load.stepRate()) >= 1) {
                    continue;
                }
                Run r = run(settings, config, load);
                runs.add(r);
                System.out.printf(Locale.ROOT,
                        "%-14s %-11s %7.0f/s (steady %7.0f/s) rejected %6d  p50 %6.1f ms  p99 %7.1f ms (steady %7.1f)  run p99 %6.1f ms  settle %5.1f s"
                                + "  in band after 10 s %4.0f%%  mean limit after 10 s %6.1f  generator late p99 %5.1f ms  load average %s%n",
                        r.load(), r.config(), r.throughput(), r.steadyThroughput(), r.rejected(), r.p50Ms(), r.p99Ms(), r.steadyP99Ms(), r.runP99Ms(),
                        r.settleSeconds(), 100 * r.inBandAfter10s(), r.meanLimitAfter10s(), r.lateP99Ms(), r.machineLoad());
            }
        }
        Path path = Path.of(out);
        if (path.getParent() != null) {
            Files.createDirectories(path.getParent());
        }
        Files.writeString(path, json(settings, runs));
        System.out.println("JSON: " + path);
    }

    static String json(Settings s, List<Run> runs) {
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "{\"k\": %d, \"baseMs\": %d, \"seconds\": %s, \"lateAfter\": %s, "
                + "\"java\": \"%s\", \"runs\": [\n", s.k(), s.baseMillis(), s.seconds(), s.lateAfter(), Runtime.version()));
        for (int i = 0; i < runs.size(); i++) {
            Run r = runs.get(i);
            out.append(String.format(Locale.ROOT, "  {\"load\": \"%s\", \"config\": \"%s\", \"throughput\": %.1f, "
                    + "\"steadyThroughput\": %.1f, "
                    + "\"completed\": %d, \"rejected\": %d, \"p50Ms\": %.2f, \"p99Ms\": %.2f, \"steadyP99Ms\": %.2f, \"runP50Ms\": %.2f, "
                    + "\"runP99Ms\": %.2f, \"settleSeconds\": %.1f, \"inBandAfter10s\": %.3f, \"meanLimitAfter10s\": %.2f, "
                    + "\"lateP99Ms\": %.2f, \"loadAverage\": \"%s\", \"limits\": %s}%s%n", r.load(), r.config(), r.throughput(), r.steadyThroughput(), r.completed(), r.rejected(), r.p50Ms(),
                    r.p99Ms(), r.steadyP99Ms(), r.runP50Ms(), r.runP99Ms(), r.settleSeconds(), nan(r.inBandAfter10s()),
                    nan(r.meanLimitAfter10s()), r.lateP99Ms(), r.machineLoad(), Arrays.toString(r.limits()), (i < runs.size() - 1) ? "," : ""));
        }
        return out.append("]}\n").toString();
    }

    /** The machine's load average over the last minute, as uptime shows it; "?" where there is none. */
    static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
        }
        catch (IOException | RuntimeException ex) {
            return "?";
        }
    }

    private static double nan(double x) {
        return Double.isNaN(x) ? -1 : x;
    }
}
