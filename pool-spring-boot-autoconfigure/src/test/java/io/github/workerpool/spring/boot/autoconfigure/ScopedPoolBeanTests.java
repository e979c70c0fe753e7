package io.github.workerpool.spring.boot.autoconfigure;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

import io.github.workerpool.WorkerPool;
import io.github.workerpool.spring.boot.autoconfigure.event.PoolEventsAutoConfiguration;
import io.github.workerpool.spring.boot.autoconfigure.event.PoolRejectionEvent;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.ObjectFactory;
import org.springframework.beans.factory.config.CustomScopeConfigurer;
import org.springframework.beans.factory.config.Scope;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.ScopedProxyMode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * A pool bean in a scope of its own behind a proxy (as {@code @RefreshScope} makes one): its
 * timers and its event watch follow each new instance behind the proxy.
 */
class ScopedPoolBeanTests {

    private static final Duration WAIT = Duration.ofSeconds(10);

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(PoolsAutoConfiguration.class, TaskExecutionAutoConfiguration.class,
                PoolsMetricsAutoConfiguration.class, PoolEventsAutoConfiguration.class, MetricsAutoConfiguration.class,
                CompositeMeterRegistryAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class))
        .withUserConfiguration(ScopedPool.class)
        .withPropertyValues("pools.events.check-interval=10ms", "pools.events.min-interval=0s");

    @Test
    void theTimersAndTheEventWatchFollowEachNewInstanceBehindTheProxy() {
        // Found by a review (helper-123): they were added through the proxy to the instance of
        // that moment, and a refresh's new instance had neither: executor_seconds_count stopped,
        // and no more rejection events, without a word.
        this.runner.run((context) -> {
            ExecutorService reports = context.getBean("reports", ExecutorService.class);
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            reports.submit(() -> { }).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            await().atMost(WAIT).until(() -> registry.get("executor").tag("name", "reports").timer().count() == 1);
            context.getBean(SwapScope.class).swap(); // a refresh: the next call makes a new instance
            reports.submit(() -> { }).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            await().atMost(WAIT).until(() -> registry.get("executor").tag("name", "reports").timer().count() == 2);
            assertThat(context.getBean(SwapScope.class).made).as("a second instance ran it").isEqualTo(2);
            CountDownLatch release = new CountDownLatch(1);
            reports.execute(() -> {
                try {
                    release.await();
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
            });
            try {
                assertThatExceptionOfType(RejectedExecutionException.class).isThrownBy(() -> reports.execute(() -> { }));
                List<PoolRejectionEvent> events = context.getBean(Rejections.class).events;
                await().atMost(WAIT).until(() -> !events.isEmpty());
                assertThat(events.get(0).getPoolName()).isEqualTo("reports");
            }
            finally {
                release.countDown();
            }
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class ScopedPool {

        @Bean
        static SwapScope swapScope() {
            return new SwapScope();
        }

        @Bean
        static CustomScopeConfigurer swapScopeConfigurer(SwapScope scope) {
            CustomScopeConfigurer configurer = new CustomScopeConfigurer();
            configurer.addScope("swap", scope);
            return configurer;
        }

        @Bean
        @org.springframework.context.annotation.Scope(scopeName = "swap", proxyMode = ScopedProxyMode.INTERFACES)
        WorkerPool reports(SwapScope scope) {
            scope.made++;
            return WorkerPool.builder().name("reports").capacity(1).nonblocking(true).build();
        }

        @Bean
        Rejections rejections() {
            return new Rejections();
        }

    }

    /** A scope whose instances a test replaces, as a refresh replaces those of the refresh scope. */
    static class SwapScope implements Scope {

        private final Map<String, Object> instances = new HashMap<>();

        private final Map<String, Runnable> destructions = new HashMap<>();

        volatile int made;

        @Override
        public synchronized Object get(String name, ObjectFactory<?> objectFactory) {
            return this.instances.computeIfAbsent(name, (n) -> objectFactory.getObject());
        }

        @Override
        public synchronized Object remove(String name) {
            this.destructions.remove(name);
            return this.instances.remove(name);
        }

        @Override
        public synchronized void registerDestructionCallback(String name, Runnable callback) {
            this.destructions.put(name, callback);
        }

        @Override
        public Object resolveContextualObject(String key) {
            return null;
        }

        @Override
        public String getConversationId() {
            return null;
        }

        /** Destroys every instance, as RefreshScope.refreshAll does. */
        void swap() {
            List<Runnable> callbacks;
            synchronized (this) {
                callbacks = List.copyOf(this.destructions.values());
                this.destructions.clear();
                this.instances.clear();
            }
            callbacks.forEach(Runnable::run);
        }

    }

    static class Rejections implements ApplicationListener<PoolRejectionEvent> {

        final List<PoolRejectionEvent> events = new CopyOnWriteArrayList<>();

        @Override
        public void onApplicationEvent(PoolRejectionEvent event) {
            this.events.add(event);
        }

    }

}
