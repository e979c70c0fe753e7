package io.github.workerpool.benchmarks;

import java.util.concurrent.TimeUnit;
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
 * Benchmark 5, tune under load: tiny-task throughput while a background thread flips the
 * concurrency limit between {@code low} and {@code high} every {@code periodMs} (WorkerPool's
 * tune(), ThreadPoolExecutor's and Spring's setCorePoolSize/setMaximumPoolSize).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class TuneBenchmark {

    @Param({"WorkerPool-queue", "WorkerPool-handoff", "TPE-LBQ", "TPE-sync-blockingput", "Spring-TPTE"})
    public String peer;

    @Param({"2"})
    public int low;

    @Param({"64"})
    public int high;

    @Param({"10"})
    public int periodMs;

    int batchSize = TinyTaskBenchmark.BATCH;
    private Target target;
    private Batch batch;
    private Thread flipper;
    private volatile boolean flipping;

    @Setup(Level.Trial)
    public void setUp() {
        target = Peer.of(peer).create(high);
        batch = new Batch(target, 1, 0);
        flipping = true;
        flipper = new Thread(() -> {
            boolean up = false;
            while (flipping) {
                target.resize(up ? high : low);
                up = !up;
                try {
                    Thread.sleep(periodMs);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "tune-flipper");
        flipper.setDaemon(true);
        flipper.start();
    }

    @TearDown(Level.Trial)
    public void tearDown() throws InterruptedException {
        flipping = false;
        flipper.interrupt();
        flipper.join();
        batch.close();
        target.close();
    }

    /** Runs a batch of tasks while the capacity flips; the score is tasks/s. */
    @Benchmark
    @OperationsPerInvocation(TinyTaskBenchmark.BATCH)
    public void tasks() throws Exception {
        batch.run(batchSize);
    }
}
