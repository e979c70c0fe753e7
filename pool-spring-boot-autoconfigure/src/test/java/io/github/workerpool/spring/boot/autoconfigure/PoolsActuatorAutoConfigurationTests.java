package io.github.workerpool.spring.boot.autoconfigure;

import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import javax.management.MBeanServer;
import javax.management.ObjectName;

import io.github.workerpool.WorkerPool;
import io.micrometer.context.ContextRegistry;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.endpoint.jmx.JmxEndpointAutoConfiguration;
import org.springframework.boot.actuate.audit.AuditEvent;
import org.springframework.boot.actuate.audit.listener.AuditApplicationEvent;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.jmx.JmxAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.test.util.ReflectionTestUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Tests for the endpoint, meters, health and context propagation parts of the starter, and for
 * the starter without actuator or Micrometer on the classpath.
 */
@org.junit.jupiter.api.extension.ExtendWith(OutputCaptureExtension.class)
class PoolsActuatorAutoConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(PoolsAutoConfiguration.class, TaskExecutionAutoConfiguration.class,
                PoolsEndpointAutoConfiguration.class, PoolsMetricsAutoConfiguration.class,
                PoolsHealthContributorAutoConfiguration.class, EndpointAutoConfiguration.class,
                MetricsAutoConfiguration.class, CompositeMeterRegistryAutoConfiguration.class,
                SimpleMetricsExportAutoConfiguration.class))
        .withPropertyValues("pools.instances.mail.capacity=2", "pools.instances.fixed.capacity=2",
                "pools.instances.fixed.pre-alloc=true", "management.endpoints.web.exposure.include=pools");

    @Test
    void endpointListsEveryPoolWithCountsAndConfig() {
        this.runner.run((context) -> {
            PoolsEndpoint.PoolsDescriptor all = context.getBean(PoolsEndpoint.class).pools();
            assertThat(all.pools()).containsOnlyKeys("mail", "fixed");
            PoolsEndpoint.PoolDescriptor mail = all.pools().get("mail");
            assertThat(mail.capacity()).isEqualTo(2);
            assertThat(mail.closed()).isFalse();
            assertThat(mail.config()).containsEntry("preAlloc", false).containsEntry("expiry", "PT1M")
                .containsEntry("shutdownAwaitTerminationPeriod", "PT30S");
        });
    }

    @Test
    void prototypePoolBeanInstancesAreNeitherMeteredNorKept() {
        List<WorkerPool> made = new CopyOnWriteArrayList<>();
        this.runner.withBean("proto", WorkerPool.class, () -> {
            WorkerPool pool = WorkerPool.builder().name("proto").capacity(made.size() + 1).build();
            made.add(pool);
            return pool;
        }, (definition) -> definition.setScope(BeanDefinition.SCOPE_PROTOTYPE)).run((context) -> {
            assertThat(made).isEmpty(); // as before: listing the pools makes no prototype
            WorkerPool first = context.getBean("proto", WorkerPool.class);
            WorkerPool second = context.getBean("proto", WorkerPool.class);
            try {
                MeterRegistry registry = context.getBean(MeterRegistry.class);
                // Each instance would get the first one's gauges (capacity 1 for both) and timers.
                assertThat(registry.find("executor.pool.max").tag("name", "proto").meters()).isEmpty();
                assertThat(registry.find("executor").tag("name", "proto").meters()).isEmpty();
                assertThat(registry.find("executor.pool.max").tag("name", "mail").meters()).hasSize(1);
                assertThat(context.getBean(PoolsEndpoint.class).pools().pools()).doesNotContainKey("proto");
                // The container never destroys a prototype: a bound instance would be kept for good.
                assertThat((Map<Object, Object>) ReflectionTestUtils.getField(context.getBean(PoolsMeterBinder.class), "bound"))
                    .doesNotContainKeys(first, second);
            }
            finally {
                first.close();
                second.close();
            }
        });
    }

    @Test
    void endpointTuneChangesCapacity() {
        this.runner.run((context) -> {
            Object result = tune(context.getBean(PoolsEndpoint.class), "mail", "tune", 7);
            assertThat(result).isInstanceOfSatisfying(PoolsEndpoint.PoolDescriptor.class,
                    (pool) -> assertThat(pool.capacity()).isEqualTo(7));
            assertThat(context.getBean("mail", SpringPool.class).capacity()).isEqualTo(7);
        });
    }

    @Test
    void aPurgeWithOptions_isRefusedOverJmxToo() {
        // Found by a review (helper-132): only the web filters refused them; over JMX the options
        // were dropped and the purge answered as if they were not sent.
        this.runner.run((context) -> {
            PoolsEndpoint endpoint = context.getBean(PoolsEndpoint.class);
            assertThatThrownBy(() -> endpoint.action("mail", "purge", Map.of(PoolOption.CAPACITY, 9), "jmx"))
                .isInstanceOf(org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException.class)
                .hasMessage("Cannot purge pool 'mail': a purge takes no options, but capacity was sent; send it to "
                        + "tune; nothing was changed");
            assertThat(context.getBean("mail", SpringPool.class).capacity()).isEqualTo(2);
        });
    }

    @Test
    void everyEndpointWriteIsAuditedAndLogged(CapturedOutput output) {
        this.runner.withUserConfiguration(AuditCapture.class).run((context) -> {
            PoolsEndpoint endpoint = context.getBean(PoolsEndpoint.class);
            endpoint.action("mail", "tune", Map.of(PoolOption.CAPACITY, 5, PoolOption.BLOCKING_TIMEOUT, "2s"), "alice");
            endpoint.action("mail", "purge", Map.of(), "bob");
            java.util.List<AuditApplicationEvent> events = context.getBean(AuditCapture.class).events;
            assertThat(events).hasSize(2);
            AuditEvent tuned = events.get(0).getAuditEvent();
            assertThat(tuned.getPrincipal()).isEqualTo("alice");
            assertThat(tuned.getType()).isEqualTo(PoolsEndpoint.TUNED);
            assertThat(tuned.getData()).containsEntry("pool", "mail");
            assertThat(tuned.getData().get("old").toString()).isEqualTo("{capacity=2, blockingTimeout=null}");
            assertThat(tuned.getData().get("new").toString()).isEqualTo("{capacity=5, blockingTimeout=PT2S}");
            AuditEvent purged = events.get(1).getAuditEvent();
            assertThat(purged.getPrincipal()).isEqualTo("bob");
            assertThat(purged.getType()).isEqualTo(PoolsEndpoint.PURGED);
            assertThat(output).contains("Pool 'mail' tuned by alice: capacity 2 -> 5, blockingTimeout null -> PT2S")
                .contains("Pool 'mail' purged by bob");
        });
    }

    @Test
    void anAuditListenerThatThrows_leavesTheAppliedTuneAnsweredAndLogsTheChange(CapturedOutput output) {
        // helper-114: the tune was applied, then the audit's failure made it a 500, which reads as
        // refused (an error changes nothing) and invites a retry.
        this.runner.withBean("failingAudit", org.springframework.context.ApplicationListener.class,
                () -> (org.springframework.context.ApplicationListener<AuditApplicationEvent>) (event) -> {
                    throw new IllegalStateException("audit store down");
                })
            .run((context) -> {
                Object result = context.getBean(PoolsEndpoint.class)
                    .action("mail", "tune", Map.of(PoolOption.CAPACITY, 5), "alice");
                assertThat(result).isInstanceOfSatisfying(PoolsEndpoint.PoolDescriptor.class,
                        (pool) -> assertThat(pool.capacity()).isEqualTo(5));
                assertThat(output).contains("Pool 'mail': POOL_TUNED by alice was applied, but its audit event failed")
                    .contains("audit store down");
            });
    }

    @Test
    void twoTunesAtOnceOfAPoolTheApplicationMadeAreAuditedWithTheValuesEachChanged() throws Exception {
        // Found by a review: both read the old value before either changed it ("20 -> 60", "20 -> 50").
        this.runner.withUserConfiguration(AuditCapture.class, SlowTunePoolConfiguration.class).run((context) -> {
            PoolsEndpoint endpoint = context.getBean(PoolsEndpoint.class);
            SlowTunePool own = context.getBean("own", SlowTunePool.class);
            Thread first = new Thread(() -> endpoint.action("own", "tune", Map.of(PoolOption.CAPACITY, 50), "alice"));
            first.start();
            assertThat(own.entered.await(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
            endpoint.action("own", "tune", Map.of(PoolOption.CAPACITY, 60), "bob");
            own.release.countDown();
            first.join(10_000);
            assertThat(first.isAlive()).isFalse();
            java.util.List<AuditApplicationEvent> events = context.getBean(AuditCapture.class).events;
            assertThat(events).hasSize(2);
            assertThat(events.get(0).getAuditEvent().getData().get("old").toString()).isEqualTo("{capacity=20}");
            assertThat(events.get(0).getAuditEvent().getData().get("new").toString()).isEqualTo("{capacity=60}");
            assertThat(events.get(1).getAuditEvent().getData().get("old").toString()).isEqualTo("{capacity=60}");
            assertThat(events.get(1).getAuditEvent().getData().get("new").toString()).isEqualTo("{capacity=50}");
            assertThat(own.capacity()).isEqualTo(50);
        });
    }

    @Test
    void aRefusedTuneIsNeitherAuditedNorApplied() {
        this.runner.withUserConfiguration(AuditCapture.class).run((context) -> {
            PoolsEndpoint endpoint = context.getBean(PoolsEndpoint.class);
            assertThatExceptionOfType(InvalidEndpointRequestException.class).isThrownBy(() -> endpoint.action("mail",
                    "tune", Map.of(PoolOption.CAPACITY, 5, PoolOption.MAX_BLOCKING_TASKS, -1), "alice"))
                .withMessageContaining("maxBlockingTasks");
            assertThat(context.getBean(AuditCapture.class).events).isEmpty();
            assertThat(context.getBean("mail", SpringPool.class).capacity()).isEqualTo(2);
        });
    }

    /** A pool of the application's whose first reconfigure waits, after it was called, until released. */
    static final class SlowTunePool extends io.github.workerpool.ForwardingPool {

        final WorkerPool pool = WorkerPool.builder().name("own").capacity(20).build();

        final java.util.concurrent.CountDownLatch entered = new java.util.concurrent.CountDownLatch(1);

        final java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);

        private final java.util.concurrent.atomic.AtomicBoolean first = new java.util.concurrent.atomic.AtomicBoolean(true);

        @Override
        protected io.github.workerpool.Pool delegate() {
            return this.pool;
        }

        @Override
        public io.github.workerpool.PoolConfig reconfigure(
                java.util.function.UnaryOperator<io.github.workerpool.PoolConfig> change) {
            if (this.first.compareAndSet(true, false)) {
                this.entered.countDown();
                try {
                    this.release.await();
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
            }
            return super.reconfigure(change);
        }

    }

    @org.springframework.context.annotation.Configuration(proxyBeanMethods = false)
    static class SlowTunePoolConfiguration {

        @org.springframework.context.annotation.Bean(destroyMethod = "close")
        SlowTunePool own() {
            return new SlowTunePool();
        }

    }

    @org.springframework.context.annotation.Configuration(proxyBeanMethods = false)
    static class AuditCapture implements org.springframework.context.ApplicationListener<AuditApplicationEvent> {

        final java.util.List<AuditApplicationEvent> events = new java.util.concurrent.CopyOnWriteArrayList<>();

        @Override
        public void onApplicationEvent(AuditApplicationEvent event) {
            this.events.add(event);
        }

    }

    @Test
    void endpointRejectsEachBadTuneAndLeavesPoolUnchanged() {
        this.runner.run((context) -> {
            PoolsEndpoint endpoint = context.getBean(PoolsEndpoint.class);
            assertBadRequest(endpoint, "mail", "tune", null, "nothing to change");
            assertBadRequest(endpoint, "mail", "tune", "abc", "whole number");
            assertBadRequest(endpoint, "mail", "tune", 1.5, "whole number");
            assertBadRequest(endpoint, "mail", "tune", 0, "at least 1, or -1");
            assertBadRequest(endpoint, "mail", "tune", -2, "at least 1, or -1");
            assertBadRequest(endpoint, "mail", "tune", 3_000_000_000L, "at most 2147483647");
            assertBadRequest(endpoint, "mail", "tune", new java.math.BigInteger("99999999999999999999"), "at most 2147483647");
            assertBadRequest(endpoint, "mail", "explode", 3, "Unknown action 'explode'");
            assertBadRequest(endpoint, "fixed", "tune", 3, "preAlloc");
            assertBadRequest(endpoint, "fixed", "tune", 2, "preAlloc"); // the capacity it has: helper-168
            // helper-114: the answer said "but was null" and named the builder's disablePurge(true).
            assertThatExceptionOfType(InvalidEndpointRequestException.class)
                .isThrownBy(() -> endpoint.action("mail", "tune", Map.of(PoolOption.EXPIRY, "none"), "ops"))
                .withMessageContaining("expiry must be a positive duration, but was \"none\"; to keep idle workers "
                        + "forever send {\"disablePurge\": true}");
            // helper-143: the other builder calls named as the fix; the endpoint's fields and the
            // pool's properties are what its callers have.
            assertThatExceptionOfType(InvalidEndpointRequestException.class)
                .isThrownBy(() -> endpoint.action("mail", "tune", Map.of(PoolOption.EXPIRY, "0s"), "ops"))
                .withMessageContaining("to keep idle workers forever send {\"disablePurge\": true}")
                .withMessageNotContaining("disablePurge(true)");
            assertThatExceptionOfType(InvalidEndpointRequestException.class)
                .isThrownBy(() -> endpoint.action("fixed", "tune", Map.of(PoolOption.CAPACITY, 3), "ops"))
                .withMessageContaining("set pools.instances.fixed.pre-alloc to false (or build it without preAlloc) and "
                        + "restart to tune it");
            assertThatExceptionOfType(InvalidEndpointRequestException.class)
                .isThrownBy(() -> endpoint.action("mail", "tune", Map.of(PoolOption.QUEUE_CAPACITY, 5), "ops"))
                .withMessageContaining("or set pools.instances.mail.queue-capacity (or the code that builds the pool) "
                        + "and restart");
            assertThatExceptionOfType(InvalidEndpointRequestException.class)
                .isThrownBy(() -> endpoint.action("mail", "tune", Map.of(PoolOption.BLOCKING_TIMEOUT, "-5s"), "ops"))
                .withMessageContaining("blockingTimeout must be 0 or more, or \"none\" for no limit, but was -5s");
            assertThat(context.getBean("mail", SpringPool.class).capacity()).isEqualTo(2);
            assertThat(context.getBean("fixed", SpringPool.class).capacity()).isEqualTo(2);
        });
    }

    @Test
    void endpointActionOnUnknownPoolCreatesNothing() {
        this.runner.run((context) -> {
            PoolsEndpoint endpoint = context.getBean(PoolsEndpoint.class);
            assertThat(tune(endpoint, "mial", "tune", 5)).isNull();
            assertThat(endpoint.pool("mial")).isNull();
            assertThat(endpoint.pools().pools()).containsOnlyKeys("mail", "fixed");
            assertThat(context).doesNotHaveBean("mial");
        });
    }

    @Test
    void endpointPurgeStopsIdleWorkers() {
        this.runner.withPropertyValues("pools.instances.mail.disable-purge=true").run((context) -> {
            SpringPool mail = context.getBean("mail", SpringPool.class);
            mail.submit(() -> { }).get(10, TimeUnit.SECONDS);
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).until(() -> mail.idle() == 1);
            Object result = tune(context.getBean(PoolsEndpoint.class), "mail", "purge", null);
            assertThat(result).isInstanceOfSatisfying(PoolsEndpoint.PurgeDescriptor.class, (purge) -> {
                assertThat(purge.purged()).isEqualTo(1);
                assertThat(purge.pool().idle()).isZero();
            });
        });
    }

    @Test
    void endpointWorksOverJmx() {
        this.runner
            .withConfiguration(AutoConfigurations.of(JmxAutoConfiguration.class, JmxEndpointAutoConfiguration.class,
                    JacksonAutoConfiguration.class))
            .withPropertyValues("spring.jmx.enabled=true", "management.endpoints.jmx.exposure.include=pools",
                    "management.endpoints.jmx.domain=workerpool-test", "management.endpoint.pools.access=UNRESTRICTED")
            .run((context) -> {
                MBeanServer server = ManagementFactory.getPlatformMBeanServer();
                ObjectName name = new ObjectName("workerpool-test:type=Endpoint,name=Pools");
                Object pools = server.invoke(name, "pools", new Object[0], new String[0]);
                assertThat(pools).asString().contains("mail", "fixed");
                String[] signature = java.util.Arrays.stream(server.getMBeanInfo(name).getOperations())
                    .filter((op) -> op.getName().equals("action"))
                    .findFirst()
                    .map((op) -> java.util.Arrays.stream(op.getSignature())
                        .map(javax.management.MBeanParameterInfo::getType)
                        .toArray(String[]::new))
                    .orElseThrow();
                server.invoke(name, "action", new Object[] { "mail", "tune", "9" }, signature);
                assertThat(context.getBean("mail", SpringPool.class).capacity()).isEqualTo(9);
            });
    }

    @Test
    void metersUseExecutorNamesAndPoolNamesWithUnitsAndDescriptions() {
        this.runner.run((context) -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            Map<String, Class<?>> expected = Map.ofEntries(Map.entry("executor.pool.max", Gauge.class),
                    Map.entry("executor.pool.size", Gauge.class), Map.entry("executor.active", Gauge.class),
                    Map.entry("executor.queued", Gauge.class), Map.entry("executor.queue.remaining", Gauge.class),
                    Map.entry("executor.completed", FunctionCounter.class), Map.entry("pool.waiting", Gauge.class),
                    Map.entry("pool.idle", Gauge.class), Map.entry("pool.tasks.rejected", FunctionCounter.class),
                    Map.entry("pool.tasks.failed", FunctionCounter.class),
                    Map.entry("pool.tasks.cancelled", FunctionCounter.class),
                    Map.entry("pool.tasks.queue.timeout", FunctionCounter.class),
                    Map.entry("pool.tasks.run.timeout", FunctionCounter.class), Map.entry("executor", Timer.class),
                    Map.entry("executor.idle", Timer.class));
            expected.forEach((meterName, type) -> {
                Meter meter = registry.find(meterName).tag("name", "mail").meter();
                assertThat(meter).as(meterName).isInstanceOf(type);
                assertThat(meter.getId().getDescription()).as(meterName).isNotBlank();
                if (!(meter instanceof Timer)) {
                    assertThat(meter.getId().getBaseUnit()).as(meterName).isIn("threads", "tasks");
                }
            });
            assertThat(registry.get("executor.pool.max").tag("name", "mail").gauge().value()).isEqualTo(2);
        });
    }

    @Test
    void metersFollowTasksAndTune() {
        this.runner.run((context) -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            SpringPool mail = context.getBean("mail", SpringPool.class);
            mail.submit(() -> { }).get(10, TimeUnit.SECONDS);
            mail.execute(() -> {
                throw new IllegalStateException("expected by the test");
            });
            // The first task's future completes inside it, and its worker counts it just after: on
            // two workers the second may be counted first, so all four are awaited together.
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).untilAsserted(() -> {
                assertThat(registry.get("pool.tasks.failed").tag("name", "mail").functionCounter().count()).isEqualTo(1);
                // Both ran to their end: ThreadPoolExecutor's meaning of completed (the failure is counted apart).
                assertThat(registry.get("executor.completed").tag("name", "mail").functionCounter().count()).isEqualTo(2);
                assertThat(registry.get("executor").tag("name", "mail").timer().count()).isEqualTo(2);
                assertThat(registry.get("executor.idle").tag("name", "mail").timer().count()).isEqualTo(2);
            });
            mail.tune(11);
            // Within PoolsMeterBinder.SNAPSHOT_LIFETIME the gauge may still show the last read.
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10))
                .until(() -> registry.get("executor.pool.max").tag("name", "mail").gauge().value() == 11);
        });
    }

    @Test
    void queueAndRunTimeoutCountersCountLateAndLongTasks() {
        this.runner.run((context) -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            SpringPool mail = context.getBean("mail", SpringPool.class);
            mail.reconfigure((c) -> c.withQueueTimeout(java.time.Duration.ofNanos(1))
                .withRunTimeout(java.time.Duration.ofNanos(1)));
            mail.submit(() -> new java.util.concurrent.CountDownLatch(1).await(5, TimeUnit.MILLISECONDS))
                .get(10, TimeUnit.SECONDS);
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).untilAsserted(() -> {
                assertThat(registry.get("pool.tasks.queue.timeout").tag("name", "mail").functionCounter().count())
                    .isEqualTo(mail.stats().queueTimeouts()).isEqualTo(1);
                assertThat(registry.get("pool.tasks.run.timeout").tag("name", "mail").functionCounter().count())
                    .isEqualTo(mail.stats().runTimeouts()).isEqualTo(1);
            });
            assertThat(registry.get("pool.tasks.queue.timeout").tag("name", "fixed").functionCounter().count()).isZero();
        });
    }

    @Test
    void timersAreRecordedForAnApplicationBuiltPoolToo() {
        WorkerPool own = WorkerPool.builder().name("own").capacity(1).build();
        this.runner.withBean("own", WorkerPool.class, () -> own).run((context) -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            own.submit(() -> { }).get(10, TimeUnit.SECONDS);
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10))
                .until(() -> registry.get("executor").tag("name", "own").timer().count() == 1);
            assertThat(registry.get("executor.idle").tag("name", "own").timer().count()).isEqualTo(1);
        });
    }

    @Test
    void everyPoolBeanIsInTheEndpointMetersAndHealthUnderItsBeanName() {
        WorkerPool own = WorkerPool.builder().name("inner-name").capacity(3).build();
        io.github.workerpool.FunctionPool<String> function = io.github.workerpool.FunctionPool
            .of(WorkerPool.builder().name("fn").capacity(2), (s) -> { });
        io.github.workerpool.MultiPool multi = io.github.workerpool.MultiPool.of(2,
                WorkerPool.builder().name("mp").capacity(1), io.github.workerpool.MultiPool.LoadBalancing.ROUND_ROBIN);
        this.runner.withBean("own", WorkerPool.class, () -> own)
            .withBean("function", io.github.workerpool.FunctionPool.class, () -> function)
            .withBean("multi", io.github.workerpool.MultiPool.class, () -> multi)
            .run((context) -> {
                PoolsEndpoint endpoint = context.getBean(PoolsEndpoint.class);
                assertThat(endpoint.pools().pools()).containsKeys("mail", "fixed", "own", "function", "multi");
                assertThat(endpoint.pool("own").name()).isEqualTo("own");
                assertThat(endpoint.pool("own").config()).containsEntry("name", "inner-name");
                assertThat(endpoint.pool("multi").capacity()).isEqualTo(2);
                // Its options are each pool's: the count says the capacity above is their sum.
                assertThat(endpoint.pool("multi").config()).containsEntry("capacity", 1).containsEntry("pools", 2);
                assertThat(endpoint.pool("own").config()).doesNotContainKey("pools");
                MeterRegistry registry = context.getBean(MeterRegistry.class);
                for (String name : new String[] { "own", "function", "multi" }) {
                    assertThat(registry.find("executor.pool.max").tag("name", name).gauges()).as(name).hasSize(1);
                }
                assertThat(registry.find("executor.pool.max").tag("name", "inner-name").gauges()).isEmpty();
                PoolsHealthContributor health = context.getBean(PoolsHealthContributor.class);
                assertThat(health.getContributor("function")).isNotNull();
                assertThat(health.getContributor("multi")).isNotNull();
            });
    }

    @Test
    void metersAreRemovedWhenPoolIsDestroyed() {
        MeterRegistry[] registry = new MeterRegistry[1];
        this.runner.run((context) -> {
            registry[0] = context.getBean(MeterRegistry.class);
            assertThat(registry[0].find("executor.pool.max").tag("name", "mail").meters()).hasSize(1);
            ((org.springframework.beans.factory.support.DefaultListableBeanFactory) context.getBeanFactory())
                .destroySingleton("mail");
            assertThat(registry[0].find("executor.pool.max").tag("name", "mail").meters()).isEmpty();
            assertThat(registry[0].find("executor.idle").tag("name", "mail").meters()).isEmpty();
            assertThat(registry[0].find("executor").tag("name", "mail").meters()).isEmpty();
            assertThat(registry[0].find("executor.pool.max").tag("name", "fixed").meters()).hasSize(1);
        });
        assertThat(registry[0].find("executor.pool.max").tag("name", "fixed").meters()).isEmpty();
    }

    @Test
    void healthIsUpWithDetailsAndDownForPoolClosedWhileAppRuns() {
        this.runner.run((context) -> {
            PoolsHealthContributor health = context.getBean("poolsHealthContributor", PoolsHealthContributor.class);
            Health up = ((HealthIndicator) health.getContributor("mail")).health();
            assertThat(up.getStatus()).isEqualTo(Status.UP);
            assertThat(up.getDetails()).containsEntry("capacity", 2).containsKeys("running", "waiting", "queued");
            context.getBean("mail", SpringPool.class).shutdown();
            assertThat(((HealthIndicator) health.getContributor("mail")).health().getStatus()).isEqualTo(Status.DOWN);
            assertThat(((HealthIndicator) health.getContributor("fixed")).health().getStatus()).isEqualTo(Status.UP);
            assertThat(health.stream().map((e) -> e.name())).containsExactlyInAnyOrder("mail", "fixed");
        });
    }

    @Test
    void aPoolWhoseClosedFlagCannotBeRead_isDownWithTheError() {
        // Review helper-174: isClosed() was read outside the try: its exception made
        // /actuator/health a 500 for the whole application.
        WorkerPool inner = WorkerPool.builder().name("gone").capacity(1).build();
        io.github.workerpool.Pool gone = new io.github.workerpool.ForwardingPool() {
            @Override
            protected io.github.workerpool.Pool delegate() {
                return inner;
            }

            @Override
            public boolean isClosed() {
                throw new IllegalStateException("target gone");
            }
        };
        try {
            this.runner.withBean("gone", io.github.workerpool.Pool.class, () -> gone).run((context) -> {
                PoolsHealthContributor health = context.getBean(PoolsHealthContributor.class);
                Health down = ((HealthIndicator) health.getContributor("gone")).health();
                assertThat(down.getStatus()).isEqualTo(Status.DOWN);
                assertThat(String.valueOf(down.getDetails().get("error"))).contains("target gone");
            });
        } finally {
            inner.close();
        }
    }

    @Test
    void aPoolThatCannotBeRead_isListedApartAndDownWithTheError_andTheOthersStayReadable() {
        WorkerPool inner = WorkerPool.builder().name("broken").capacity(1).build();
        io.github.workerpool.Pool broken = new io.github.workerpool.ForwardingPool() {
            @Override
            protected io.github.workerpool.Pool delegate() {
                return inner;
            }

            @Override
            public io.github.workerpool.PoolStats stats() {
                throw new IllegalStateException("the target could not be made");
            }
        };
        // A refresh-scoped pool whose target could not be rebuilt (review helper-153): the list and
        // /actuator/health were a 500 for every pool.
        this.runner.withBean("broken", io.github.workerpool.Pool.class, () -> broken).run((context) -> {
            PoolsEndpoint.PoolsDescriptor all = context.getBean(PoolsEndpoint.class).pools();
            assertThat(all.pools()).containsOnlyKeys("mail", "fixed");
            assertThat(all.unreadable()).containsOnlyKeys("broken");
            assertThat(all.unreadable().get("broken")).contains("IllegalStateException: the target could not be made");
            PoolsHealthContributor health = context.getBean(PoolsHealthContributor.class);
            Health down = ((HealthIndicator) health.getContributor("broken")).health();
            assertThat(down.getStatus()).isEqualTo(Status.DOWN);
            assertThat(String.valueOf(down.getDetails().get("error"))).contains("the target could not be made");
            assertThat(((HealthIndicator) health.getContributor("mail")).health().getStatus()).isEqualTo(Status.UP);
            org.springframework.boot.actuate.endpoint.web.WebEndpointResponse<Object> one =
                    new PoolsEndpointWebExtension(context.getBean(PoolsEndpoint.class)).pool("broken");
            assertThat(one.getStatus()).isEqualTo(503);
            assertThat(one.getBody()).asString().contains("Pool 'broken' could not be read",
                    "the target could not be made");
        });
        inner.shutdown();
    }

    @Test
    void aTuneOrPurgeOfAPoolThatCannotBeReached_answers503WithTheError() {
        WorkerPool inner = WorkerPool.builder().name("broken").capacity(1).build();
        java.util.concurrent.atomic.AtomicBoolean lost = new java.util.concurrent.atomic.AtomicBoolean();
        io.github.workerpool.Pool broken = new io.github.workerpool.ForwardingPool() {
            @Override
            protected io.github.workerpool.Pool delegate() {
                if (lost.get()) {
                    throw new IllegalStateException("the target could not be made");
                }
                return inner;
            }
        };
        // A refresh-scoped pool whose target could not be rebuilt: its GET said 503 with the error,
        // but a tune or purge of it was a bare 500 (review helper-155).
        this.runner.withBean("broken", io.github.workerpool.Pool.class, () -> broken).run((context) -> {
            lost.set(true);
            PoolsEndpointWebExtension web = new PoolsEndpointWebExtension(context.getBean(PoolsEndpoint.class));
            org.springframework.boot.actuate.endpoint.web.WebEndpointResponse<Object> purge =
                    web.actionWithoutBody("broken", "purge");
            assertThat(purge.getStatus()).isEqualTo(503);
            assertThat(purge.getBody()).asString().contains("Pool 'broken' could not be reached, nothing was changed",
                    "the target could not be made");
            org.springframework.boot.actuate.endpoint.web.WebEndpointResponse<Object> tune = web.action("broken",
                    "tune", 3, null, null, null, null, null, null, null, null, null, null, null, null);
            assertThat(tune.getStatus()).isEqualTo(503);
            assertThat(tune.getBody()).asString().contains("Pool 'broken' could not be reached, nothing was changed",
                    "the target could not be made");
            assertThat(web.actionWithoutBody("mail", "purge").getStatus()).isEqualTo(200);
            lost.set(false);
        });
        inner.shutdown();
    }

    @Test
    void healthBacksOffWhenDisabled() {
        this.runner.withPropertyValues("management.health.pools.enabled=false")
            .run((context) -> assertThat(context).doesNotHaveBean("poolsHealthContributor"));
    }

    @Test
    void endpointBacksOffWhenUserDefinesOne() {
        this.runner.withBean(PoolsEndpoint.class, () -> new PoolsEndpoint(Map::of)).run((context) -> {
            assertThat(context).hasSingleBean(PoolsEndpoint.class);
            assertThat(context.getBean(PoolsEndpoint.class).pools().pools()).isEmpty();
        });
    }

    @Test
    void worksWithoutActuator() {
        new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(PoolsAutoConfiguration.class, TaskExecutionAutoConfiguration.class,
                    PoolsEndpointAutoConfiguration.class, PoolsMetricsAutoConfiguration.class,
                    PoolsHealthContributorAutoConfiguration.class))
            .withPropertyValues("pools.instances.mail.capacity=2")
            .withClassLoader(new FilteredClassLoader("org.springframework.boot.actuate",
                    "org.springframework.boot.health"))
            .run((context) -> {
                assertThat(context).hasNotFailed().hasBean("mail").doesNotHaveBean(PoolsEndpoint.class)
                    .doesNotHaveBean("poolsHealthContributor");
                assertThat(context.getBean("mail", SpringPool.class).submit(() -> 1).get(10, TimeUnit.SECONDS))
                    .isEqualTo(1);
            });
    }

    @Test
    void worksWithoutMicrometer() {
        new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(PoolsAutoConfiguration.class, PoolsMetricsAutoConfiguration.class,
                    PoolsEndpointAutoConfiguration.class, EndpointAutoConfiguration.class))
            .withClassLoader(new FilteredClassLoader("io.micrometer"))
            .withPropertyValues("pools.instances.mail.capacity=2", "management.endpoints.web.exposure.include=pools")
            .run((context) -> {
                assertThat(context).hasNotFailed().hasBean("mail").doesNotHaveBean(PoolsMeterBinder.class)
                    .hasSingleBean(PoolsEndpoint.class);
                assertThat(context.getBean("mail", SpringPool.class).submit(() -> 1).get(10, TimeUnit.SECONDS))
                    .isEqualTo(1);
            });
    }

    @Test
    void propagateContextCarriesThreadLocalsRegisteredWithContextPropagation() {
        ThreadLocal<String> tenant = new ThreadLocal<>();
        ContextRegistry.getInstance().registerThreadLocalAccessor("test.tenant", tenant);
        try {
            this.runner.withPropertyValues("pools.propagate-context=true").run((context) -> {
                SpringPool mail = context.getBean("mail", SpringPool.class);
                tenant.set("acme");
                try {
                    assertThat(mail.submit(tenant::get).get(10, TimeUnit.SECONDS)).isEqualTo("acme");
                }
                finally {
                    tenant.remove();
                }
            });
            this.runner.run((context) -> {
                SpringPool mail = context.getBean("mail", SpringPool.class);
                tenant.set("acme");
                try {
                    assertThat(mail.submit(tenant::get).get(10, TimeUnit.SECONDS)).isNull();
                }
                finally {
                    tenant.remove();
                }
            });
        }
        finally {
            ContextRegistry.getInstance().removeThreadLocalAccessor("test.tenant");
        }
    }

    @Test
    void springTaskExecutionPropagateContextAppliesToPoolsToo() {
        ThreadLocal<String> tenant = new ThreadLocal<>();
        ContextRegistry.getInstance().registerThreadLocalAccessor("test.tenant", tenant);
        try {
            this.runner.withPropertyValues("spring.task.execution.propagate-context=true").run((context) -> {
                tenant.set("acme");
                try {
                    SpringPool mail = context.getBean("mail", SpringPool.class);
                    assertThat(mail.submit(tenant::get).get(10, TimeUnit.SECONDS)).isEqualTo("acme");
                }
                finally {
                    tenant.remove();
                }
            });
        }
        finally {
            ContextRegistry.getInstance().removeThreadLocalAccessor("test.tenant");
        }
    }

    @Test
    void propagateContextWithoutContextPropagationLibraryFailsStartup() {
        this.runner.withClassLoader(new FilteredClassLoader("io.micrometer.context"))
            .withPropertyValues("pools.propagate-context=true")
            .run((context) -> {
                var analysis = PoolsAutoConfigurationTests.analyze(context);
                assertThat(analysis.getDescription()).contains("pools.propagate-context");
                assertThat(analysis.getAction()).contains("io.micrometer:context-propagation");
            });
    }

    private static void assertBadRequest(PoolsEndpoint endpoint, String pool, String action, Object capacity,
            String message) {
        assertThatExceptionOfType(InvalidEndpointRequestException.class)
            .isThrownBy(() -> tune(endpoint, pool, action, capacity))
            .withMessageContaining(message);
    }

    /** The endpoint's write operation with only a capacity, as over JMX. */
    static Object tune(PoolsEndpoint endpoint, String pool, String action, Object capacity) {
        return endpoint.action(pool, action, capacity, null, null, null, null, null, null, null, null, null, null,
                null, null);
    }

}
