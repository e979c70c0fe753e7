package io.github.workerpool.benchmarks;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.profile.InternalProfiler;
import org.openjdk.jmh.results.AggregationPolicy;
import org.openjdk.jmh.results.IterationResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.ScalarResult;

/**
 * A JMH profiler reporting the CPU time the whole fork used during each iteration (every thread:
 * producers, workers, carriers, JIT and GC), as secondary results: {@code cpu.cores}, CPU seconds
 * per wall second, and for throughput benchmarks in ops/s {@code cpu.per.op}, CPU nanoseconds per
 * operation, and {@code cpu.submit.per.op}, the part of it spent by the submitting threads (JMH's
 * benchmark threads and {@link Batch}'s helpers): what submitting costs, apart from what the
 * executor's own threads spend. On a shared VM throughput swings with how the OS schedules the
 * threads; CPU per task says what a design costs regardless of that. Use
 * {@code -prof io.github.workerpool.benchmarks.CpuTimeProfiler}.
 */
public final class CpuTimeProfiler implements InternalProfiler {

    private long cpuStart;
    private long wallStart;
    private Map<Long, Long> submitStart = Map.of();

    @Override
    public String getDescription() {
        return "process CPU time per wall second and per operation";
    }

    @Override
    public void beforeIteration(BenchmarkParams benchmarkParams, IterationParams iterationParams) {
        submitStart = submitterCpuNanos();
        cpuStart = processCpuNanos();
        wallStart = System.nanoTime();
    }

    @Override
    public Collection<? extends Result> afterIteration(BenchmarkParams benchmarkParams,
            IterationParams iterationParams, IterationResult result) {
        long wall = System.nanoTime() - wallStart;
        long cpu = processCpuNanos() - cpuStart;
        long submit = 0;
        for (Map.Entry<Long, Long> e : submitterCpuNanos().entrySet()) {
            submit += e.getValue() - submitStart.getOrDefault(e.getKey(), e.getValue());
        }
        if (cpuStart < 0 || cpu < 0 || wall <= 0) {
            return List.of();
        }
        List<Result> out = new ArrayList<>();
        out.add(new ScalarResult("cpu.cores", (double) cpu / wall, "CPUs", AggregationPolicy.AVG));
        if (benchmarkParams.getMode() == Mode.Throughput && benchmarkParams.getTimeUnit() == TimeUnit.SECONDS) {
            double ops = result.getPrimaryResult().getScore() * wall / 1e9;
            if (ops > 0) {
                out.add(new ScalarResult("cpu.per.op", cpu / ops, "ns/op", AggregationPolicy.AVG));
                if (submit > 0) {
                    out.add(new ScalarResult("cpu.submit.per.op", submit / ops, "ns/op", AggregationPolicy.AVG));
                }
            }
        }
        return out;
    }

    /**
     * CPU time so far of each thread that submits tasks: JMH's benchmark threads ("...-jmh-worker-N")
     * and Batch's helpers ("producer-N"); empty where thread CPU time is not measured.
     */
    static Map<Long, Long> submitterCpuNanos() {
        ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        if (!mx.isThreadCpuTimeSupported() || !mx.isThreadCpuTimeEnabled()) {
            return Map.of();
        }
        Map<Long, Long> cpu = new HashMap<>();
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            String name = t.getName();
            if (name.contains("-jmh-worker-") || name.startsWith(Batch.PRODUCER_THREAD_PREFIX)) {
                @SuppressWarnings("deprecation") // Thread.threadId() is Java 19+
                long id = t.getId();
                long nanos = mx.getThreadCpuTime(id);
                if (nanos >= 0) {
                    cpu.put(id, nanos);
                }
            }
        }
        return cpu;
    }

    /** CPU time of this JVM so far, or -1 where the platform does not say. */
    static long processCpuNanos() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getProcessCpuTime();
        }
        return -1;
    }
}
