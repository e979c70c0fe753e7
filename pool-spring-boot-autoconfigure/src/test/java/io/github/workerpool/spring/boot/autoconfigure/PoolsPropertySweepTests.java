package io.github.workerpool.spring.boot.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.core.env.Environment;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.core.io.support.SpringFactoriesLoader.ArgumentResolver;
import org.springframework.core.io.support.SpringFactoriesLoader.FailureHandler;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Bad-input sweep over every {@code pools.*} property: out-of-range, wrong-type, empty and huge
 * values, under {@code pools.defaults} and {@code pools.instances}. Each must stop startup with a
 * failure analysis (from the analyzers Spring Boot would run) that names the property, the value
 * and the fix; the valid extremes must start, bind and close cleanly.
 */
@ExtendWith(OutputCaptureExtension.class)
class PoolsPropertySweepTests {

    private static final String MAIL = "pools.instances.mail.";

    private static final String DEFAULTS = "pools.defaults.";

    /** Bad values per option; each is tried under pools.defaults and pools.instances.mail. */
    private static final List<Option> OPTIONS = List.of(
            new Option("capacity", "0", "-2", "-2147483648", "abc", "1.5", "1e3", "", " ", "99999999999",
                    "2147483648", "-2147483649"),
            new Option("expiry", "0s", "-1s", "soon", "5 minutes", "", "999999999999999d"),
            new Option("disable-purge", "maybe", "2", ""),
            new Option("pre-alloc", "maybe", ""),
            new Option("queue-capacity", "-1", "abc", "", "99999999999"),
            new Option("nonblocking", "maybe", "2", ""),
            new Option("max-blocking-tasks", "-1", "many", "", "99999999999"),
            new Option("blocking-timeout", "-1s", "later", "", "999999999999999d"),
            new Option("queue-timeout", "0s", "-1s", "later", "", "999999999999999d"),
            new Option("run-timeout", "0ms", "-5s", "never", "", "999999999999999d"),
            new Option("virtual-threads", "maybe", ""),
            new Option("shutdown.await-termination-period", "-1s", "forever", "", "999999999999999d"));

    private static final AtomicInteger bad = new AtomicInteger();

    private static final AtomicInteger valid = new AtomicInteger();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(PoolsAutoConfiguration.class, TaskExecutionAutoConfiguration.class));

    static Stream<Arguments> badValues() {
        List<Arguments> cases = new ArrayList<>();
        for (Option option : OPTIONS) {
            for (String value : option.badValues) {
                // The instance has its own capacity, so a bad default is bad even when no pool uses it.
                String base = option.name.equals("capacity") ? MAIL + "queue-capacity=1" : MAIL + "capacity=2";
                cases.add(bad(MAIL + option.name, value, shown(value), base));
                cases.add(bad(DEFAULTS + option.name, value, shown(value), MAIL + "capacity=2"));
            }
        }
        cases.add(bad("pools.default-pool", "nope", "nope", MAIL + "capacity=2"));
        cases.add(bad("pools.default-pool", "", "", MAIL + "capacity=2"));
        cases.add(bad("pools.default-pool", " ", "", MAIL + "capacity=2"));
        cases.add(bad("pools.propagate-context", "maybe", "maybe", MAIL + "capacity=2"));
        cases.add(bad("pools.propagate-context", "", "", MAIL + "capacity=2"));
        // Combinations, missing values and values where a group of options belongs.
        cases.add(bad(MAIL + "pre-alloc", "true", "true", MAIL + "capacity=-1"));
        cases.add(bad(DEFAULTS + "pre-alloc", "true", "true", DEFAULTS + "capacity=-1", MAIL + "expiry=5s"));
        cases.add(bad(MAIL + "capacity", "2147483647", "2147483647", MAIL + "pre-alloc=true"));
        cases.add(bad(MAIL + "capacity", null, null, MAIL + "queue-capacity=1"));
        cases.add(bad(MAIL + "queue-capacity", "", "", DEFAULTS + "capacity=3"));
        cases.add(bad("pools.instances.[mail.eu].capacity", "0", "0"));
        cases.add(bad("pools.instances.mail", "5", "5"));
        cases.add(bad(MAIL + "shutdown", "5s", "5s", MAIL + "capacity=2"));
        if (Runtime.version().feature() < 21) {
            cases.add(bad(MAIL + "virtual-threads", "true", "true", MAIL + "capacity=2"));
        }
        return cases.stream();
    }

    static Stream<Arguments> validValues() {
        return Stream.of(
                valid(SpringPool::capacity, -1, MAIL + "capacity=-1"),
                valid(SpringPool::capacity, 1, MAIL + "capacity=1"),
                valid(SpringPool::capacity, Integer.MAX_VALUE, MAIL + "capacity=2147483647"),
                valid(SpringPool::capacity, Integer.MAX_VALUE, DEFAULTS + "capacity=2147483647",
                        MAIL + "queue-capacity=0"),
                valid(SpringPool::capacity, 7, MAIL + "capacity= 7 "),
                valid((p) -> p.config().expiry(), Duration.ofNanos(1), MAIL + "capacity=1", MAIL + "expiry=1ns"),
                valid((p) -> p.config().expiry(), Duration.ofDays(106752), MAIL + "capacity=1",
                        MAIL + "expiry=106752d"),
                valid((p) -> p.config().expiry(), Duration.ofSeconds(Long.MAX_VALUE / 2), MAIL + "capacity=1",
                        DEFAULTS + "expiry=PT" + (Long.MAX_VALUE / 2) + "S"),
                valid((p) -> p.config().disablePurge(), true, MAIL + "capacity=1", MAIL + "disable-purge=true"),
                valid((p) -> p.config().preAlloc(), true, MAIL + "capacity=100000", MAIL + "pre-alloc=true"),
                valid((p) -> p.config().queueCapacity(), 0, MAIL + "capacity=1", MAIL + "queue-capacity=0"),
                valid((p) -> p.config().queueCapacity(), Integer.MAX_VALUE, MAIL + "capacity=1",
                        MAIL + "queue-capacity=2147483647"),
                valid((p) -> p.config().nonblocking(), true, MAIL + "capacity=1", MAIL + "nonblocking=TRUE"),
                valid((p) -> p.config().nonblocking(), true, MAIL + "capacity=1", MAIL + "nonblocking=on"),
                valid((p) -> p.config().maxBlockingTasks(), 0, MAIL + "capacity=1", MAIL + "max-blocking-tasks=0"),
                valid((p) -> p.config().maxBlockingTasks(), Integer.MAX_VALUE, MAIL + "capacity=1",
                        MAIL + "max-blocking-tasks=2147483647"),
                valid((p) -> p.config().blockingTimeout(), Duration.ZERO, MAIL + "capacity=1",
                        MAIL + "blocking-timeout=0s"),
                valid((p) -> p.config().blockingTimeout(), Duration.ofDays(106752), MAIL + "capacity=1",
                        MAIL + "blocking-timeout=106752d"),
                valid((p) -> p.config().virtualThreads(), false, MAIL + "capacity=1", MAIL + "virtual-threads=false"),
                valid(SpringPool::awaitTerminationPeriod, Duration.ZERO, MAIL + "capacity=1",
                        MAIL + "shutdown.await-termination-period=0s"),
                valid(SpringPool::awaitTerminationPeriod, Duration.ofDays(106752), MAIL + "capacity=1",
                        MAIL + "shutdown.await-termination-period=106752d"),
                valid(SpringPool::awaitTerminationPeriod, Duration.ofDays(1), MAIL + "capacity=1",
                        DEFAULTS + "shutdown.await-termination-period=1d"),
                valid(SpringPool::capacity, 3, "pools.instances.mail=", DEFAULTS + "capacity=3"),
                valid(SpringPool::capacity, 2, MAIL + "capacity=2", "pools.default-pool=mail",
                        "pools.propagate-context=true"));
    }

    @ParameterizedTest(name = "[{index}] {0}={1} with {3}")
    @MethodSource("badValues")
    void badValueFailsStartupWithAnalysisNamingPropertyValueAndFix(String property, String value, String shown,
            List<String> others) {
        bad.incrementAndGet();
        List<String> properties = new ArrayList<>(others);
        if (value != null) {
            properties.add(property + "=" + value);
        }
        this.runner.withPropertyValues(properties.toArray(String[]::new)).run((context) -> {
            assertThat(context).as("startup with %s", properties).hasFailed();
            FailureAnalysis analysis = analyze(context.getStartupFailure());
            assertThat(analysis).as("failure analysis of %s", context.getStartupFailure()).isNotNull();
            assertThat(analysis.getDescription()).as("description")
                .contains(((shown != null) ? "Invalid value '" + shown + "'" : "Missing value")
                        + " for property '" + property + "'");
            assertThat(analysis.getAction()).as("action").contains(property.replaceAll("\\.shutdown$", ""))
                .isNotEqualTo("Update your application's configuration");
        });
    }

    @ParameterizedTest(name = "[{index}] {2}")
    @MethodSource("validValues")
    void validExtremeStartsBindsAndCloses(Function<SpringPool, Object> getter, Object expected,
            List<String> properties, CapturedOutput output) {
        valid.incrementAndGet();
        this.runner.withPropertyValues(properties.toArray(String[]::new)).run((context) -> {
            assertThat(context).hasNotFailed();
            assertThat(getter.apply(context.getBean("mail", SpringPool.class))).isEqualTo(expected);
        });
        assertThat(output).doesNotContain("destroy method failed");
    }

    @AfterAll
    static void report() {
        System.out.println("pools.* property sweep: " + (bad.get() + valid.get()) + " inputs (" + bad.get()
                + " bad, " + valid.get() + " valid)");
    }

    /** Runs the failure analyzers Spring Boot registers, in order, as its startup report does. */
    static FailureAnalysis analyze(Throwable failure) {
        ArgumentResolver arguments = ArgumentResolver.of(BeanFactory.class, new DefaultListableBeanFactory())
            .and(Environment.class, new StandardEnvironment());
        List<FailureAnalyzer> analyzers = SpringFactoriesLoader
            .forDefaultResourceLocation(PoolsPropertySweepTests.class.getClassLoader())
            .load(FailureAnalyzer.class, arguments, FailureHandler.handleMessage((message, ex) -> { }));
        for (FailureAnalyzer analyzer : analyzers) {
            FailureAnalysis analysis = analyzer.analyze(failure);
            if (analysis != null) {
                return analysis;
            }
        }
        return null;
    }

    /** A value as the report shows it: a duration that binds in its largest exact unit ("0ms" as "0s"). */
    static String shown(String value) {
        return switch (value) {
            case "0ms" -> "0s";
            case " " -> "";
            default -> value;
        };
    }

    private static Arguments bad(String property, String value, String shown, String... others) {
        return Arguments.of(property, value, shown, Arrays.asList(others));
    }

    private static Arguments valid(Function<SpringPool, Object> getter, Object expected, String... properties) {
        return Arguments.of(getter, expected, Arrays.asList(properties));
    }

    private record Option(String name, String... badValues) {
    }

}
