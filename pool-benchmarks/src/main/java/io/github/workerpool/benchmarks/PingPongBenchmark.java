package io.github.workerpool.benchmarks;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Benchmark 6, the physical limit: one round trip between two threads, either parking and
 * unparking each other ({@code park}) or spinning on a volatile ({@code spin}). Half a round trip
 * is the cost of one hand-off to a parked (or spinning) worker; report it next to per-task costs.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class PingPongBenchmark {

    @Param({"park", "spin"})
    public String mode;

    private volatile long ping;
    private volatile long pong;
    private volatile boolean running;
    private Thread main;
    private Thread echo;
    private long seq;

    @Setup(Level.Trial)
    public void setUp() {
        boolean park = mode.equals("park");
        running = true;
        main = Thread.currentThread();
        echo = new Thread(() -> {
            long seen = 0;
            while (running) {
                long p = ping;
                if (p != seen) {
                    seen = p;
                    pong = p;
                    if (park) {
                        LockSupport.unpark(main);
                    }
                } else if (park) {
                    LockSupport.park(this);
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
        LockSupport.unpark(echo);
        echo.join();
    }

    /** One round trip: two hand-offs. */
    @Benchmark
    public long roundTrip() {
        main = Thread.currentThread();
        long s = ++seq;
        ping = s;
        if (mode.equals("park")) {
            LockSupport.unpark(echo);
            while (pong != s) {
                LockSupport.park(this);
            }
        } else {
            while (pong != s) {
                Thread.onSpinWait();
            }
        }
        return s;
    }
}
