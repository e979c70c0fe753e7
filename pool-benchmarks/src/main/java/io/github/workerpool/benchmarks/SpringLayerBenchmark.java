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
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Benchmark 8, the Spring layer: tiny tasks through an {@code @Async} method, on the starter's
 * pool from {@code spring-bench.yml} (with its meters, its two timers and a {@code TaskDecorator})
 * against Boot's {@code applicationTaskExecutor} ({@code ThreadPoolTaskExecutor}) with the same
 * size and queue, the same decorator and the same Micrometer meters and timers (see
 * {@link SpringBench}). The score is tasks/s; {@code -prof gc}'s {@code gc.alloc.rate.norm} is the
 * bytes allocated per task by the whole path ({@code @Async}'s interceptor, the executor's
 * future, the decorator and the starter's or Boot's wrappers).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(2)
@State(Scope.Benchmark)
public class SpringLayerBenchmark {

    /** {@code pool} (the starter's) or {@code applicationTaskExecutor} (Boot's). */
    @Param({"pool", "applicationTaskExecutor"})
    public String executor;

    @Param({"2"})
    public int n;

    /** The queue of both executors; 2147483647 is unbounded for both. */
    @Param({"2147483647"})
    public int queue;

    @Param({"1", "2"})
    public int producers;

    int batchSize = TinyTaskBenchmark.BATCH;
    private ConfigurableApplicationContext context;
    private Batch batch;

    @Setup(Level.Trial)
    public void setUp() {
        context = SpringBench.start("pools.instances.bench.capacity=" + n,
                "pools.instances.bench.queue-capacity=" + queue,
                "spring.task.execution.pool.core-size=" + n, "spring.task.execution.pool.max-size=" + n,
                "spring.task.execution.pool.queue-capacity=" + queue);
        SpringBench.Sink sink = context.getBean(SpringBench.Sink.class);
        Target target;
        switch (executor) {
            case "pool":
                target = new Target() {
                    @Override
                    public void submit(Runnable task) {
                        sink.onPool(task);
                    }

                    @Override
                    public void close() {
                    }
                };
                break;
            case "applicationTaskExecutor":
                target = new Target() {
                    @Override
                    public void submit(Runnable task) {
                        sink.onApplicationTaskExecutor(task);
                    }

                    @Override
                    public void close() {
                    }
                };
                break;
            default:
                throw new IllegalArgumentException("unknown executor '" + executor + "': pool or applicationTaskExecutor");
        }
        SpringBench.CONTEXT.set("request-42");
        batch = new Batch(target, producers, 0);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        batch.close();
        context.close();
    }

    /** Runs a batch of tasks through the @Async method; the score is tasks/s. */
    @Benchmark
    @OperationsPerInvocation(TinyTaskBenchmark.BATCH)
    public void tasks() throws Exception {
        batch.run(batchSize);
    }
}
