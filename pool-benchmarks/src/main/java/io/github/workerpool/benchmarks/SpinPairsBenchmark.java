package io.github.workerpool.benchmarks;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
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

    /**
     * The least a spinning hand-off can be, with no pool around it: two worker threads, each
     * with a mailbox; a producer (a JMH thread) puts a task into the first empty mailbox it finds
     * (one compare-and-set) and returns; the worker runs it and empties its mailbox. A caller
     * blocks until a worker is free, as in hand-off mode, but nothing else is done: no counters,
     * no parking, no fairness.
     */
    @State(Scope.Benchmark)
    public static class Mailboxes {
        static final Runnable TASK = () -> { };
        final AtomicReferenceArray<Runnable> boxes = new AtomicReferenceArray<>(2);
        volatile boolean running;
        Thread[] workers;

        @Setup(Level.Trial)
        public void setUp() {
            running = true;
            workers = new Thread[boxes.length()];
            for (int i = 0; i < workers.length; i++) {
                int box = i;
                workers[i] = new Thread(() -> {
                    while (running) {
                        Runnable t = boxes.get(box);
                        if (t != null) {
                            t.run();
                            boxes.set(box, null);
                        } else {
                            Thread.onSpinWait();
                        }
                    }
                }, "mailbox-worker-" + i);
                workers[i].setDaemon(true);
                workers[i].start();
            }
        }

        @TearDown(Level.Trial)
        public void tearDown() throws InterruptedException {
            running = false;
            for (Thread w : workers) {
                w.join();
            }
        }

        /** Hands the task to the first free worker, spinning until one is. */
        boolean handOff() {
            for (int i = 0; ; i = (i + 1) % boxes.length()) {
                if (boxes.get(i) == null && boxes.compareAndSet(i, null, TASK)) {
                    return true;
                }
                Thread.onSpinWait();
            }
        }
    }

    /** Tasks handed through the mailboxes by one producer. */
    @Benchmark
    @Threads(1)
    public boolean mailboxesOneProducer(Mailboxes m) {
        return m.handOff();
    }

    /** Tasks handed through the mailboxes by two producers together (four spinning threads). */
    @Benchmark
    @Threads(2)
    public boolean mailboxesTwoProducers(Mailboxes m) {
        return m.handOff();
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
