package io.github.workerpool.benchmarks;

import io.github.workerpool.Pool;
import io.github.workerpool.PoolStats;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
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
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Benchmark 9, the cost of a scrape with a long queue: the starter's pool {@code bench} (one
 * worker, held busy, and an unbounded queue) with {@code queued} tasks waiting, and
 * {@link PrometheusMeterRegistry#scrape()} (what {@code /actuator/prometheus} returns) or the
 * pool's {@code stats()} (what the scrape reads of each pool). Its target: the same time with
 * 10^6 tasks queued as with none.
 *
 * <p>The pool's meters share one read of {@code stats()} for 100 ms (PoolsMeterBinder), so the
 * scrape case waits that long before each scrape ({@code Level.Invocation} setup, not timed),
 * and every timed scrape reads the pool afresh.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 2)
@Fork(1)
@State(Scope.Benchmark)
public class ScrapeBenchmark {

    @Param({"0", "1000000"})
    public int queued;

    private ConfigurableApplicationContext context;
    private PrometheusMeterRegistry registry;
    private Pool pool;
    private final CountDownLatch release = new CountDownLatch(1);

    @Setup(Level.Trial)
    public void setUp() throws InterruptedException {
        context = SpringBench.start("pools.instances.bench.capacity=1",
                "pools.instances.bench.queue-capacity=2147483647");
        registry = context.getBean(PrometheusMeterRegistry.class);
        pool = context.getBean("bench", Pool.class);
        ExecutorService executor = context.getBean("bench", ExecutorService.class);
        CountDownLatch started = new CountDownLatch(1);
        executor.execute(() -> {
            started.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        if (!started.await(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("the blocking task did not start");
        }
        Runnable noop = () -> { };
        for (int i = 0; i < queued; i++) {
            executor.execute(noop);
        }
        PoolStats s = pool.stats();
        if (s.queued() != queued) {
            throw new IllegalStateException("expected " + queued + " queued tasks, stats say " + s);
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        release.countDown();
        context.close();
    }

    /** Lets the pool's shared stats() read expire before each scrape, so that the scrape reads the pool. */
    @State(Scope.Thread)
    public static class FreshRead {
        long waitMillis = 110;

        @Setup(Level.Invocation)
        public void expireSnapshot() throws InterruptedException {
            Thread.sleep(waitMillis);
        }
    }

    /** The Prometheus text of every meter, as /actuator/prometheus returns it. */
    @Benchmark
    public String scrape(FreshRead fresh) {
        return registry.scrape();
    }

    /** One read of the pool's figures, what a scrape reads of each pool. */
    @Benchmark
    public PoolStats stats() {
        return pool.stats();
    }
}
