package io.github.workerpool.spring.boot.autoconfigure;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.github.workerpool.MultiPool;
import io.github.workerpool.Pool;
import io.github.workerpool.WorkerPool;
import io.micrometer.core.instrument.Measurement;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.support.DefaultListableBeanFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.AdditionalAnswers.delegatesTo;
import static org.mockito.ArgumentMatchers.any;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.times;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.verifyNoMoreInteractions;

/**
 * What a scrape costs a pool: {@link PoolsMeterBinder} with a clock of the test's own, a pool
 * that counts the calls made to it, and a registry whose every meter is read, as a Prometheus
 * scrape reads them.
 */
class PoolsMeterBinderTests {

    private final AtomicLong nanos = new AtomicLong();

    private final WorkerPool workerPool = WorkerPool.builder().name("mail").capacity(2).queueCapacity(10).build();

    private final Pool pool = mock(Pool.class, delegatesTo(this.workerPool));

    private final MeterRegistry registry = new SimpleMeterRegistry();

    private final PoolsMeterBinder binder = new PoolsMeterBinder(this.nanos::get, Duration.ofMillis(100));

    private final DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();

    @BeforeEach
    void bind() {
        this.beanFactory.registerSingleton("mail", this.pool);
        this.binder.setBeanFactory(this.beanFactory);
        this.binder.bindTo(this.registry);
        this.binder.postProcessAfterInitialization(this.pool, "mail"); // bound once, as in a context
    }

    @AfterEach
    void close() {
        this.workerPool.close();
    }

    @Test
    void aScrapeReadsEachPoolsStatsOnceWhateverTheNumberOfMeters() {
        assertThat(this.registry.getMeters()).hasSizeGreaterThan(10);
        scrape();
        verify(this.pool, times(1)).stats();
        verify(this.pool, times(1)).queueCapacity();
        // Binding added the timers' listener (the tag is the bean name); no meter reads a level on its own.
        verify(this.pool).addListener(any());
        verifyNoMoreInteractions(this.pool);
    }

    @Test
    void statsAreReadAgainOnceTheSnapshotIsOlderThanItsLifetime() throws Exception {
        scrape();
        this.nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(99));
        scrape();
        verify(this.pool, times(1)).stats();
        this.workerPool.submit(() -> { }).get(10, TimeUnit.SECONDS);
        // The future completes inside the task; the worker counts the task just after it.
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10))
            .until(() -> this.workerPool.stats().completed() == 1);
        this.nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(1));
        scrape();
        verify(this.pool, times(2)).stats();
        assertThat(this.registry.get("executor.completed").functionCounter().count()).isEqualTo(1);
    }

    @Test
    void executorCompleted_countsTasksThatThrewToo_asThreadPoolExecutorsCompletedTaskCountDoes() throws Exception {
        // Found by a review: stock executor dashboards read executor.completed as the tasks run;
        // Micrometer takes it from ThreadPoolExecutor.getCompletedTaskCount(), which counts a task
        // that threw. pool.tasks.failed tells the failures apart.
        this.workerPool.execute(() -> { });
        this.workerPool.execute(() -> {
            throw new IllegalStateException("boom");
        });
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10))
            .until(() -> this.workerPool.stats().completed() + this.workerPool.stats().failed() == 2);
        this.nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(100));
        assertThat(this.registry.get("executor.completed").functionCounter().count()).isEqualTo(2);
        assertThat(this.registry.get("pool.tasks.failed").functionCounter().count()).isEqualTo(1);
    }

    @Test
    void theFiguresOfOneScrapeComeFromOneRead() {
        this.pool.tune(5);
        scrape();
        this.pool.tune(7);
        assertThat(this.registry.get("executor.pool.max").gauge().value()).isEqualTo(5);
        assertThat(this.registry.get("executor.queue.remaining").gauge().value()).isEqualTo(10);
        this.nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(100));
        assertThat(this.registry.get("executor.pool.max").gauge().value()).isEqualTo(7);
    }

    @Test
    void aMultiPoolsRemainingQueue_isAllItsQueuesLessAllItsQueued() throws Exception {
        // Found by a review: config().queueCapacity() is one sub-pool's, queued() all of them:
        // two pools of queue 10 with 6 queued each read 0 left, not 8.
        CountDownLatch release = new CountDownLatch(1);
        try (MultiPool multi = MultiPool.of(2, WorkerPool.builder().name("ingest").capacity(1).queueCapacity(10),
                MultiPool.LoadBalancing.ROUND_ROBIN)) {
            this.beanFactory.registerSingleton("ingest", multi);
            this.binder.postProcessAfterInitialization(multi, "ingest");
            for (int i = 0; i < multi.size(); i++) {
                for (int t = 0; t < 7; t++) { // one runs, six wait in the queue
                    multi.pool(i).execute(() -> awaitQuietly(release));
                }
            }
            assertThat(multi.queued()).isEqualTo(12);
            assertThat(this.registry.get("executor.queue.remaining").tag("name", "ingest").gauge().value())
                .isEqualTo(8);
            release.countDown();
        }
    }

    @Test
    void aPoolWithNoSingletonBeanOfItsNameIsNotBound() {
        // Found by a review: initializeBean()/createBean() pass a name the factory has no bean
        // for; bound, the pool would be kept (and metered) for good, nobody destroying it.
        try (WorkerPool adhoc = WorkerPool.builder().name("adhoc").capacity(1).build()) {
            this.binder.postProcessAfterInitialization(adhoc, "adhoc");
            assertThat(this.registry.find("executor.pool.max").tag("name", "adhoc").meters()).isEmpty();
        }
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void unbindRemovesTheMetersAndStopsReadingThePool() {
        this.binder.unbind(this.pool);
        assertThat(this.registry.find("executor.pool.max").meters()).isEmpty();
        assertThat(this.registry.find("executor").meters()).isEmpty();
        verify(this.pool).removeListener(any());
        scrape();
        verify(this.pool, times(0)).stats();
    }

    @Test
    void aPoolWhoseStatsThrow_failsNoScrape_itsGaugesReadNaN_andItsCountersKeepTheirLastValues() throws Exception {
        // Review helper-148: a counter's function that threw went through the whole scrape (a
        // gauge's is caught by Micrometer, a FunctionCounter's is not): /actuator/prometheus
        // answered 500 for every meter of the application, for one pool that could not be read
        // (a scoped proxy whose refreshed target fails to build, a ForwardingPool's delegate).
        this.workerPool.submit(() -> { }).get(10, TimeUnit.SECONDS);
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10))
            .until(() -> this.workerPool.stats().completed() == 1);
        scrape();
        org.mockito.Mockito.doThrow(new IllegalStateException("the target could not be made")).when(this.pool).stats();
        this.nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(100));
        scrape();
        assertThat(this.registry.get("executor.pool.max").gauge().value()).isNaN();
        assertThat(this.registry.get("executor.queue.remaining").gauge().value()).isNaN();
        assertThat(this.registry.get("executor.completed").functionCounter().count()).as("never backwards").isEqualTo(1);
        org.mockito.Mockito.doAnswer(delegatesTo(this.workerPool)).when(this.pool).stats();
        this.nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(100));
        assertThat(this.registry.get("executor.pool.max").gauge().value()).as("read again").isEqualTo(2);
    }

    @Test
    void unbindRemovesTheMeters_evenIfThePoolThrowsWhenItsListenerIsRemoved() {
        org.mockito.Mockito.doThrow(new IllegalStateException("closed")).when(this.pool).removeListener(any());
        this.binder.unbind(this.pool);
        assertThat(this.registry.find("executor.pool.max").meters()).isEmpty();
        assertThat(this.registry.find("executor").meters()).isEmpty();
    }

    @Test
    void aPoolBoundAsAProxy_losesItsMetersWhenItsRawBeanIsDestroyed() {
        // Review helper-148: Spring destroys the raw bean, while a post-processor before this one
        // (an aspect on the pool) may have made the object that was bound.
        try (WorkerPool raw = WorkerPool.builder().name("audit").capacity(1).build()) {
            Pool proxy = (Pool) java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
                    new Class<?>[] { Pool.class }, (p, method, args) -> method.invoke(raw, args));
            this.beanFactory.registerSingleton("audit", proxy);
            this.binder.postProcessAfterInitialization(proxy, "audit");
            assertThat(this.registry.find("executor.pool.max").tag("name", "audit").meters()).hasSize(1);
            this.binder.postProcessBeforeDestruction(raw, "audit");
            assertThat(this.registry.find("executor.pool.max").tag("name", "audit").meters()).isEmpty();
            assertThat(this.registry.find("executor.pool.max").tag("name", "mail").meters()).as("the others stay")
                .hasSize(1);
        }
    }

    /** Reads every meter of the registry, as a scrape does. */
    private void scrape() {
        this.registry.getMeters().forEach((meter) -> {
            for (Measurement measurement : meter.measure()) {
                measurement.getValue();
            }
        });
    }

}
