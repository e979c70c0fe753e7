package io.github.workerpool.benchmarks;

import io.github.workerpool.WorkerPool;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionHandler;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Benchmark 7, the configurations users write (issue 17): tiny tasks through a WorkerPool and a
 * {@code ThreadPoolExecutor} with the same semantics, for each queue a user may configure.
 *
 * <table>
 *   <caption>config: WorkerPool / ThreadPoolExecutor(n, n, ...)</caption>
 *   <tr><td>unbounded</td><td>{@code queueCapacity(Integer.MAX_VALUE)} / {@code LinkedBlockingQueue()}</td></tr>
 *   <tr><td>block-Q</td><td>{@code queueCapacity(Q)}, callers wait when it is full (the default) /
 *       {@code LinkedBlockingQueue(Q)} with a handler that blocks on {@code queue.put}</td></tr>
 *   <tr><td>abort-Q</td><td>{@code queueCapacity(Q).nonblocking(true)} / {@code LinkedBlockingQueue(Q)},
 *       {@code AbortPolicy}</td></tr>
 *   <tr><td>handoff</td><td>no queue, callers wait (ants) / {@code SynchronousQueue}, blocking {@code put}</td></tr>
 * </table>
 *
 * <p>Q is 100, 1000 or 1M. The primary score is tasks submitted per second, each awaited (a
 * batch of 10,000 ends when every accepted task has run). With abort-Q a full executor rejects:
 * the producer counts the rejection and goes on, and the secondary results {@code accepted} and
 * {@code rejected} (per second) say how many tasks ran and how many were refused. Compare the
 * two executors of an abort-Q row by {@code accepted}: tasks run per second, what the user gets;
 * one that rejects more is not faster for it.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(2)
@State(Scope.Benchmark)
public class QueueModesBenchmark {

    @Param({"unbounded", "block-100", "block-1000", "block-1M", "abort-100", "abort-1000", "abort-1M", "handoff"})
    public String config;

    @Param({"WorkerPool", "TPE"})
    public String peer;

    @Param({"2", "256"})
    public int n;

    @Param({"1", "2"})
    public int producers;

    int batchSize = TinyTaskBenchmark.BATCH;
    private Target target;
    private Batch batch;

    /** Accepted and rejected tasks per second (abort-Q configs; accepted = all in the others). */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.OPERATIONS)
    public static class Outcome {
        public long accepted;
        public long rejected;

        @Setup(Level.Iteration)
        public void clear() {
            accepted = 0;
            rejected = 0;
        }
    }

    @Setup(Level.Trial)
    public void setUp() {
        target = create(config, peer, n);
        batch = new Batch(target, producers, 0, config.startsWith("abort-"));
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        batch.close();
        target.close();
    }

    /** Runs a batch of tasks; the score is tasks submitted per second. */
    @Benchmark
    @OperationsPerInvocation(TinyTaskBenchmark.BATCH)
    public void tasks(Outcome outcome) throws Exception {
        batch.run(batchSize);
        long refused = batch.takeRejected();
        outcome.rejected += refused;
        outcome.accepted += batchSize - refused;
    }

    /** The queue capacity a config names (0 for hand-off, Integer.MAX_VALUE for unbounded). */
    static int queueOf(String config) {
        if (config.equals("unbounded")) {
            return Integer.MAX_VALUE;
        }
        if (config.equals("handoff")) {
            return 0;
        }
        String q = config.substring(config.indexOf('-') + 1);
        return q.equals("1M") ? 1_000_000 : Integer.parseInt(q);
    }

    /** Builds the executor of one row: WorkerPool or TPE with the config's semantics. */
    static Target create(String config, String peer, int n) {
        int q = queueOf(config);
        boolean abort = config.startsWith("abort-");
        if (!config.equals("unbounded") && !config.equals("handoff") && !config.startsWith("block-") && !abort) {
            throw new IllegalArgumentException("unknown config '" + config + "'");
        }
        switch (peer) {
            case "WorkerPool": {
                WorkerPool.Builder b = WorkerPool.builder().name("bench").capacity(n);
                if (q > 0) {
                    b.queueCapacity(q);
                }
                return Target.of(b.nonblocking(abort).build());
            }
            case "TPE": {
                BlockingQueue<Runnable> queue = q == 0 ? new SynchronousQueue<>()
                        : q == Integer.MAX_VALUE ? new LinkedBlockingQueue<>() : new LinkedBlockingQueue<>(q);
                RejectedExecutionHandler handler = abort ? new ThreadPoolExecutor.AbortPolicy() : Peer.BLOCKING_PUT;
                return Target.ofTpe(new ThreadPoolExecutor(n, n, 60, TimeUnit.SECONDS, queue, handler));
            }
            case "Pipe":
                return pipe(q, abort, n);
            default:
                throw new IllegalArgumentException("unknown peer '" + peer + "': WorkerPool, TPE or Pipe");
        }
    }

    /**
     * The no-pool floor of a row ({@code -p peer=Pipe}, not in the default matrix): {@code n}
     * threads that do nothing but take tasks from the TPE's queue and run them, and producers that
     * {@code put} into it (or {@code offer} and are refused, for abort-Q). The queue's own hand-off
     * with nothing of an executor around it: no worker bookkeeping, no counters, no state checks.
     */
    static Target pipe(int q, boolean abort, int n) {
        BlockingQueue<Runnable> queue = q == 0 ? new SynchronousQueue<>()
                : q == Integer.MAX_VALUE ? new LinkedBlockingQueue<>() : new LinkedBlockingQueue<>(q);
        Thread[] threads = new Thread[n];
        for (int i = 0; i < n; i++) {
            threads[i] = new Thread(() -> {
                try {
                    for (;;) {
                        queue.take().run();
                    }
                } catch (InterruptedException e) {
                    // closed
                }
            }, "pipe-" + i);
            threads[i].setDaemon(true);
            threads[i].start();
        }
        return new Target() {
            @Override
            public void submit(Runnable task) throws InterruptedException {
                if (!abort) {
                    queue.put(task);
                } else if (!queue.offer(task)) {
                    throw new java.util.concurrent.RejectedExecutionException("pipe full");
                }
            }

            @Override
            public void close() {
                for (Thread t : threads) {
                    t.interrupt();
                }
                for (Thread t : threads) {
                    try {
                        t.join(10_000);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                }
            }
        };
    }
}
