package io.github.workerpool.spring.boot.autoconfigure;

import java.io.InterruptedIOException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.workerpool.adaptive.AdaptiveCapacity;
import io.github.workerpool.spring.boot.autoconfigure.web.WebServerPoolAutoConfiguration;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.actuate.audit.AuditEvent;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.cloud.context.environment.EnvironmentChangeEvent;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.MapPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Adaptive capacity from {@code pools.*.adaptive.*}: binding and inheritance, startup checks that
 * name the property, the endpoint (shown, switched on and off, the interplay with a manual tune),
 * {@code executor.pool.max}, refresh, and the starter without pool-adaptive.
 */
@ExtendWith(OutputCaptureExtension.class)
class PoolsAdaptiveTests {

    private static final Duration WAIT = Duration.ofSeconds(10);

    private static final AutoConfigurations CONFIGURATIONS = AutoConfigurations.of(PoolsAutoConfiguration.class,
            TaskExecutionAutoConfiguration.class, PoolsEndpointAutoConfiguration.class,
            PoolsMetricsAutoConfiguration.class, EndpointAutoConfiguration.class, MetricsAutoConfiguration.class,
            CompositeMeterRegistryAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class);

    private static final String[] PROPERTIES = { "pools.instances.db.capacity=100",
            "pools.instances.db.adaptive.enabled=true", "pools.instances.db.adaptive.min-capacity=2",
            "pools.instances.db.adaptive.max-capacity=64", "pools.instances.db.adaptive.algorithm=Vegas",
            "pools.instances.mail.capacity=3", "pools.instances.fixed.capacity=2",
            "pools.instances.fixed.pre-alloc=true", "management.endpoints.web.exposure.include=pools" };

    private final ApplicationContextRunner runner = new ApplicationContextRunner().withConfiguration(CONFIGURATIONS)
        .withPropertyValues(PROPERTIES);

    /**
     * A servlet application with Tomcat on the classpath, where pools.web-server.pool applies (the
     * server itself is not started); its pools have the queue the web server's rules ask for.
     */
    private final WebApplicationContextRunner webRunner = new WebApplicationContextRunner()
        .withConfiguration(CONFIGURATIONS)
        .withConfiguration(AutoConfigurations.of(WebServerPoolAutoConfiguration.class))
        .withPropertyValues(PROPERTIES)
        .withPropertyValues("pools.defaults.queue-capacity=" + Integer.MAX_VALUE);

    // ---------------------------------------------------------------- properties

    @Test
    void aCustomizerThatFixesTheCapacity_orTakesAimdsRunTimeout_failsStartupNamingTheProperty() {
        // helper-113: the properties' checks run before the customizers, and a pre-alloc pool got
        // no adaptive sizing without a word; aimd with no run timeout would only grow.
        this.runner.withBean(WorkerPoolBuilderCustomizer.class, () -> (name, builder) -> {
            if (name.equals("db")) {
                builder.preAlloc(true);
            }
        }).run((context) -> assertThat(context).hasFailed().getFailure()
            .hasRootCauseInstanceOf(PoolConfigurationException.class)
            .rootCause()
            .hasMessageContaining("pools.instances.db.adaptive.enabled")
            .hasMessageContaining("a WorkerPoolBuilderCustomizer set preAlloc(true) on pool 'db'"));
        this.runner.withPropertyValues("pools.instances.db.adaptive.algorithm=aimd", "pools.instances.db.run-timeout=1s")
            .withBean(WorkerPoolBuilderCustomizer.class, () -> (name, builder) -> builder.runTimeout(null))
            .run((context) -> assertThat(context).hasFailed().getFailure()
                .rootCause()
                .hasMessageContaining("pools.instances.db.adaptive.algorithm")
                .hasMessageContaining("a WorkerPoolBuilderCustomizer set runTimeout(null) on pool 'db'"));
    }

    @Test
    void adaptivePoolFromPropertiesSizesItselfWithinItsBounds() {
        this.runner.run((context) -> {
            SpringPool db = context.getBean("db", SpringPool.class);
            assertThat(db.adaptive().enabled()).isTrue();
            assertThat(db.adaptive().settings()).satisfies((s) -> {
                assertThat(s.algorithm()).isEqualTo("vegas");
                assertThat(s.minCapacity()).isEqualTo(2);
                assertThat(s.maxCapacity()).isEqualTo(64);
            });
            assertThat(db.capacity()).as("starts from capacity, clamped to max-capacity").isEqualTo(64);
            assertThat(db.adaptive().configuredCapacity()).isEqualTo(100);
            SpringPool mail = context.getBean("mail", SpringPool.class);
            assertThat(mail.adaptive().enabled()).as("off unless enabled").isFalse();
            assertThat(mail.capacity()).isEqualTo(3);
            assertThat(context.getBean("fixed", SpringPool.class).adaptive()).as("pre-alloc: fixed capacity").isNull();
        });
    }

    @Test
    void adaptiveOptionsAreInheritedFromDefaults() {
        this.runner.withPropertyValues("pools.defaults.adaptive.enabled=true", "pools.defaults.adaptive.max-capacity=50",
                "pools.defaults.adaptive.algorithm=aimd", "pools.defaults.run-timeout=2s",
                "pools.instances.fixed.adaptive.enabled=false").run((context) -> {
                    SpringPool mail = context.getBean("mail", SpringPool.class);
                    assertThat(mail.adaptive().enabled()).isTrue();
                    assertThat(mail.adaptive().settings().algorithm()).isEqualTo("aimd");
                    assertThat(mail.adaptive().settings().minCapacity()).isEqualTo(1);
                    assertThat(mail.adaptive().settings().maxCapacity()).isEqualTo(50);
                    assertThat(context.getBean("db", SpringPool.class).adaptive().settings().maxCapacity())
                        .as("the instance's own wins").isEqualTo(64);
                });
    }

    @Test
    void defaultBoundsAreOneTo200() {
        this.runner.withPropertyValues("pools.instances.mail.adaptive.enabled=true", "pools.instances.mail.capacity=500")
            .run((context) -> {
                SpringPool mail = context.getBean("mail", SpringPool.class);
                assertThat(mail.adaptive().settings().algorithm()).isEqualTo("gradient2");
                assertThat(mail.adaptive().settings().minCapacity()).isEqualTo(1);
                assertThat(mail.adaptive().settings().maxCapacity()).isEqualTo(200);
                assertThat(mail.capacity()).isEqualTo(200);
            });
    }

    @Test
    void badAdaptiveValuesFailStartupNamingPropertyValueAndFix() {
        fails("pools.instances.db.adaptive.min-capacity=0", "pools.instances.db.adaptive.min-capacity", "0",
                "set it to a number >= 1");
        fails("pools.instances.db.adaptive.max-capacity=1", "pools.instances.db.adaptive.min-capacity (2)", "1",
                "set it to a number >= 1 and >= adaptive.min-capacity");
        fails("pools.instances.db.adaptive.algorithm=tcp", "pools.instances.db.adaptive.algorithm", "tcp",
                "set it to gradient2, aimd or vegas");
        fails("pools.instances.db.adaptive.algorithm=aimd", "pools.instances.db.adaptive.algorithm", "aimd",
                "Set pools.instances.db.run-timeout");
        fails("pools.instances.fixed.adaptive.enabled=true", "pools.instances.fixed.adaptive.enabled", "true",
                "Set pools.instances.fixed.pre-alloc to false");
        fails("pools.defaults.adaptive.min-capacity=-4", "pools.defaults.adaptive.min-capacity", "-4",
                "set it to a number >= 1");
        fails("pools.instances.db.adaptive.max-capacity=lots", "pools.instances.db.adaptive.max-capacity", "lots",
                "adaptive.min-capacity");
    }

    @Test
    void badDropOnFailsStartupNamingPropertyValueAndFix() {
        fails("pools.instances.db.adaptive.drop-on=java.util.concurrent.NoSuchTimeoutException",
                "there is no class named 'java.util.concurrent.NoSuchTimeoutException'",
                "pools.instances.db.adaptive.drop-on", "list exception classes by their full names");
        fails("pools.defaults.adaptive.drop-on=java.lang.String", "pools.defaults.adaptive.drop-on",
                "java.lang.String is not an exception class", "list exception classes by their full names");
        fails("pools.instances.db.adaptive.drop-on=java.util.concurrent.TimeoutException, ",
                "pools.instances.db.adaptive.drop-on", "an entry is empty", "list exception classes");
        this.runner.withPropertyValues("pools.instances.mail.adaptive.enabled=true",
                "pools.instances.mail.adaptive.drop-on=java.util.concurrent.TimeoutException").run((context) -> {
                    var analysis = PoolsAutoConfigurationTests.analyze(context);
                    assertThat(analysis.getDescription()).contains("pools.instances.mail.adaptive.drop-on")
                        .contains("gradient2 (pools.instances.mail.adaptive.algorithm)")
                        .contains("never backs off on a failure");
                    assertThat(analysis.getAction()).contains("Set pools.instances.mail.adaptive.algorithm to aimd or "
                            + "vegas, or remove pools.instances.mail.adaptive.drop-on");
                });
        // Inherited: the fix is this pool's own empty value, not removing the default others use.
        this.runner.withPropertyValues("pools.instances.mail.adaptive.enabled=true",
                "pools.defaults.adaptive.drop-on=java.util.concurrent.TimeoutException").run((context) -> {
                    var analysis = PoolsAutoConfigurationTests.analyze(context);
                    assertThat(analysis.getDescription()).contains("pools.defaults.adaptive.drop-on");
                    assertThat(analysis.getAction()).contains("or set pools.instances.mail.adaptive.drop-on to an "
                            + "empty value (it comes from pools.defaults.adaptive.drop-on)");
                });
        this.runner.withPropertyValues("pools.instances.mail.adaptive.enabled=true",
                "pools.defaults.adaptive.drop-on=java.util.concurrent.TimeoutException",
                "pools.instances.mail.adaptive.drop-on=").run((context) -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean("mail", SpringPool.class).adaptive().settings().dropOn()).isEmpty();
                    assertThat(context.getBean("db", SpringPool.class).adaptive().settings().dropOn())
                        .containsExactly(TimeoutException.class);
                });
    }

    @Test
    void dropOnMatchesTheFailureOrAnyCause_bySubclass_andStopsOnACycle() {
        PoolSettings.AdaptiveSettings settings = new PoolSettings.AdaptiveSettings(true, 1, 10, "aimd",
                List.of(TimeoutException.class, InterruptedIOException.class), "enabled", "algorithm");
        assertThat(settings.isDrop(new TimeoutException())).isTrue();
        assertThat(settings.isDrop(new SocketTimeoutException())).as("a subclass").isTrue();
        assertThat(settings.isDrop(new RuntimeException(new IllegalStateException(new TimeoutException()))))
            .as("two causes down").isTrue();
        assertThat(settings.isDrop(new IllegalStateException("refused"))).isFalse();
        Exception a = new Exception("a");
        Exception b = new Exception("b", a);
        a.initCause(b);
        assertThat(settings.isDrop(a)).as("a cycle of causes ends").isFalse();
    }

    @Test
    void dropOnFailuresMakeAimdBackOff_andOtherFailuresDoNot() {
        // Two pools alike but for drop-on; run-timeout far above the tasks' run time, so that the
        // failures are the only overload signal either could see.
        List<String> properties = new ArrayList<>();
        for (String pool : List.of("backend", "other", "mismatch")) {
            properties.addAll(List.of("pools.instances." + pool + ".capacity=32",
                    "pools.instances." + pool + ".run-timeout=30s", "pools.instances." + pool + ".adaptive.enabled=true",
                    "pools.instances." + pool + ".adaptive.algorithm=aimd",
                    "pools.instances." + pool + ".adaptive.max-capacity=64"));
        }
        properties.add("pools.instances.backend.adaptive.drop-on=java.util.concurrent.TimeoutException");
        // Declares another failure: the tasks' TimeoutException is not it.
        properties.add("pools.instances.mismatch.adaptive.drop-on=java.util.concurrent.CancellationException");
        this.runner.withPropertyValues(properties.toArray(String[]::new)).run((context) -> {
                    SpringPool backend = context.getBean("backend", SpringPool.class);
                    SpringPool other = context.getBean("other", SpringPool.class);
                    SpringPool mismatch = context.getBean("mismatch", SpringPool.class);
                    assertThat(backend.adaptive().settings().dropOn()).containsExactly(TimeoutException.class);
                    assertThat(other.adaptive().settings().dropOn()).isEmpty();
                    assertThat(backend.adaptive().limit()).isEqualTo(32);
                    // A timeout from the backend, wrapped as client libraries do: matched through its cause.
                    await().atMost(Duration.ofSeconds(20)).until(() -> {
                        failBatch(backend, other, mismatch);
                        return backend.adaptive().limit() < 32;
                    });
                    // One more batch, so that the others' windows, which saw the same failures, closed too.
                    failBatch(other, mismatch);
                    assertThat(other.adaptive().limit()).as("no drop-on").isGreaterThanOrEqualTo(32);
                    assertThat(mismatch.adaptive().limit()).as("drop-on of another exception").isGreaterThanOrEqualTo(32);
                });
    }

    /**
     * Runs 50 tasks on each pool that wait 1 ms for a backend, then fail with a wrapped
     * TimeoutException, and waits for them. (The limiter ignores tasks shorter than 100 us.)
     */
    private static void failBatch(SpringPool... pools) throws InterruptedException {
        List<Future<?>> futures = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            for (SpringPool pool : pools) {
                futures.add(pool.submit(() -> {
                    Thread.sleep(1);
                    throw new IllegalStateException("backend call failed", new TimeoutException("backend"));
                }));
            }
        }
        for (Future<?> f : futures) {
            try {
                f.get();
            }
            catch (ExecutionException expected) {
                // each task fails by design
            }
        }
    }

    private void fails(String property, String name, String value, String fix) {
        this.runner.withPropertyValues(property).run((context) -> {
            var analysis = PoolsAutoConfigurationTests.analyze(context);
            assertThat(analysis.getDescription()).as(property).contains(name).contains(value);
            assertThat(analysis.getAction()).as(property).contains(fix);
        });
    }

    @Test
    void withoutPoolAdaptive_enabledFailsNamingTheDependency_andOtherPoolsHaveNone() {
        ApplicationContextRunner without = this.runner.withClassLoader(new FilteredClassLoader(AdaptiveCapacity.class));
        without.run((context) -> {
            var analysis = PoolsAutoConfigurationTests.analyze(context);
            assertThat(analysis.getDescription()).contains("pools.instances.db.adaptive.enabled")
                .contains("io.github.workerpool:pool-adaptive");
            assertThat(analysis.getAction()).contains("Add the io.github.workerpool:pool-adaptive dependency");
        });
        without.withPropertyValues("pools.instances.db.adaptive.enabled=false").run((context) -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean("db", SpringPool.class).adaptive()).isNull();
            PoolsEndpoint.PoolDescriptor db = context.getBean(PoolsEndpoint.class).pool("db");
            assertThat(db.adaptive()).isNull();
            assertThatExceptionOfType(InvalidEndpointRequestException.class)
                .isThrownBy(() -> tune(context, "db", Map.of(), true))
                .withMessageContaining("add the io.github.workerpool:pool-adaptive dependency");
        });
    }

    // ---------------------------------------------------------------- endpoint

    @Test
    void endpointShowsWhetherAPoolIsAdaptive_itsBoundsLimitAndDropOn() {
        this.runner.withPropertyValues("pools.instances.db.adaptive.drop-on=java.util.concurrent.TimeoutException,"
                + "java.net.SocketTimeoutException").run((context) -> {
            PoolsEndpoint.PoolsDescriptor all = context.getBean(PoolsEndpoint.class).pools();
            PoolsEndpoint.AdaptiveDescriptor db = all.pools().get("db").adaptive();
            assertThat(db).isEqualTo(new PoolsEndpoint.AdaptiveDescriptor(true, "vegas", 2, 64, 64, 100,
                    List.of("java.util.concurrent.TimeoutException", "java.net.SocketTimeoutException")));
            assertThat(all.pools().get("db").capacity()).isEqualTo(64);
            assertThat(all.pools().get("mail").adaptive())
                .isEqualTo(new PoolsEndpoint.AdaptiveDescriptor(false, "gradient2", 1, 200, null, 3, List.of()));
            assertThat(all.pools().get("fixed").adaptive()).isNull();
        });
    }

    @Test
    void switchingAdaptiveOffRestoresTheConfiguredCapacity_andOnAgainStartsFromIt(CapturedOutput output) {
        this.runner.withUserConfiguration(PoolsActuatorAutoConfigurationTests.AuditCapture.class).run((context) -> {
            PoolsEndpoint.PoolDescriptor off = tune(context, "db", Map.of(), false);
            assertThat(off.capacity()).isEqualTo(100);
            assertThat(off.adaptive().enabled()).isFalse();
            assertThat(off.adaptive().limit()).isNull();
            PoolsEndpoint.PoolDescriptor on = tune(context, "db", Map.of(), "true");
            assertThat(on.capacity()).isEqualTo(64);
            assertThat(on.adaptive().enabled()).isTrue();
            AuditEvent audit = context.getBean(PoolsActuatorAutoConfigurationTests.AuditCapture.class).events.get(0)
                .getAuditEvent();
            assertThat(audit.getData().get("old").toString()).isEqualTo("{adaptive=true}");
            assertThat(audit.getData().get("new").toString()).isEqualTo("{adaptive=false}");
            assertThat(output).contains("Pool 'db' tuned by alice: adaptive true -> false");
        });
    }

    @Test
    void switchedOnAtTheEndpoint_gradient2WithADropOn_isWarnedThatDropOnIsNotUsed(CapturedOutput output) {
        // Review helper-157: startup refuses the pair only on a pool that starts adaptive.
        this.runner.withPropertyValues("pools.defaults.adaptive.drop-on=java.util.concurrent.TimeoutException")
            .run((context) -> {
                assertThat(context).hasNotFailed();
                tune(context, "db", Map.of(), false);
                tune(context, "db", Map.of(), true);
                assertThat(output).as("db is vegas").doesNotContain("is not used");
                assertThatExceptionOfType(InvalidEndpointRequestException.class)
                    .isThrownBy(() -> tune(context, "mail", Map.of(PoolOption.CAPACITY, -5), true));
                assertThat(output).as("a refused tune switches nothing on").doesNotContain("is not used");
                PoolsEndpoint.PoolDescriptor on = tune(context, "mail", Map.of(), true);
                assertThat(on.adaptive().enabled()).isTrue();
                assertThat(output).contains("Pool 'mail': adaptive sizing switched on with gradient2 (pools.instances"
                        + ".mail.adaptive.algorithm), which never backs off on a failure, so its drop-on "
                        + "[java.util.concurrent.TimeoutException] is not used; set pools.instances.mail.adaptive"
                        + ".algorithm to aimd or vegas");
            });
    }

    @Test
    void aManualCapacityTuneOnAnAdaptivePoolSwitchesAdaptiveOff_andThePoolKeepsIt() {
        this.runner.run((context) -> {
            PoolsEndpoint.PoolDescriptor tuned = tune(context, "db", Map.of(PoolOption.CAPACITY, 5), null);
            assertThat(tuned.capacity()).isEqualTo(5);
            assertThat(tuned.adaptive().enabled()).isFalse();
            assertThat(tuned.adaptive().configuredCapacity()).isEqualTo(5);
            // On again: from the tuned capacity, and off again restores it.
            assertThat(tune(context, "db", Map.of(), true).capacity()).isEqualTo(5);
            assertThat(tune(context, "db", Map.of(), false).capacity()).isEqualTo(5);
        });
    }

    @Test
    void capacityWithAdaptiveTrueIsWhereItStartsAndWhatOffRestores() {
        this.runner.run((context) -> {
            PoolsEndpoint.PoolDescriptor mail = tune(context, "mail",
                    Map.of(PoolOption.CAPACITY, 20, PoolOption.NONBLOCKING, true), true);
            assertThat(mail.adaptive().enabled()).isTrue();
            assertThat(mail.adaptive().configuredCapacity()).isEqualTo(20);
            assertThat(mail.capacity()).isEqualTo(20);
            assertThat(mail.config()).containsEntry("nonblocking", true);
            PoolsEndpoint.PoolDescriptor db = tune(context, "db", Map.of(PoolOption.CAPACITY, 10), true);
            assertThat(db.adaptive().enabled()).isTrue();
            assertThat(db.adaptive().configuredCapacity()).isEqualTo(10);
            assertThat(db.capacity()).isEqualTo(10);
            assertThat(tune(context, "db", Map.of(), false).capacity()).isEqualTo(10);
        });
    }

    @Test
    void otherOptionsTunedOnAnAdaptivePoolLeaveItAdaptive() {
        this.runner.run((context) -> {
            PoolsEndpoint.PoolDescriptor db = tune(context, "db", Map.of(PoolOption.QUEUE_TIMEOUT, "2s"), null);
            assertThat(db.adaptive().enabled()).isTrue();
            assertThat(db.capacity()).isEqualTo(64);
        });
    }

    @Test
    void badAdaptiveFieldsAreA400AndChangeNothing() {
        this.runner.run((context) -> {
            assertThatExceptionOfType(InvalidEndpointRequestException.class)
                .isThrownBy(() -> tune(context, "db", Map.of(PoolOption.CAPACITY, 7), "maybe"))
                .withMessageContaining("Cannot tune pool 'db': adaptive must be true or false, but was \"maybe\"");
            assertThatExceptionOfType(InvalidEndpointRequestException.class)
                .isThrownBy(() -> tune(context, "db", Map.of(PoolOption.CAPACITY, 0), false))
                .withMessageContaining("capacity");
            assertThatExceptionOfType(InvalidEndpointRequestException.class)
                .isThrownBy(() -> tune(context, "fixed", Map.of(), true))
                .withMessageContaining("preAlloc");
            SpringPool db = context.getBean("db", SpringPool.class);
            assertThat(db.adaptive().enabled()).isTrue();
            assertThat(db.capacity()).isEqualTo(64);
        });
    }

    @Test
    void adaptiveSizingSwitchedOffFromTheEndpoint_staysOff_whenARefreshChangesOnlyTheCapacity() {
        this.runner.run((context) -> {
            SpringPool db = context.getBean("db", SpringPool.class);
            assertThat(db.adaptive().enabled()).isTrue();
            tune(context, "db", Map.of(), false);
            refresh(context, Map.of("pools.instances.db.capacity", "9"));
            assertThat(db.adaptive().enabled()).as("the operator's switch stays").isFalse();
            assertThat(db.capacity()).as("off: the capacity is the pool's, and applies").isEqualTo(9);
        });
    }

    @Test
    void aRefreshThatWouldLeaveAnAimdPoolWithoutARunTimeout_isRefused(CapturedOutput output) {
        // Found by a review: configured off, switched on from the endpoint, then the run-timeout
        // removed from the configuration: the refresh checked the configuration alone.
        this.runner.withPropertyValues("pools.instances.db.adaptive.enabled=false", "pools.instances.db.adaptive.algorithm=aimd",
                "pools.instances.db.run-timeout=5s").run((context) -> {
                    SpringPool db = context.getBean("db", SpringPool.class);
                    tune(context, "db", Map.of(), true);
                    assertThat(db.adaptive().enabled()).isTrue();
                    removeProperty(context, "pools.instances.db.run-timeout");
                    assertThat(db.config().runTimeout()).isEqualTo(java.time.Duration.ofSeconds(5));
                    assertThat(output).contains("Pool 'db' not refreshed, it keeps its options")
                        .contains("'pools.instances.db.run-timeout'").contains("aimd");
                });
    }

    @Test
    void aRefreshThatSwitchesAimdOn_appliesTheConfiguredRunTimeout_thatTheEndpointRemoved(CapturedOutput output) {
        // Found by a review: configured off with a run-timeout, the run-timeout removed at the
        // endpoint (allowed: adaptive was off), then a refresh switching aimd on was refused for a
        // "missing" run-timeout that the configuration sets, at every later refresh too.
        this.runner.withPropertyValues("pools.instances.db.adaptive.enabled=false", "pools.instances.db.adaptive.algorithm=aimd",
                "pools.instances.db.run-timeout=5s").run((context) -> {
                    SpringPool db = context.getBean("db", SpringPool.class);
                    tune(context, "db", Map.of(PoolOption.RUN_TIMEOUT, "none"), null);
                    assertThat(db.config().runTimeout()).isNull();
                    refresh(context, Map.of("pools.instances.db.adaptive.enabled", "true"));
                    assertThat(db.adaptive().enabled()).isTrue();
                    assertThat(db.config().runTimeout()).isEqualTo(java.time.Duration.ofSeconds(5));
                    assertThat(output).doesNotContain("not refreshed").contains("runTimeout null -> 5s");
                });
    }

    @Test
    void removingTheRunTimeoutOfAnAimdPoolThroughTheEndpoint_isA400_asAtStartup() {
        // Found by a review: startup refuses aimd without a run-timeout (the capacity would only
        // grow), and the endpoint let one be removed.
        this.runner.withPropertyValues("pools.instances.db.adaptive.algorithm=aimd", "pools.instances.db.run-timeout=2s")
            .run((context) -> {
                SpringPool db = context.getBean("db", SpringPool.class);
                assertThat(db.adaptive().settings().algorithm()).isEqualTo("aimd");
                assertThatExceptionOfType(InvalidEndpointRequestException.class)
                    .isThrownBy(() -> tune(context, "db", Map.of(PoolOption.RUN_TIMEOUT, "none"), null))
                    .withMessageContaining("aimd").withMessageContaining("\"adaptive\": false");
                assertThat(db.config().runTimeout()).isEqualTo(java.time.Duration.ofSeconds(2));
                // Switched off with it, or after, it goes.
                tune(context, "db", Map.of(PoolOption.RUN_TIMEOUT, "none"), false);
                assertThat(db.config().runTimeout()).isNull();
                assertThat(db.adaptive().enabled()).isFalse();
            });
    }

    // ---------------------------------------------------------------- meters, refresh

    @Test
    void executorPoolMaxFollowsTheLimit() {
        this.runner.run((context) -> {
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(registry.get("executor.pool.max").tag("name", "db").gauge().value()).isEqualTo(64);
            tune(context, "db", Map.of(), false);
            // The meters read a snapshot at most 100 ms old.
            await().atMost(Duration.ofSeconds(10))
                .until(() -> registry.get("executor.pool.max").tag("name", "db").gauge().value() == 100);
        });
    }

    @Test
    void refreshAppliesAdaptiveSettingsLive_andCapacityBecomesTheConfiguredCapacity(CapturedOutput output) {
        this.runner.run((context) -> {
            SpringPool db = context.getBean("db", SpringPool.class);
            refresh(context, Map.of("pools.instances.db.capacity", "30"));
            assertThat(db.adaptive().enabled()).isTrue();
            assertThat(db.capacity()).as("adaptive owns the capacity").isEqualTo(64);
            assertThat(db.adaptive().configuredCapacity()).isEqualTo(30);
            refresh(context, Map.of("pools.instances.db.adaptive.max-capacity", "16"));
            assertThat(db.adaptive().settings().maxCapacity()).isEqualTo(16);
            assertThat(db.capacity()).as("a new limit, from the configured capacity").isEqualTo(16);
            refresh(context, Map.of("pools.instances.db.adaptive.enabled", "false"));
            assertThat(db.adaptive().enabled()).isFalse();
            assertThat(db.capacity()).isEqualTo(30);
            refresh(context, Map.of("pools.instances.mail.adaptive.enabled", "true"));
            SpringPool mail = context.getBean("mail", SpringPool.class);
            assertThat(mail.adaptive().enabled()).isTrue();
            assertThat(output).contains("Pool 'db' refreshed from pools.*: configured capacity 100 -> 30")
                .contains("adaptive on (vegas [2, 64]) -> on (vegas [2, 16])")
                .contains("Pool 'mail' refreshed from pools.*: adaptive off (gradient2 [1, 200]) -> on");
            refresh(context, Map.of("pools.instances.mail.adaptive.algorithm", "aimd"));
            assertThat(output).contains("Pool 'mail' not refreshed").contains("run-timeout");
            refresh(context, Map.of("pools.instances.db.adaptive.enabled", "true"));
            refresh(context, Map.of("pools.instances.db.adaptive.drop-on", "java.util.concurrent.TimeoutException"));
            assertThat(db.adaptive().settings().dropOn()).containsExactly(TimeoutException.class);
            assertThat(output).contains("adaptive on (vegas [2, 16]) -> on (vegas [2, 16], drop-on "
                    + "java.util.concurrent.TimeoutException)");
            AdaptiveSupport.Control withDropOn = db.adaptive();
            refresh(context, Map.of("pools.instances.db.adaptive.drop-on",
                    " java.util.concurrent.TimeoutException , java.util.concurrent.TimeoutException"));
            assertThat(db.adaptive()).as("the same classes: no restart").isSameAs(withDropOn);
        });
    }

    @Test
    void newLimiterSettings_startFromTheLimitThePoolHadReached_notFromItsConfiguredCapacity() {
        // helper-141: raising max-capacity on a pool sized up well above its configured capacity
        // restarted sizing from the configured capacity: a pool at 64 dropped to 30 under load.
        this.runner.run((context) -> {
            SpringPool db = context.getBean("db", SpringPool.class);
            refresh(context, Map.of("pools.instances.db.capacity", "30"));
            assertThat(db.capacity()).as("the limit, above the configured capacity").isEqualTo(64);
            refresh(context, Map.of("pools.instances.db.adaptive.max-capacity", "128"));
            assertThat(db.adaptive().settings().maxCapacity()).isEqualTo(128);
            assertThat(db.capacity()).as("from the limit it had reached").isEqualTo(64);
            assertThat(db.adaptive().configuredCapacity()).as("what switching off restores").isEqualTo(30);
            refresh(context, Map.of("pools.instances.db.adaptive.algorithm", "gradient2"));
            assertThat(db.capacity()).as("another algorithm, from the same limit").isEqualTo(64);
            refresh(context, Map.of("pools.instances.db.adaptive.max-capacity", "40"));
            assertThat(db.capacity()).as("clamped to the new bounds").isEqualTo(40);
            refresh(context, Map.of("pools.instances.db.capacity", "12", "pools.instances.db.adaptive.max-capacity", "50"));
            assertThat(db.capacity()).as("a new capacity too: the operator's word, from it").isEqualTo(12);
            refresh(context, Map.of("pools.instances.db.adaptive.enabled", "false"));
            assertThat(db.capacity()).isEqualTo(12);
        });
    }

    @Test
    void aRefreshOfTheBoundsOnly_keepsTheCapacityAnOperatorTuned() {
        // Found by a review: a refresh that changed only adaptive settings handed the unchanged
        // capacity property over as the configured capacity, undoing the operator's tune.
        this.runner.run((context) -> {
            SpringPool db = context.getBean("db", SpringPool.class);
            tune(context, "db", Map.of(PoolOption.CAPACITY, 20), true);
            refresh(context, Map.of("pools.instances.db.adaptive.max-capacity", "32"));
            assertThat(db.adaptive().configuredCapacity()).isEqualTo(20);
            assertThat(db.capacity()).isEqualTo(20);
            assertThat(tune(context, "db", Map.of(), false).capacity()).isEqualTo(20);
            tune(context, "db", Map.of(PoolOption.CAPACITY, 50), true); // on again, from 50 clamped to 32
            refresh(context, Map.of("pools.instances.db.adaptive.max-capacity", "40"));
            assertThat(db.adaptive().enabled()).isTrue();
            assertThat(db.adaptive().configuredCapacity()).as("from the tuned 50, not the property's 100").isEqualTo(50);
            assertThat(db.capacity()).as("the limit it had, not the configured capacity clamped").isEqualTo(32);
            refresh(context, Map.of("pools.instances.db.capacity", "12"));
            assertThat(db.adaptive().configuredCapacity()).as("a changed capacity is handed over").isEqualTo(12);
        });
    }

    @Test
    void anOperatorsSwitch_staysThroughARefreshOfTheBounds_untilAdaptiveEnabledItselfChanges(CapturedOutput output) {
        // helper-135: new bounds, algorithm or drop-on switched adaptive sizing back to what
        // adaptive.enabled says, undoing the operator's switch (an incident's "off", say) that a
        // refresh of any other option keeps.
        this.runner.run((context) -> {
            SpringPool db = context.getBean("db", SpringPool.class);
            tune(context, "db", Map.of(PoolOption.CAPACITY, 50), false); // off, at 50
            refresh(context, Map.of("pools.instances.db.adaptive.max-capacity", "40"));
            assertThat(db.adaptive().enabled()).as("switched off at the endpoint, it stays off").isFalse();
            assertThat(db.adaptive().settings().maxCapacity()).as("with the new bounds").isEqualTo(40);
            assertThat(db.capacity()).as("at the operator's capacity").isEqualTo(50);
            assertThat(output).contains("adaptive off (vegas [2, 64]) -> off (vegas [2, 40])");
            tune(context, "db", Map.of(), true);
            assertThat(db.capacity()).as("switched on: the new bounds apply").isEqualTo(40);
            tune(context, "db", Map.of(), false);
            refresh(context, Map.of("pools.instances.db.adaptive.enabled", "false"));
            refresh(context, Map.of("pools.instances.db.adaptive.enabled", "true"));
            assertThat(db.adaptive().enabled()).as("a changed adaptive.enabled switches it").isTrue();
        });
        this.runner.withPropertyValues("pools.instances.mail.adaptive.max-capacity=20").run((context) -> {
            SpringPool mail = context.getBean("mail", SpringPool.class);
            tune(context, "mail", Map.of(), true); // configured off, switched on
            refresh(context, Map.of("pools.instances.mail.adaptive.max-capacity", "2",
                    "pools.instances.mail.adaptive.algorithm", "vegas"));
            assertThat(mail.adaptive().enabled()).as("switched on at the endpoint, it stays on").isTrue();
            assertThat(mail.adaptive().settings().algorithm()).isEqualTo("vegas");
            assertThat(mail.capacity()).as("within the new bounds").isEqualTo(2);
        });
    }

    @Test
    void newBoundsOrSwitchingOnWithACapacity_neverRunThePoolAboveTheMaximumOnTheWay() {
        // Helper-116: new bounds closed the old control, which put the configured capacity back
        // (unbounded here) until the new one clamped it; a refresh switching on with a new capacity,
        // and the endpoint's capacity with adaptive true, tuned the pool to it first. Workers
        // started in between for the queued tasks (counted by the thread factory) and ran them.
        this.runner.withUserConfiguration(CountedThreadsConfiguration.class)
            .withPropertyValues("pools.instances.wide.capacity=-1", "pools.instances.wide.queue-capacity=100",
                    "pools.instances.wide.adaptive.enabled=true", "pools.instances.wide.adaptive.max-capacity=4")
            .run((context) -> {
                SpringPool wide = context.getBean("wide", SpringPool.class);
                AtomicInteger threads = context.getBean(CountedThreadsConfiguration.class).threads;
                assertThat(wide.capacity()).isEqualTo(4);
                CountDownLatch release = new CountDownLatch(1);
                try {
                    for (int i = 0; i < 14; i++) {
                        wide.execute(() -> awaitQuietly(release));
                    }
                    assertThat(threads).hasValue(4);
                    refresh(context, Map.of("pools.instances.wide.adaptive.max-capacity", "3"));
                    assertThat(wide.adaptive().settings().maxCapacity()).isEqualTo(3);
                    assertThat(wide.adaptive().configuredCapacity()).isEqualTo(-1);
                    assertThat(wide.capacity()).isEqualTo(3);
                    assertThat(threads).as("new max-capacity").hasValue(4);
                    refresh(context, Map.of("pools.instances.wide.adaptive.algorithm", "vegas"));
                    assertThat(wide.adaptive().settings().algorithm()).isEqualTo("vegas");
                    assertThat(threads).as("new algorithm").hasValue(4);
                    tune(context, "wide", Map.of(PoolOption.CAPACITY, 1000), true);
                    assertThat(wide.adaptive().configuredCapacity()).isEqualTo(1000);
                    assertThat(wide.capacity()).isEqualTo(3);
                    assertThat(threads).as("endpoint capacity with adaptive true").hasValue(4);
                    tune(context, "wide", Map.of(PoolOption.CAPACITY, 2), false); // off, at 2
                    refresh(context, Map.of("pools.instances.wide.adaptive.enabled", "false"));
                    assertThat(wide.capacity()).isEqualTo(2);
                    refresh(context, Map.of("pools.instances.wide.capacity", "1000",
                            "pools.instances.wide.adaptive.enabled", "true"));
                    assertThat(wide.adaptive().enabled()).isTrue();
                    assertThat(wide.adaptive().configuredCapacity()).isEqualTo(1000);
                    assertThat(wide.capacity()).isEqualTo(3);
                    assertThat(threads).as("refresh switching on with a new capacity").hasValue(4);
                }
                finally {
                    release.countDown();
                }
            });
    }

    @Test
    void aBadCapacityForAnAdaptivePool_isRefusedByName_beforeAnyOptionChanges(CapturedOutput output) {
        // Found by a review: the capacity, handed to adaptive sizing apart, went unchecked until the
        // other options had changed, and the warning named no property.
        this.runner.run((context) -> {
            refresh(context, Map.of("pools.instances.db.capacity", "0", "pools.instances.db.nonblocking", "true"));
            assertThat(context.getBean("db", SpringPool.class).config().nonblocking()).isFalse();
            assertThat(output).contains("Pool 'db' not refreshed, it keeps its options: Invalid value '0' for property "
                    + "'pools.instances.db.capacity'");
        });
    }

    @Test
    void aRefreshAndAnEndpointTuneOfOnePool_takeTurns() throws Exception {
        // Found by a review: a tune that read the adaptive control a refresh then replaced applied
        // half its change and answered 500, and two refreshes could leave two controls sizing one pool.
        this.runner.run((context) -> {
            SpringPool db = context.getBean("db", SpringPool.class);
            List<Throwable> failures = new java.util.concurrent.CopyOnWriteArrayList<>();
            Thread refresher = new Thread(() -> refresh(context, Map.of("pools.instances.db.adaptive.max-capacity", "50")));
            Thread tuner = new Thread(() -> tune(context, "db", Map.of(PoolOption.NONBLOCKING, true), false));
            for (Thread t : List.of(refresher, tuner)) {
                t.setUncaughtExceptionHandler((thread, ex) -> failures.add(ex));
            }
            synchronized (db.changes()) {
                refresher.start();
                tuner.start();
                await().atMost(WAIT).until(() -> refresher.getState() == Thread.State.BLOCKED
                        && tuner.getState() == Thread.State.BLOCKED);
                assertThat(db.adaptive().settings().maxCapacity()).as("neither started").isEqualTo(64);
                assertThat(db.config().nonblocking()).isFalse();
            }
            refresher.join(WAIT.toMillis());
            tuner.join(WAIT.toMillis());
            assertThat(refresher.isAlive() || tuner.isAlive()).isFalse();
            assertThat(failures).isEmpty();
            assertThat(db.adaptive().settings().maxCapacity()).isEqualTo(50);
            // In either order the tune's nonblocking stays (the refresh changed only the adaptive
            // settings); adaptive sizing is off if the tune came last, on (restarted with the new
            // bounds, as configured) if the refresh did.
            assertThat(db.config().nonblocking()).as("%s, adaptive %s", db.config(), db.adaptive().enabled()).isTrue();
        });
    }

    @Test
    void theWebServersPool_cannotBeSwitchedAdaptiveLive_downToItsReservedThreads(CapturedOutput output) {
        // Found by a review: startup refuses adaptive.min-capacity <= reserved-threads for the web
        // server's pool, but a pool switched on later (endpoint, refresh) went there unchecked, and
        // the server then let one request in at a time. (pools.web-server.* read as the rule's input;
        // the web server itself is not needed for the check.)
        this.webRunner.withPropertyValues("pools.web-server.pool=mail").run((context) -> {
            SpringPool mail = context.getBean("mail", SpringPool.class);
            assertThatExceptionOfType(InvalidEndpointRequestException.class)
                .isThrownBy(() -> tune(context, "mail", Map.of(), true))
                .withMessageContaining("runs the web server's requests")
                .withMessageContaining("Set pools.instances.mail.adaptive.min-capacity to at least 3");
            assertThat(mail.adaptive().enabled()).isFalse();
            refresh(context, Map.of("pools.instances.mail.adaptive.enabled", "true"));
            assertThat(mail.adaptive().enabled()).isFalse();
            assertThat(output).contains("Pool 'mail' not refreshed, it keeps its options: Invalid value '1' for "
                    + "property 'pools.instances.mail.adaptive.min-capacity'");
            refresh(context, Map.of("pools.instances.mail.adaptive.min-capacity", "3"));
            assertThat(mail.adaptive().enabled()).as("above the reserved threads").isTrue();
            // The db pool is not the web server's: switched as before.
            tune(context, "db", Map.of(), false);
            tune(context, "db", Map.of(), true);
            assertThat(context.getBean("db", SpringPool.class).adaptive().enabled()).isTrue();
        });
    }

    @Test
    void theWebServersPool_keptOffByTheOperator_isWarnedWhenARefreshLowersItsMinimumBelowTheRule(CapturedOutput output) {
        // Helper-140: with an operator's "off" kept through a refresh of the bounds, the live check
        // (only for a pool being switched on) let min-capacity 1 through without a word, and the
        // next restart, which switches it on as configured, failed on the web server's rule.
        this.webRunner.withPropertyValues("pools.web-server.pool=mail", "pools.instances.mail.adaptive.enabled=true",
                "pools.instances.mail.adaptive.min-capacity=3").run((context) -> {
                    SpringPool mail = context.getBean("mail", SpringPool.class);
                    tune(context, "mail", Map.of(), false);
                    refresh(context, Map.of("pools.instances.mail.adaptive.min-capacity", "1"));
                    assertThat(mail.adaptive().enabled()).isFalse();
                    assertThat(output).contains("Pool 'mail': the application runs on, but a restart with this "
                            + "configuration would fail").contains("Set pools.instances.mail.adaptive.min-capacity to at least 3");
                });
    }

    @Test
    void theWebServersPool_switchedOnByTheOperator_isNotRefreshedBelowItsReservedThreads(CapturedOutput output) {
        // Helper-157: the refresh checked the minimum against the web server's rule only when the
        // configuration switched adaptive sizing on; one switched on at the endpoint (and kept on
        // through a refresh of its bounds) took min-capacity 1 and could shrink to one request.
        this.webRunner.withPropertyValues("pools.web-server.pool=mail", "pools.instances.mail.adaptive.min-capacity=3")
            .run((context) -> {
                SpringPool mail = context.getBean("mail", SpringPool.class);
                tune(context, "mail", Map.of(), true);
                assertThat(mail.adaptive().enabled()).isTrue();
                refresh(context, Map.of("pools.instances.mail.adaptive.min-capacity", "1"));
                assertThat(mail.adaptive().enabled()).isTrue();
                assertThat(mail.adaptive().settings().minCapacity()).isEqualTo(3);
                assertThat(output).contains("Pool 'mail' not refreshed, it keeps its options")
                    .contains("Set pools.instances.mail.adaptive.min-capacity to at least 3");
            });
    }

    @Test
    void theWebServersPool_refusesLiveOptionsThatStartupRefuses(CapturedOutput output) {
        // Helper-105: only switching adaptive sizing on was checked live; a tune or a refresh to a
        // capacity not above the reserved threads (one request at a time, every 503 and actuator
        // call waiting behind it), or to nonblocking (the connector's tasks refused), went through.
        this.webRunner.withPropertyValues("pools.web-server.pool=mail").run((context) -> {
            SpringPool mail = context.getBean("mail", SpringPool.class);
            assertThatExceptionOfType(InvalidEndpointRequestException.class)
                .isThrownBy(() -> tune(context, "mail", Map.of(PoolOption.CAPACITY, 2), null))
                .withMessageContaining("has capacity 2, which leaves no thread for requests beyond the 2 kept")
                .withMessageContaining("it is the web server's pool (pools.web-server.pool)");
            assertThatExceptionOfType(InvalidEndpointRequestException.class)
                .isThrownBy(() -> tune(context, "mail", Map.of(PoolOption.NONBLOCKING, true), null))
                .withMessageContaining("is nonblocking");
            assertThat(mail.config().capacity()).isEqualTo(3);
            assertThat(mail.config().nonblocking()).isFalse();
            refresh(context, Map.of("pools.instances.mail.capacity", "2"));
            assertThat(mail.config().capacity()).isEqualTo(3);
            assertThat(output).contains("Pool 'mail' not refreshed, it keeps its options: pool 'mail' has capacity 2");
            tune(context, "mail", Map.of(PoolOption.CAPACITY, 5), null);
            assertThat(mail.config().capacity()).as("above the reserved threads").isEqualTo(5);
            // Another pool is not the web server's.
            tune(context, "db", Map.of(PoolOption.NONBLOCKING, true), null);
            assertThat(context.getBean("db", SpringPool.class).config().nonblocking()).isTrue();
        });
    }

    @Test
    void theWebServersPool_switchedAdaptive_isJudgedWithTheCapacityItEndsWith(CapturedOutput output) {
        // Helper-109: an unbounded pool needs no queue, but switched adaptive it is bounded, and
        // its queue of 10 then fails the rule startup checks (fewer than the connections).
        this.webRunner.withPropertyValues("pools.web-server.pool=mail", "pools.instances.mail.capacity=-1",
                "pools.instances.mail.queue-capacity=10", "pools.instances.mail.adaptive.min-capacity=3")
            .run((context) -> {
                SpringPool mail = context.getBean("mail", SpringPool.class);
                assertThatExceptionOfType(InvalidEndpointRequestException.class)
                    .isThrownBy(() -> tune(context, "mail", Map.of(), true))
                    .withMessageContaining("has queue-capacity 10, fewer than the");
                refresh(context, Map.of("pools.instances.mail.adaptive.enabled", "true"));
                assertThat(mail.adaptive().enabled()).isFalse();
                assertThat(mail.config().capacity()).isEqualTo(-1);
                assertThat(output).contains("Pool 'mail' not refreshed, it keeps its options: pool 'mail' has "
                        + "queue-capacity 10");
            });
    }

    @Test
    void theWebServersPool_switchedAdaptiveOffByARefresh_isJudgedWithTheCapacityThatRestores(CapturedOutput output) {
        // Helper-110: the refresh judged the configured property's capacity (10), while turning
        // adaptive sizing off restores the capacity an operator set (2), not above the 2 reserved.
        this.webRunner.withPropertyValues("pools.web-server.pool=mail", "pools.instances.mail.capacity=10",
                "pools.instances.mail.adaptive.enabled=true", "pools.instances.mail.adaptive.min-capacity=5")
            .run((context) -> {
                SpringPool mail = context.getBean("mail", SpringPool.class);
                tune(context, "mail", Map.of(PoolOption.CAPACITY, 2), true);
                assertThat(mail.adaptive().enabled()).isTrue();
                assertThat(mail.adaptive().configuredCapacity()).isEqualTo(2);
                refresh(context, Map.of("pools.instances.mail.adaptive.enabled", "false"));
                assertThat(mail.adaptive().enabled()).as("refused: it would end at capacity 2").isTrue();
                assertThat(output).contains("Pool 'mail' not refreshed, it keeps its options: pool 'mail' has capacity 2");
            });
    }

    @Test
    void withoutAServletWebServer_theWebServersRuleDoesNotApply_live_asAtStartup() {
        // Helper-94: the live rule read pools.web-server.pool in any application, so where the
        // property is not applied (no servlet web server) a pool could not be switched adaptive
        // live to the settings startup accepts (min-capacity 1, below the 2 reserved threads).
        this.runner.withPropertyValues("pools.web-server.pool=mail").run((context) -> {
            assertThat(context).hasNotFailed();
            SpringPool mail = context.getBean("mail", SpringPool.class);
            tune(context, "mail", Map.of(), true);
            assertThat(mail.adaptive().enabled()).as("switched on by the endpoint").isTrue();
            tune(context, "mail", Map.of(), false);
            refresh(context, Map.of("pools.instances.mail.adaptive.enabled", "true"));
            assertThat(mail.adaptive().enabled()).as("switched on by a refresh").isTrue();
            assertThat(mail.adaptive().settings().minCapacity()).isEqualTo(1);
        });
    }

    @Test
    void theWebServersPool_namedByAnotherSpellingOfItsKey_cannotBeSwitchedAdaptiveLive_either() {
        // Review helper-71: the rule compared the property with the pool's name as written, so a
        // web server pool named by an alias (a key's other spelling) was switched on unchecked.
        this.webRunner.withPropertyValues("pools.instances.order-events.capacity=8", "pools.instances.orderevents.capacity=8",
                "pools.web-server.pool=orderevents").run((context) -> {
            SpringPool pool = context.getBean("order-events", SpringPool.class);
            assertThat(context.getBeanFactory().getAliases("order-events")).contains("orderevents");
            assertThatExceptionOfType(InvalidEndpointRequestException.class)
                .isThrownBy(() -> tune(context, "order-events", Map.of(), true))
                .withMessageContaining("runs the web server's requests");
            assertThat(pool.adaptive().enabled()).isFalse();
            refresh(context, Map.of("pools.instances.order-events.adaptive.enabled", "true"));
            assertThat(pool.adaptive().enabled()).isFalse();
        });
    }

    @Test
    void aSpellingThatIsAnApplicationPoolOfItsOwn_isThatPool_notTheStartersForTheWebServerRule() {
        // Review helper-74: matching by spelling refused adaptive sizing for the starter's
        // order-events while the web server ran on the application's own orderEvents.
        this.webRunner.withPropertyValues("pools.instances.order-events.capacity=8", "pools.web-server.pool=orderEvents")
            .withBean("orderEvents", io.github.workerpool.WorkerPool.class,
                    () -> io.github.workerpool.WorkerPool.builder().name("orderEvents").capacity(4)
                        .queueCapacity(Integer.MAX_VALUE).build())
            .run((context) -> {
                tune(context, "order-events", Map.of(), true);
                assertThat(context.getBean("order-events", SpringPool.class).adaptive().enabled()).isTrue();
            });
    }

    @Test
    void theWebServersPoolRule_keepsTheReservedThreadsTheServerStartedWith(CapturedOutput output) {
        // Found by a review: the refresh read pools.web-server.* afresh, so one that also lowered
        // reserved-threads (which takes a restart) let the pool be switched adaptive down to the
        // 2 reserved threads the running server still keeps: one request at a time.
        this.webRunner.withPropertyValues("pools.web-server.pool=mail").run((context) -> {
            SpringPool mail = context.getBean("mail", SpringPool.class);
            refresh(context, Map.of("pools.web-server.reserved-threads", "1", "pools.instances.mail.adaptive.enabled",
                    "true", "pools.instances.mail.adaptive.min-capacity", "2"));
            assertThat(mail.adaptive().enabled()).isFalse();
            assertThat(output).contains("Pool 'mail' not refreshed, it keeps its options: Invalid value '2' for "
                    + "property 'pools.instances.mail.adaptive.min-capacity'")
                .contains("the 2 kept for the connector's own tasks");
            refresh(context, Map.of("pools.instances.mail.adaptive.min-capacity", "3"));
            assertThat(mail.adaptive().enabled()).as("above the reserved threads").isTrue();
        });
    }

    /** Takes a key out of the runner's test properties, as a config engine deletes it, and publishes the event. */
    private static void removeProperty(AssertableApplicationContext context, String key) {
        org.springframework.core.env.MutablePropertySources sources = context.getEnvironment().getPropertySources();
        org.springframework.core.env.PropertySource<?> test = sources.stream()
            .filter((source) -> source.getName().toLowerCase(java.util.Locale.ROOT).contains("test")
                    && source instanceof org.springframework.core.env.EnumerablePropertySource)
            .findFirst()
            .orElseThrow();
        Map<String, Object> kept = new java.util.LinkedHashMap<>();
        for (String name : ((org.springframework.core.env.EnumerablePropertySource<?>) test).getPropertyNames()) {
            if (!name.equals(key)) {
                kept.put(name, test.getProperty(name));
            }
        }
        assertThat(kept).hasSizeLessThan(((org.springframework.core.env.EnumerablePropertySource<?>) test).getPropertyNames().length);
        sources.replace(test.getName(), new MapPropertySource(test.getName(), kept));
        context.publishEvent(new EnvironmentChangeEvent(context, java.util.Set.of(key)));
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    /** Counts the threads the "wide" pool starts. */
    @Configuration(proxyBeanMethods = false)
    static class CountedThreadsConfiguration {

        final AtomicInteger threads = new AtomicInteger();

        @Bean
        WorkerPoolBuilderCustomizer countedThreads() {
            return (name, builder) -> {
                if (name.equals("wide")) {
                    builder.threadFactory((task) -> {
                        this.threads.incrementAndGet();
                        return new Thread(task, "wide-" + this.threads.get());
                    });
                }
            };
        }

    }

    private static void refresh(ConfigurableApplicationContext context, Map<String, Object> values) {
        context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("refreshed-" + values, values));
        context.publishEvent(new EnvironmentChangeEvent(context, values.keySet()));
    }

    private static PoolsEndpoint.PoolDescriptor tune(ConfigurableApplicationContext context, String pool,
            Map<PoolOption, Object> fields, Object adaptive) {
        return (PoolsEndpoint.PoolDescriptor) context.getBean(PoolsEndpoint.class).action(pool, "tune", fields, adaptive,
                "alice");
    }

}
