package io.github.workerpool.benchmarks;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Benchmark 6, the physical limit for two producers: two threads each doing an atomic increment,
 * either of one shared counter ({@code shared}: every increment takes the cache line from the
 * other core, as two producers appending to one FIFO queue do with its tail) or of a counter of
 * their own ({@code own}: no line moves, as with ForkJoinPool's per-submitter queues). Time per
 * increment per thread; the difference is what one cross-core line transfer costs here.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@Threads(2)
public class SharedLineBenchmark {

    /** One counter for both threads. */
    @State(Scope.Benchmark)
    public static class Shared {
        final AtomicLong counter = new AtomicLong();
    }

    /** A counter per thread, created by that thread (in its own allocation buffer, far from the other). */
    @State(Scope.Thread)
    public static class Own {
        final AtomicLong counter = new AtomicLong();
    }

    @Benchmark
    public long shared(Shared s) {
        return s.counter.incrementAndGet();
    }

    @Benchmark
    public long own(Own o) {
        return o.counter.incrementAndGet();
    }
}
