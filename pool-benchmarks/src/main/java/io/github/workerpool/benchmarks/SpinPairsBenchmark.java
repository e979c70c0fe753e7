package io.github.workerpool.benchmarks;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Benchmark 6, the physical limit with more spinning threads than CPUs: independent pairs of
 * threads, each pair doing spinning round trips on volatiles of its own (nothing shared between
 * pairs). {@code onePair} is two threads; {@code twoPairs} is four, which on a 2-CPU machine is
 * the shape of hand-off mode with two producers and two workers (every thread spins while it
 * waits). The score is round trips per second over all pairs: if two pairs together do no more
 * than one, a spinning hand-off with four threads on two CPUs cannot beat one pair's rate either,
 * however the pool is built, because a pair only makes progress while both its threads are on a
 * CPU at the same time.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class SpinPairsBenchmark {

    /** One pair: the JMH thread and its echo thread. */
    @State(Scope.Thread)
    public static class Pair {
        volatile long ping;
        volatile long pong;
        volatile boolean running;
        long seq;
        Thread echo;

        @Setup(Level.Trial)
        public void setUp() {
            running = true;
            echo = new Thread(() -> {
                long seen = 0;
                while (running) {
                    long p = ping;
                    if (p != seen) {
                        seen = p;
                        pong = p;
                    } else {
                        Thread.onSpinWait();
                    }
                }
            }, "echo");
            echo.setDaemon(true);
            echo.start();
        }

        @TearDown(Level.Trial)
        public void tearDown() throws InterruptedException {
            running = false;
            echo.join();
        }

        long roundTrip() {
            long s = ++seq;
            ping = s;
            while (pong != s) {
                Thread.onSpinWait();
            }
            return s;
        }
    }

    /** Round trips of one pair (two spinning threads). */
    @Benchmark
    @Threads(1)
    public long onePair(Pair pair) {
        return pair.roundTrip();
    }

    /** Round trips of two independent pairs together (four spinning threads). */
    @Benchmark
    @Threads(2)
    public long twoPairs(Pair pair) {
        return pair.roundTrip();
    }
}
