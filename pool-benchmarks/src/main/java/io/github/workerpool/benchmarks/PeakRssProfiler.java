package io.github.workerpool.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;

/**
 * A JMH profiler reporting the fork's peak resident set size ({@code VmHWM} of
 * {@code /proc/self/status}, Linux only) after each iteration, as the secondary result
 * {@code rss.peak} in MB. Use {@code -prof io.github.workerpool.benchmarks.PeakRssProfiler}; run
 * each case in its own fork (JMH's default) so the peak belongs to that case alone.
 */
public final class PeakRssProfiler implements InternalProfiler {

    @Override
    public String getDescription() {
        return "peak RSS of the benchmark JVM (VmHWM), MB";
    }

    @Override
    public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
    }

    @Override
    public Collection<? extends Result> afterIteration(BenchmarkParams benchmarkParams,
            IterationParams iterationParams, IterationResult result) {
        long kb = vmHwmKb();
        if (kb < 0) {
            return List.of();
        }
        return List.of(new ScalarResult("rss.peak", kb / 1024.0, "MB", AggregationPolicy.MAX));
    }

    /** Prints the peak RSS so far after {@code what} (the ants benchmarks' tear-down), where /proc has it. */
    static void print(String what) {
        long kb = vmHwmKb();
        if (kb >= 0) {
            System.out.println("peak RSS (VmHWM) after " + what + ": " + kb / 1024 + " MB");
        }
    }

    /** VmHWM in kB, or -1 where /proc is missing. */
    static long vmHwmKb() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmHWM:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
        } catch (IOException | RuntimeException e) {
            return -1;
        }
        return -1;
    }
}
