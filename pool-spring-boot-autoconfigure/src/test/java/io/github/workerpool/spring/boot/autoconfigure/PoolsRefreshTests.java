package io.github.workerpool.spring.boot.autoconfigure;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

import io.github.workerpool.spring.boot.autoconfigure.event.PoolEventsAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.cloud.autoconfigure.ConfigurationPropertiesRebinderAutoConfiguration;
import org.springframework.cloud.context.environment.EnvironmentChangeEvent;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for refreshing pools from a changed environment ({@link EnvironmentChangeEvent}), as a
 * config engine does: the environment is changed and the event published, as Spring Cloud's
 * {@code ContextRefresher} does after it reloads the configuration.
 */
@ExtendWith(OutputCaptureExtension.class)
class PoolsRefreshTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(PoolsAutoConfiguration.class, TaskExecutionAutoConfiguration.class))
        .withPropertyValues("pools.instances.mail.capacity=2", "pools.instances.mail.queue-capacity=10",
                "pools.instances.mail.blocking-timeout=3s", "pools.instances.crawler.capacity=3");

    @Test
    void refreshAppliesNewValuesLiveToTheSameBeans(CapturedOutput output) {
        this.runner.run((context) -> {
            SpringPool mail = context.getBean("mail", SpringPool.class);
            SpringPool crawler = context.getBean("crawler", SpringPool.class);
            refresh(context, Map.of("pools.instances.mail.capacity", "8", "pools.instances.mail.queue-capacity", "50",
                    "pools.instances.mail.nonblocking", "true", "pools.defaults.queue-timeout", "2s",
                    "pools.instances.crawler.capacity", "6"));
            assertThat(context.getBean("mail", SpringPool.class)).isSameAs(mail);
            assertThat(mail.config().capacity()).isEqualTo(8);
            assertThat(mail.config().queueCapacity()).isEqualTo(50);
            assertThat(mail.config().nonblocking()).isTrue();
            assertThat(mail.config().queueTimeout()).isEqualTo(Duration.ofSeconds(2));
            assertThat(crawler.capacity()).isEqualTo(6);
            assertThat(crawler.config().queueTimeout()).isEqualTo(Duration.ofSeconds(2));
            assertThat(output).contains("Pool 'mail' refreshed from pools.*: capacity 2 -> 8, queueCapacity 10 -> 50")
                .contains("queueTimeout null -> 2s");
        });
    }

    @Test
    void anEmptyGroupKeyInAConfigEngine_hidesNoOptionOfTheOtherSources(CapturedOutput output) {
        // helper-140: ZooKeeper gives a node with no data and no children as key = "" (left over
        // when its last option node is deleted, or made before its children); that source ranks
        // above application.yml, and the empty pools.instances.mail bound as the whole entry, so
        // mail's options from application.yml read as unknown: refused, and a restart failed too.
        this.runner.run((context) -> {
            SpringPool mail = context.getBean("mail", SpringPool.class);
            refresh(context, Map.of("pools.instances.mail", "", "pools.instances.crawler.capacity", "5"));
            assertThat(output).doesNotContain("not refreshed").doesNotContain("no pool option has this name");
            assertThat(mail.config().capacity()).isEqualTo(2);
            assertThat(mail.config().queueCapacity()).isEqualTo(10);
            assertThat(context.getBean("crawler", SpringPool.class).capacity()).isEqualTo(5);
            assertThat(PoolsPropertiesBinding.bind(context.getEnvironment()).getInstances().get("mail").getCapacity())
                .as("a restart binds the same").isEqualTo(2);
        });
    }

    @Test
    void emptyGroupsOfOptions_areNoValues_andNeverThrowOutOfTheRefresh(CapturedOutput output) {
        // helper-140: an empty pools.defaults (its only option node deleted) threw Boot's raw
        // BindException out of the listener (a 500 from /actuator/refresh, later listeners
        // skipped); an empty adaptive or shutdown group was refused naming the pool.
        this.runner.run((context) -> {
            SpringPool mail = context.getBean("mail", SpringPool.class);
            refresh(context, Map.of("pools.defaults", "", "pools.instances.mail.shutdown", "",
                    "pools.instances.mail.adaptive", "", "pools.defaults.adaptive", "",
                    "pools.instances.mail.capacity", "7"));
            assertThat(output).doesNotContain("not refreshed");
            assertThat(mail.config().capacity()).isEqualTo(7);
        });
    }

    @Test
    void anOptionRemovedByARefreshFallsBackToThePoolsDefault() {
        this.runner.run((context) -> {
            SpringPool mail = context.getBean("mail", SpringPool.class);
            assertThat(mail.config().blockingTimeout()).isEqualTo(Duration.ofSeconds(3));
            ConfigurableEnvironment environment = context.getEnvironment();
            // The key is gone from the source, as when it is deleted in the config engine.
            Map<String, Object> all = new LinkedHashMap<>();
            all.put("pools.instances.mail.capacity", "2");
            all.put("pools.instances.mail.queue-capacity", "10");
            all.put("pools.instances.crawler.capacity", "3");
            replaceTestProperties(environment, all);
            context.publishEvent(new EnvironmentChangeEvent(context, Set.of("pools.instances.mail.blocking-timeout")));
            assertThat(mail.config().blockingTimeout()).isNull();
        });
    }

    @Test
    void anInvalidValueIsWarnedWithPropertyAndFix_andLeavesThatPoolUnchanged(CapturedOutput output) {
        this.runner.run((context) -> {
            SpringPool mail = context.getBean("mail", SpringPool.class);
            SpringPool crawler = context.getBean("crawler", SpringPool.class);
            refresh(context, Map.of("pools.instances.mail.capacity", "0", "pools.instances.mail.nonblocking", "true",
                    "pools.instances.crawler.capacity", "5"));
            assertThat(mail.capacity()).isEqualTo(2);
            assertThat(mail.config().nonblocking()).isFalse();
            assertThat(crawler.capacity()).isEqualTo(5);
            assertThat(output).contains("Pool 'mail' not refreshed, it keeps its options: Invalid value '0' for "
                    + "property 'pools.instances.mail.capacity'")
                .contains("set it to a number >= 1, or -1 for an unbounded pool");
            assertThat(context).hasNotFailed();
        });
    }

    @Test
    void aBadQueueCapacityOnAPoolOfAnotherKind_isRefused_andLeavesThatPoolUnchanged(CapturedOutput output) {
        // Found by a review: -1 on a hand-off pool was taken for a change of kind (a restart)
        // before it was checked, and the pool's other changes applied.
        this.runner.run((context) -> {
            SpringPool crawler = context.getBean("crawler", SpringPool.class);
            refresh(context, Map.of("pools.instances.crawler.queue-capacity", "-1", "pools.instances.crawler.capacity", "6"));
            assertThat(crawler.capacity()).isEqualTo(3);
            assertThat(output).contains("Pool 'crawler' not refreshed, it keeps its options: Invalid value '-1' for "
                    + "property 'pools.instances.crawler.queue-capacity'");
        });
    }

    @Test
    void aValueThatCannotBeBoundIsWarned_andNoPoolChanges(CapturedOutput output) {
        this.runner.run((context) -> {
            refresh(context, Map.of("pools.instances.mail.capacity", "many", "pools.instances.crawler.capacity", "5"));
            assertThat(context.getBean("mail", SpringPool.class).capacity()).isEqualTo(2);
            assertThat(context.getBean("crawler", SpringPool.class).capacity()).isEqualTo(3);
            assertThat(output).contains("Pools not refreshed: Invalid value 'many' for property "
                    + "'pools.instances.mail.capacity'");
        });
    }

    @Test
    void aRefreshOfOnePool_leavesAnotherPoolsTuneAlone() {
        // Found by a review: every pool was reconfigured from its properties, undoing an operator's tune.
        this.runner.run((context) -> {
            SpringPool crawler = context.getBean("crawler", SpringPool.class);
            crawler.tune(10);
            refresh(context, Map.of("pools.instances.mail.capacity", "8"));
            assertThat(context.getBean("mail", SpringPool.class).capacity()).isEqualTo(8);
            assertThat(crawler.capacity()).as("tuned, and its properties did not change").isEqualTo(10);
            refresh(context, Map.of("pools.defaults.queue-timeout", "2s"));
            assertThat(crawler.config().queueTimeout()).isEqualTo(Duration.ofSeconds(2));
            assertThat(crawler.capacity()).as("a default changed, not its capacity: the tune stays").isEqualTo(10);
        });
    }

    @Test
    void runningName_isThePoolAKeyConfigures_whateverItsForm() {
        Set<String> running = Set.of("mail", "order-events", "mailSender", "mail.eu");
        assertThat(PoolsRefresher.runningName("mail", running)).isEqualTo("mail");
        assertThat(PoolsRefresher.runningName("mail.eu", running)).isEqualTo("mail.eu");
        assertThat(PoolsRefresher.runningName("orderEvents", running)).isEqualTo("order-events");
        assertThat(PoolsRefresher.runningName("ORDER_EVENTS", running)).isEqualTo("order-events");
        assertThat(PoolsRefresher.runningName("mail-sender", running)).isEqualTo("mailSender");
        assertThat(PoolsRefresher.runningName("crawler", running)).isNull();
        assertThat(PoolsRefresher.runningName("order", running)).isNull();
    }

    @Test
    void aRefresh_changesOnlyWhatTheConfigurationChanged_notWhatTheCodeATuneOrACustomizerSet(CapturedOutput output) {
        // Found by a review: a refresh of a pool re-applied every property, so a value set by code,
        // by an endpoint tune or by a customizer fell back to the default on any change to the pool.
        this.runner.withBean(WorkerPoolBuilderCustomizer.class, () -> (name, builder) -> {
            if (name.equals("mail")) {
                builder.expiry(Duration.ofSeconds(7));
            }
        }).run((context) -> {
            SpringPool mail = context.getBean("mail", SpringPool.class);
            assertThat(mail.config().expiry()).isEqualTo(Duration.ofSeconds(7));
            mail.reconfigure((c) -> c.withRunTimeout(Duration.ofMinutes(1)));
            mail.tune(5);
            refresh(context, Map.of("pools.instances.mail.queue-capacity", "20"));
            assertThat(mail.config().queueCapacity()).isEqualTo(20);
            assertThat(mail.config().runTimeout()).as("set by code").isEqualTo(Duration.ofMinutes(1));
            assertThat(mail.capacity()).as("tuned").isEqualTo(5);
            assertThat(mail.config().expiry()).as("set by a customizer").isEqualTo(Duration.ofSeconds(7));
            assertThat(output).contains("Pool 'mail' refreshed from pools.*: queueCapacity 10 -> 20")
                .doesNotContain("runTimeout 1m -> ");
            refresh(context, Map.of("pools.instances.mail.capacity", "6"));
            assertThat(mail.capacity()).as("its configured value changed: it applies").isEqualTo(6);
        });
    }

    @Test
    void withLazyInitialization_aRefreshStillAppliesWhatChanged() {
        // Found by a review: made lazily at the first refresh, the refresher took the refreshed
        // settings for those the pools were built with, and applied nothing.
        this.runner.withInitializer((context) -> context
            .addBeanFactoryPostProcessor(new org.springframework.boot.LazyInitializationBeanFactoryPostProcessor()))
            .run((context) -> {
                SpringPool mail = context.getBean("mail", SpringPool.class);
                refresh(context, Map.of("pools.instances.mail.capacity", "8"));
                assertThat(mail.capacity()).isEqualTo(8);
            });
    }

    @Test
    void aKeyInAnotherFormThanThePoolsName_refreshesThatPool(CapturedOutput output) {
        // Found by a review: orderEvents from a config engine was warned as a new pool, and
        // order-events kept its capacity.
        this.runner.withPropertyValues("pools.instances.order-events.capacity=2").run((context) -> {
            SpringPool orders = context.getBean("order-events", SpringPool.class);
            refresh(context, Map.of("pools.instances.orderEvents.capacity", "4"));
            assertThat(orders.capacity()).isEqualTo(4);
            assertThat(output).doesNotContain("was added to pools.instances");
        });
    }

    @Test
    void aValueFromAPlaceholder_changesWithTheKeyItNames() {
        // Found by a review: the event names only mail.threads, and keys outside pools.* were ignored.
        this.runner.withPropertyValues("mail.threads=2", "pools.instances.mail.capacity=${mail.threads}").run((context) -> {
            SpringPool mail = context.getBean("mail", SpringPool.class);
            assertThat(mail.capacity()).isEqualTo(2);
            refresh(context, Map.of("mail.threads", "7"));
            assertThat(mail.capacity()).isEqualTo(7);
        });
    }

    @Test
    void anInstanceShadowedByTheApplicationsOwnBean_isWarnedAsNotApplied_notAsAdded(CapturedOutput output) {
        // Found by a review: the entry was warned as "added ... takes a restart" on every refresh.
        this.runner.withPropertyValues("pools.instances.reports.capacity=2")
            .withBean("reports", io.github.workerpool.Pool.class,
                    () -> io.github.workerpool.WorkerPool.builder().name("reports").capacity(1).build())
            .run((context) -> {
                refresh(context, Map.of("pools.instances.reports.capacity", "4"));
                assertThat(output).contains("pools.instances.reports is not applied: the application defines a bean named "
                        + "'reports'").doesNotContain("Pool 'reports' was added").doesNotContain("restart with this entry");
                assertThat(context.getBean("reports", io.github.workerpool.Pool.class).capacity()).isEqualTo(1);
            });
    }

    @Test
    void aShadowedEntryBrokenByARefresh_isWarnedThatARestartWouldFail(CapturedOutput output) {
        // Found by a review (helper-124): startup checks the entry though the application's bean
        // takes its place, so these values fail the next restart; the refresh said nothing (a
        // shutdown.* change) or only "not applied" (a pool option).
        for (String[] broken : new String[][] { { "pools.instances.reports.shutdown.await-termination-period", "-1s" },
                { "pools.instances.reports.capacity", "0" } }) {
            this.runner.withPropertyValues("pools.instances.reports.capacity=2")
                .withBean("reports", io.github.workerpool.Pool.class,
                        () -> io.github.workerpool.WorkerPool.builder().name("reports").capacity(1).build())
                .run((context) -> {
                    refresh(context, Map.of(broken[0], broken[1]));
                    assertThat(output).contains("Pool 'reports': the application runs on, but a restart with this "
                            + "configuration would fail: Invalid value");
                    assertThat(context.getBean("reports", io.github.workerpool.Pool.class).capacity()).isEqualTo(1);
                });
            // As it says: a restart with that value fails.
            this.runner.withPropertyValues("pools.instances.reports.capacity=2", broken[0] + "=" + broken[1])
                .withBean("reports", io.github.workerpool.Pool.class,
                        () -> io.github.workerpool.WorkerPool.builder().name("reports").capacity(1).build())
                .run((context) -> assertThat(context).hasFailed());
        }
    }

    @Test
    void anInstanceAddedWithTheNameOfABeanThatIsNoPool_isWarnedThatARestartWouldFail(CapturedOutput output) {
        // Found by a review: startup fails for such an entry, and the refresh said only "not applied".
        this.runner.withBean("reports", String.class, () -> "not a pool").run((context) -> {
            refresh(context, Map.of("pools.instances.reports.capacity", "4"));
            assertThat(output).contains("pools.instances.reports is not applied: the application defines a bean named "
                    + "'reports'").contains("that bean is no pool, so a restart with this entry would fail");
        });
    }

    @Test
    void anAddedInstanceIsWarnedOnce_notOnEveryLaterRefresh(CapturedOutput output) {
        this.runner.run((context) -> {
            refresh(context, Map.of("pools.instances.reports.capacity", "2"));
            refresh(context, Map.of("pools.instances.reports.capacity", "2", "pools.instances.mail.capacity", "3"));
            String log = output.toString();
            assertThat(log.split("Pool 'reports' was added to pools.instances", -1)).hasSize(2);
        });
    }

    @Test
    void aPoolWithADashedOrCamelCaseName_isRefreshed() {
        // Found by a review: such a pool was skipped by every refresh, silently.
        this.runner.withPropertyValues("pools.instances.order-events.capacity=2", "pools.instances.mailSender.capacity=2")
            .run((context) -> {
                refresh(context, Map.of("pools.instances.order-events.capacity", "5",
                        "pools.instances.mailSender.capacity", "6"));
                assertThat(context.getBean("order-events", SpringPool.class).capacity()).isEqualTo(5);
                assertThat(context.getBean("mailSender", SpringPool.class).capacity()).isEqualTo(6);
                assertThat(context.getBean("mail", SpringPool.class).capacity()).isEqualTo(2);
            });
    }

    @Test
    void aNegativeAwaitPeriod_isRefusedBeforeAnyOptionChanges(CapturedOutput output) {
        // Found by a review: queue-capacity was applied, then the pool was said to keep its options.
        this.runner.run((context) -> {
            refresh(context, Map.of("pools.instances.mail.queue-capacity", "50",
                    "pools.instances.mail.shutdown.await-termination-period", "-1s"));
            assertThat(context.getBean("mail", SpringPool.class).config().queueCapacity()).isEqualTo(10);
            assertThat(output).contains("Pool 'mail' not refreshed, it keeps its options: Invalid value '-1s' for "
                    + "property 'pools.instances.mail.shutdown.await-termination-period'");
        });
    }

    @Test
    void aMisspeltOptionIsWarned_andNoPoolChanges(CapturedOutput output) {
        this.runner.run((context) -> {
            refresh(context, Map.of("pools.instances.mail.capcity", "4", "pools.instances.crawler.capacity", "5"));
            assertThat(context.getBean("mail", SpringPool.class).capacity()).isEqualTo(2);
            assertThat(context.getBean("crawler", SpringPool.class).capacity()).isEqualTo(3);
            assertThat(output).contains("Pools not refreshed: Invalid value '4' for property "
                    + "'pools.instances.mail.capcity': no pool option has this name")
                .contains("Did you mean pools.instances.mail.capacity?");
        });
    }

    @Test
    void aKeyInAnotherFormThatComesFirst_isWarnedToRenameThePoolAtTheRestart(CapturedOutput output) {
        // Found by a review (helper-124): a config engine's source comes before application.yml,
        // and a pool is named after its first key with a dash or a capital, so a camelCase key
        // written there renamed the pool at the next start, without a word.
        this.runner.withPropertyValues("pools.instances.order-events.capacity=2").run((context) -> {
            SpringPool pool = context.getBean("order-events", SpringPool.class);
            refresh(context, Map.of("pools.instances.orderEvents.capacity", "5"));
            assertThat(pool.capacity()).as("applied to the pool").isEqualTo(5);
            assertThat(output).contains("Pool 'order-events': a restart would name it 'orderEvents', after the key "
                    + "pools.instances.[orderEvents]");
            refresh(context, Map.of("pools.instances.mail.capacity", "3"));
            assertThat(output.toString().split("a restart would name it", -1)).as("told once").hasSize(2);
        });
        // As it says: started with that source first, the pool is named orderEvents.
        this.runner.withPropertyValues("pools.instances.order-events.capacity=2")
            .withInitializer((context) -> context.getEnvironment().getPropertySources()
                .addFirst(new MapPropertySource("engine", Map.of("pools.instances.orderEvents.capacity", "5"))))
            .run((context) -> assertThat(context.getBeansOfType(SpringPool.class)).containsKey("orderEvents")
                .doesNotContainKey("order-events"));
    }

    @Test
    void anAwaitPeriodFromTheDefaults_isWarnedUnderTheDefaultsProperty(CapturedOutput output) {
        // Found by a review (helper-124): the warning named pools.instances.<pool>.shutdown.*,
        // which nobody set.
        this.runner.run((context) -> {
            refresh(context, Map.of("pools.defaults.shutdown.await-termination-period", "10s"));
            assertThat(output).contains("Pool 'mail': pools.defaults.shutdown.await-termination-period=10s takes a restart")
                .doesNotContain("pools.instances.mail.shutdown.await-termination-period");
        });
    }

    @Test
    void anOptionFixedAtBuildOrAnotherKindOfQueue_isWarnedToTakeARestart(CapturedOutput output) {
        this.runner.run((context) -> {
            refresh(context, Map.of("pools.instances.mail.pre-alloc", "true", "pools.instances.crawler.queue-capacity",
                    "100", "pools.instances.mail.capacity", "4"));
            SpringPool mail = context.getBean("mail", SpringPool.class);
            assertThat(mail.config().preAlloc()).isFalse();
            assertThat(mail.capacity()).isEqualTo(4);
            assertThat(context.getBean("crawler", SpringPool.class).config().queueCapacity()).isZero();
            assertThat(output).contains("Pool 'mail': pools.instances.mail.pre-alloc=true (the pool has false) takes a "
                    + "restart to apply")
                .contains("Pool 'crawler': pools.instances.crawler.queue-capacity=100 (the pool has 0) takes a restart");
        });
    }

    @Test
    void anInstanceAddedOrRemovedAtRunTimeIsWarnedToTakeARestart(CapturedOutput output) {
        this.runner.withUserConfiguration(CrawlerUserConfiguration.class).run((context) -> {
            Map<String, Object> all = new LinkedHashMap<>();
            all.put("pools.instances.mail.capacity", "2");
            all.put("pools.instances.mail.queue-capacity", "10");
            all.put("pools.instances.mail.blocking-timeout", "3s");
            all.put("pools.instances.reports.capacity", "4");
            replaceTestProperties(context.getEnvironment(), all);
            context.publishEvent(new EnvironmentChangeEvent(context,
                    Set.of("pools.instances.reports.capacity", "pools.instances.crawler.capacity")));
            assertThat(context).doesNotHaveBean("reports");
            assertThat(output).contains("Pool 'reports' was added to pools.instances; it takes a restart to create it")
                .contains("Pool 'crawler' is no longer in pools.instances; it keeps running until a restart")
                // Helper-116: told as harmless, though what uses it by name fails after the restart.
                .contains("Then beans that inject it (crawlUser) fail startup, and @Async(\"crawler\") methods and "
                        + "lookups by its name fail when called: put the entry back (pools.instances.crawler)");
        });
    }

    /** A bean of the application that injects the crawler pool by name. */
    @org.springframework.context.annotation.Configuration(proxyBeanMethods = false)
    static class CrawlerUserConfiguration {

        @org.springframework.context.annotation.Bean
        String crawlUser(@org.springframework.beans.factory.annotation.Qualifier("crawler") java.util.concurrent.Executor crawler) {
            return "crawls on " + crawler;
        }

    }

    @Test
    void webServerPropertiesAreWarnedToTakeARestart(CapturedOutput output) {
        this.runner.run((context) -> {
            refresh(context, Map.of("pools.web-server.reserved-threads", "4"));
            assertThat(output).contains("pools.web-server.* take a restart to change");
        });
    }

    @Test
    void keysOutsidePoolsAreIgnored(CapturedOutput output) {
        this.runner.run((context) -> {
            context.publishEvent(new EnvironmentChangeEvent(context, Set.of("server.port")));
            assertThat(output).doesNotContain("Pool '");
        });
    }

    @Test
    void withoutSpringCloudTheStarterWorksAsBefore() {
        this.runner.withClassLoader(new FilteredClassLoader("org.springframework.cloud")).run((context) -> {
            assertThat(context).hasNotFailed().doesNotHaveBean(PoolsRefresher.class);
            assertThat(context.getBean("mail", SpringPool.class).capacity()).isEqualTo(2);
        });
    }

    /** Bad values per live option, as the property sweep tries them at startup. */
    static java.util.stream.Stream<org.junit.jupiter.params.provider.Arguments> badRefreshes() {
        Map<String, String[]> bad = new LinkedHashMap<>();
        bad.put("capacity", new String[] { "0", "-2", "abc", "1.5", "99999999999", "-2147483649" });
        bad.put("expiry", new String[] { "0s", "-1s", "soon", "999999999999999d" });
        bad.put("disable-purge", new String[] { "maybe", "2" });
        bad.put("queue-capacity", new String[] { "-1", "abc", "99999999999" });
        bad.put("nonblocking", new String[] { "maybe", "2" });
        bad.put("max-blocking-tasks", new String[] { "-1", "many", "99999999999" });
        bad.put("blocking-timeout", new String[] { "-1s", "later", "999999999999999d" });
        bad.put("queue-timeout", new String[] { "0s", "-1s", "later" });
        bad.put("run-timeout", new String[] { "0ms", "-5s", "never" });
        java.util.List<org.junit.jupiter.params.provider.Arguments> cases = new java.util.ArrayList<>();
        bad.forEach((option, values) -> {
            for (String value : values) {
                cases.add(org.junit.jupiter.params.provider.Arguments.of("pools.instances.mail." + option, value));
                cases.add(org.junit.jupiter.params.provider.Arguments.of("pools.defaults." + option, value));
            }
        });
        return cases.stream();
    }

    @org.junit.jupiter.params.ParameterizedTest(name = "[{index}] {0}={1}")
    @org.junit.jupiter.params.provider.MethodSource("badRefreshes")
    void aBadRefreshedValueIsWarnedNamingThePropertyAndChangesNoPool(String property, String value,
            CapturedOutput output) {
        this.runner.run((context) -> {
            SpringPool mail = context.getBean("mail", SpringPool.class);
            SpringPool crawler = context.getBean("crawler", SpringPool.class);
            io.github.workerpool.PoolConfig mailBefore = mail.config();
            io.github.workerpool.PoolConfig crawlerBefore = crawler.config();
            refresh(context, Map.of(property, value));
            assertThat(context).hasNotFailed();
            assertThat(mail.config()).isEqualTo(mailBefore);
            if (property.startsWith("pools.instances.mail.")) {
                assertThat(crawler.config()).isEqualTo(crawlerBefore);
            }
            // The instance's own value wins over a bad default it does not inherit: then nothing is wrong.
            boolean shadowed = property.equals("pools.defaults.capacity") || property.equals("pools.defaults.queue-capacity")
                    || property.equals("pools.defaults.blocking-timeout");
            if (!shadowed) {
                assertThat(output).contains("Invalid value '" + PoolsPropertySweepTests.shown(value) + "' for property '"
                        + property + "'");
            }
        });
    }

    @Test
    void aValueThatCannotBeBoundLeavesSpringCloudsRebindingOfOtherPropertiesAlone(CapturedOutput output) {
        // Spring Cloud rebinds every @ConfigurationProperties bean on the same event and rethrows
        // the first failure: with pools.* such a bean, "capacity: many" failed the whole refresh.
        this.runner.withConfiguration(AutoConfigurations.of(ConfigurationPropertiesRebinderAutoConfiguration.class))
            .run((context) -> {
                Map<String, Object> values = Map.of("pools.instances.mail.capacity", "many",
                        "pools.instances.crawler.capacity", "5");
                context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("refreshed", values));
                // The rebinder acts on events whose source is the application context itself.
                context.publishEvent(new EnvironmentChangeEvent(context.getSourceApplicationContext(), values.keySet()));
                assertThat(context.getBean("crawler", SpringPool.class).capacity()).isEqualTo(3);
                assertThat(output).contains("Pools not refreshed: Invalid value 'many' for property "
                        + "'pools.instances.mail.capacity'");
            });
    }

    @Test
    void aBadEventsValueLeavesSpringCloudsRebindingAlone_andIsWarnedToTakeARestart(CapturedOutput output) {
        this.runner.withConfiguration(AutoConfigurations.of(ConfigurationPropertiesRebinderAutoConfiguration.class,
                PoolEventsAutoConfiguration.class))
            .run((context) -> {
                Map<String, Object> values = Map.of("pools.events.check-interval", "often",
                        "pools.instances.crawler.capacity", "5");
                context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("refreshed", values));
                context.publishEvent(new EnvironmentChangeEvent(context.getSourceApplicationContext(), values.keySet()));
                assertThat(context.getBean("crawler", SpringPool.class).capacity()).isEqualTo(5);
                assertThat(output).contains("pools.events.* take a restart to change");
            });
    }

    @Test
    void aRefreshRefusedAsAWholeIsAppliedOnceTheBadValueIsFixed(CapturedOutput output) {
        this.runner.run((context) -> {
            SpringPool crawler = context.getBean("crawler", SpringPool.class);
            // Two nodes written, one with a misspelt option: the whole binding is refused.
            refresh(context, Map.of("pools.instances.mail.capcity", "8", "pools.instances.crawler.capacity", "5"));
            assertThat(crawler.capacity()).isEqualTo(3);
            assertThat(output).contains("Pools not refreshed: Invalid value '8' for property "
                    + "'pools.instances.mail.capcity'");
            // The misspelt node deleted: ZooKeeper's event names only that key.
            context.getEnvironment().getPropertySources()
                .addFirst(new MapPropertySource("refreshed", Map.of("pools.instances.crawler.capacity", "5")));
            context.publishEvent(new EnvironmentChangeEvent(context, Set.of("pools.instances.mail.capcity")));
            assertThat(crawler.capacity()).isEqualTo(5);
            assertThat(output).contains("Pool 'crawler' refreshed from pools.*: capacity 3 -> 5");
        });
    }

    @Test
    void aCapacityRemovedFromTheConfigurationIsWarned_andThePoolKeepsItsCapacity(CapturedOutput output) {
        this.runner.run((context) -> {
            SpringPool mail = context.getBean("mail", SpringPool.class);
            Map<String, Object> all = new LinkedHashMap<>();
            all.put("pools.instances.mail.queue-capacity", "10");
            all.put("pools.instances.mail.blocking-timeout", "3s");
            all.put("pools.instances.crawler.capacity", "3");
            replaceTestProperties(context.getEnvironment(), all);
            context.publishEvent(new EnvironmentChangeEvent(context, Set.of("pools.instances.mail.capacity")));
            assertThat(mail.capacity()).isEqualTo(2);
            assertThat(output).contains("Pool 'mail': pools.instances.mail.capacity was removed; the pool keeps "
                    + "capacity 2, but a restart would fail without it");
        });
    }

    @Test
    void anInstanceAddedWithValuesStartupRefuses_isWarnedThatARestartWouldFail_atEachNewReason(CapturedOutput output) {
        // Found by a review: only the name of an added entry was checked, so capacity 0 (or none)
        // was told "takes a restart to create it", and the restart then failed on every replica.
        this.runner.run((context) -> {
            refresh(context, Map.of("pools.instances.reports.capacity", "0", "pools.instances.audit.queue-capacity", "5"));
            assertThat(output).contains("Pool 'reports' was added to pools.instances, and a restart would fail: "
                    + "Invalid value '0' for property 'pools.instances.reports.capacity'")
                .contains("Pool 'audit' was added to pools.instances, and a restart would fail: "
                        + "Missing value for property 'pools.instances.audit.capacity': capacity is required")
                .doesNotContain("it takes a restart to create it");
            // Mended, then broken another way by later refreshes: the all-clear, then the new reason.
            refresh(context, Map.of("pools.instances.reports.capacity", "4"));
            assertThat(output).contains("Pool 'reports' in pools.instances would now be created by a restart");
            refresh(context, Map.of("pools.instances.reports.capacity", "4", "pools.instances.reports.pre-alloc", "true",
                    "pools.instances.reports.expiry", "-1s"));
            assertThat(output).contains("Pool 'reports': the application runs on, but a restart with this configuration "
                    + "would fail: Invalid value '-1s' for property 'pools.instances.reports.expiry'");
        });
    }

    @Test
    void aMisspeltKeyOfAGroupStartupChecks_isWarnedThatARestartWouldFail(CapturedOutput output) {
        // Found by a review: startup refuses it, a refresh said only "takes a restart to change".
        this.runner.run((context) -> {
            refresh(context, Map.of("pools.events.enabeld", "true", "pools.instances.mail.capacity", "5"));
            assertThat(context.getBean("mail", SpringPool.class).capacity()).isEqualTo(5);
            assertThat(output).contains("pools.events and pools.web-server: the application runs on, but a restart with "
                    + "this configuration would fail: ")
                .contains("pools.events.enabeld");
        });
    }

    @Test
    void anEventsDurationStartupRefuses_isWarnedThatARestartWouldFail(CapturedOutput output) {
        // Review helper-168: only the keys and types of pools.events were checked on a refresh; a
        // check-interval of 0s said only "takes a restart to change", and the next restart failed.
        this.runner.withConfiguration(AutoConfigurations.of(
                io.github.workerpool.spring.boot.autoconfigure.event.PoolEventsAutoConfiguration.class))
            .run((context) -> {
                refresh(context, Map.of("pools.events.check-interval", "0s"));
                assertThat(output).contains("pools.events: the application runs on, but a restart with this "
                        + "configuration would fail: ")
                    .contains("pools.events.check-interval");
                // Switched off by the same refresh: a restart makes no publisher (review helper-175),
                // and a value that cannot be bound then fails no refresh.
                int told = count(output.getOut(), "would fail");
                refresh(context, Map.of("pools.events.enabled", "false", "pools.events.min-interval", "-1s"));
                refresh(context, Map.of("pools.events.enabled", "false", "pools.events.check-interval", "abc"));
                assertThat(count(output.getOut(), "would fail")).isEqualTo(told);
                // A placeholder that cannot be resolved fails no refresh either (review helper-176).
                refresh(context, Map.of("pools.events", "", "pools.events.enabled", "${NO_SUCH_PLACEHOLDER}"));
            });
    }

    @Test
    void webServerValuesThatBreakItsRulesOnThePoolTheyName_areWarnedThatARestartWouldFail(CapturedOutput output) {
        // Review helper-168: reserved-threads raised to the pool's capacity, or the web server put
        // on a nonblocking pool, said only "takes a restart to change"; the next restart failed.
        new org.springframework.boot.test.context.runner.WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(PoolsAutoConfiguration.class, TaskExecutionAutoConfiguration.class,
                    io.github.workerpool.spring.boot.autoconfigure.web.WebServerPoolAutoConfiguration.class))
            .withPropertyValues("pools.web-server.pool=web", "pools.instances.web.capacity=4",
                    "pools.instances.web.queue-capacity=" + Integer.MAX_VALUE, "pools.instances.fast.capacity=8",
                    "pools.instances.fast.nonblocking=true", "pools.instances.fast.queue-capacity=" + Integer.MAX_VALUE)
            .run((context) -> {
                assertThat(context).hasNotFailed();
                refresh(context, Map.of("pools.web-server.reserved-threads", "3"));
                assertThat(output).as("3 of 4 kept: one left for requests").doesNotContain("would fail");
                refresh(context, Map.of("pools.web-server.reserved-threads", "4"));
                assertThat(output).contains("pools.web-server: the application runs on, but a restart with this "
                        + "configuration would fail: ")
                    .contains("pool 'web' has capacity 4, which leaves no thread for requests beyond the 4 kept");
                refresh(context, Map.of("pools.web-server.reserved-threads", "0"));
                assertThat(output).contains("Set pools.web-server.reserved-threads to 1 or more");
                refresh(context, Map.of("pools.web-server.pool", "fast"));
                assertThat(output).contains("pool 'fast' is nonblocking");
                // Mended, then broken the same way again: told again (the mend cleared the last reason).
                refresh(context, Map.of("pools.web-server.pool", "web"));
                int told = count(output.getOut(), "pool 'fast' is nonblocking");
                refresh(context, Map.of("pools.web-server.pool", "fast"));
                assertThat(count(output.getOut(), "pool 'fast' is nonblocking")).isEqualTo(told + 1);
            });
    }

    /** How many times {@code text} occurs in {@code output}. */
    private static int count(String output, String text) {
        return output.split(java.util.regex.Pattern.quote(text), -1).length - 1;
    }

    @Test
    void aValueOfAGroupThatIsNotRead_isNotJudged_asAtStartup(CapturedOutput output) {
        // Review helper-173: no events publisher (events off, or their auto-configuration left
        // out) and no servlet web server: nothing reads these values, at startup or after.
        this.runner.withPropertyValues("pools.web-server.pool=mail", "pools.web-server.reserved-threads=0",
                "pools.events.check-interval=0s").run((context) -> {
            assertThat(context).hasNotFailed();
            refresh(context, Map.of("pools.events.min-interval", "-1s", "pools.web-server.retry-after", "-1s"));
            assertThat(output).doesNotContain("a restart with this configuration would fail");
        });
        this.runner.run((context) -> {
            refresh(context, Map.of("pools.events.enabled", "false", "pools.events.check-interval", "0s",
                    "pools.web-server.reserved-threads", "0"));
            assertThat(output).contains("pools.events.* take a restart to change")
                .doesNotContain("a restart with this configuration would fail");
        });
    }

    @Test
    void anInstanceAddedUnderAReservedNameIsWarnedThatARestartWouldFail(CapturedOutput output) {
        this.runner.run((context) -> {
            refresh(context, Map.of("pools.instances.taskScheduler.capacity", "2", "pools.instances.reports.capacity", "2"));
            assertThat(output).contains("Pool 'reports' was added to pools.instances; it takes a restart to create it")
                .contains("Pool 'taskScheduler' was added to pools.instances, and a restart would fail: Invalid value "
                        + "'taskScheduler' for property 'pools.instances.[taskScheduler]'");
        });
    }

    @Test
    void aChangeOfTheEventsSettingsIsWarnedToTakeARestart(CapturedOutput output) {
        this.runner.run((context) -> {
            refresh(context, Map.of("pools.events.saturation-after", "1s"));
            assertThat(output).contains("pools.events.* take a restart to change");
        });
    }

    @Test
    void settingsThatOnlyStartupChecks_areWarnedThatARestartWouldFail_once(CapturedOutput output) {
        // Found by a review: pre-alloc with an unbounded capacity was taken (the capacity live, the
        // pre-alloc "takes a restart"), and the next rolling restart failed on every replica.
        this.runner.run((context) -> {
            refresh(context, Map.of("pools.instances.mail.pre-alloc", "true", "pools.instances.mail.capacity", "-1"));
            // One line, with the restart-only option it is about (review helper-60: two lines read oddly).
            assertThat(output).contains("Pool 'mail': pools.instances.mail.pre-alloc=true (the pool has false) takes a restart"
                    + " to apply; the pool keeps its value, and the application runs on, but a restart with this"
                    + " configuration would fail: ").contains("pre-alloc needs a bounded capacity");
            assertThat(output.toString().split("takes a restart to apply", -1)).hasSize(2);
            // Each refresh's values replace the last one's (one property source).
            refresh(context, Map.of("pools.instances.mail.pre-alloc", "true", "pools.instances.mail.capacity", "-1",
                    "pools.instances.crawler.capacity", "4"));
            assertThat(output.toString().split("a restart with this configuration would fail", -1)).hasSize(2);
            refresh(context, Map.of("pools.instances.mail.pre-alloc", "true", "pools.instances.mail.capacity", "5"));
            refresh(context, Map.of("pools.instances.mail.pre-alloc", "true", "pools.instances.mail.capacity", "-1"));
            assertThat(output.toString().split("a restart with this configuration would fail", -1))
                .as("told again after it was fixed and broken again").hasSize(3);
        });
    }

    @Test
    void aChangeACustomizerMakesFailAtRestart_isWarnedAsARestartFailure(CapturedOutput output) {
        // Review helper-135: only the properties were checked, so a customizer's preAlloc(true)
        // with adaptive sizing switched on by a refresh read "takes a restart to apply", and the
        // restart then failed on every replica.
        WorkerPoolBuilderCustomizer preAlloc = (name, builder) -> {
            if (name.equals("mail")) {
                builder.preAlloc(true);
            }
        };
        this.runner.withBean(WorkerPoolBuilderCustomizer.class, () -> preAlloc).run((context) -> {
            refresh(context, Map.of("pools.instances.mail.adaptive.enabled", "true"));
            assertThat(output).contains("Pool 'mail': pools.instances.mail.adaptive.enabled=true")
                .contains("a restart with this configuration would fail: ")
                .contains("a WorkerPoolBuilderCustomizer set preAlloc(true) on pool 'mail'");
        });
        this.runner.withBean(WorkerPoolBuilderCustomizer.class, () -> preAlloc)
            .withPropertyValues("pools.instances.mail.adaptive.enabled=true")
            .run((context) -> assertThat(context).as("what the WARN foretells").hasFailed());
    }

    @Test
    @org.junit.jupiter.api.condition.EnabledForJreRange(min = org.junit.jupiter.api.condition.JRE.JAVA_21)
    void virtualThreadsSetByARefresh_onAPoolWhoseCustomizerSetsAThreadFactory_isWarnedAsARestartFailure(
            CapturedOutput output) {
        WorkerPoolBuilderCustomizer factory = (name, builder) -> builder
            .threadFactory(java.util.concurrent.Executors.defaultThreadFactory());
        this.runner.withBean(WorkerPoolBuilderCustomizer.class, () -> factory).run((context) -> {
            refresh(context, Map.of("pools.instances.mail.virtual-threads", "true"));
            assertThat(output).contains("a restart with this configuration would fail: pools.instances.mail.virtual-threads"
                    + "=true: virtual threads and the thread factory a WorkerPoolBuilderCustomizer sets on pool 'mail'");
        });
        this.runner.withBean(WorkerPoolBuilderCustomizer.class, () -> factory)
            .withPropertyValues("pools.instances.mail.virtual-threads=true")
            .run((context) -> assertThat(context).as("what the WARN foretells").hasFailed());
    }

    @Test
    void aDefaultPoolNamingAnExecutorThatIsNoPool_isWarnedThatARestartWouldFail(CapturedOutput output) {
        // Review helper-135: any bean that was not one of pools.instances passed.
        this.runner.run((context) -> {
            refresh(context, Map.of("pools.default-pool", "applicationTaskExecutor"));
            assertThat(output).contains("pools.default-pool: the application runs on, but a restart with this "
                    + "configuration would fail: ").contains("'applicationTaskExecutor' is a ");
        });
        this.runner.withPropertyValues("pools.default-pool=applicationTaskExecutor")
            .run((context) -> assertThat(context).as("what the WARN foretells").hasFailed());
    }

    @Test
    void aPoolNamedByDefaultPoolOrTheWebServer_removedFromTheInstances_isWarnedThatARestartWouldFail(CapturedOutput output) {
        this.runner.withPropertyValues("pools.default-pool=crawler").run((context) -> {
            Map<String, Object> all = new LinkedHashMap<>();
            all.put("pools.default-pool", "crawler");
            all.put("pools.instances.mail.capacity", "2");
            replaceTestProperties(context.getEnvironment(), all);
            context.publishEvent(new EnvironmentChangeEvent(context, Set.of("pools.instances.crawler.capacity")));
            assertThat(output).contains("pools.default-pool: the application runs on, but a restart with this "
                    + "configuration would fail: ").contains("there is no pool named 'crawler' for pools.default-pool");
        });
        this.runner.withPropertyValues("pools.web-server.pool=crawler").run((context) -> {
            Map<String, Object> all = new LinkedHashMap<>();
            all.put("pools.web-server.pool", "crawler");
            all.put("pools.instances.mail.capacity", "2");
            replaceTestProperties(context.getEnvironment(), all);
            context.publishEvent(new EnvironmentChangeEvent(context, Set.of("pools.instances.crawler.capacity")));
            assertThat(output).contains("pools.web-server.pool: the application runs on, but a restart with this "
                    + "configuration would fail: there is no pool named 'crawler' for pools.web-server.pool");
        });
    }

    @Test
    void aWebServerPoolOfFalse_isNoPoolARestartWouldMiss(CapturedOutput output) {
        // Review helper-82: false turns the web server pool off (Boot's condition), but a refresh
        // warned that a restart would fail for want of a pool named 'false'.
        this.runner.withPropertyValues("pools.web-server.pool=false").run((context) -> {
            refresh(context, Map.of("pools.instances.mail.capacity", "3"));
            assertThat(context.getBean("mail", SpringPool.class).capacity()).isEqualTo(3);
            assertThat(output).doesNotContain("pools.web-server.pool").doesNotContain("no pool named 'false'");
        });
    }

    @Test
    void restartOnlySettings_inAnotherFormOrFromAPlaceholder_areWarnedToTakeARestart(CapturedOutput output) {
        // Found by a review: only the exact keys pools.default-pool, pools.web-server.* and
        // pools.events.* were recognized.
        this.runner.withPropertyValues("async.pool=mail", "pools.default-pool=${async.pool}").run((context) -> {
            refresh(context, Map.of("async.pool", "crawler"));
            assertThat(output).contains("pools.default-pool and pools.propagate-context take a restart to change");
            refresh(context, Map.of("pools.webServer.reservedThreads", "4"));
            assertThat(output).contains("pools.web-server.* take a restart to change");
            refresh(context, Map.of("pools.events.saturationAfter", "1s"));
            assertThat(output).contains("pools.events.* take a restart to change");
        });
    }

    @Test
    void webServerAndEventsSettings_changedThroughAPlaceholder_areWarnedToTakeARestart(CapturedOutput output) {
        // Review helper-140: the pools.web-server.* and pools.events.* warnings followed the
        // event's keys, so a change of the key a placeholder names (or of an environment
        // variable's form) told nothing.
        this.runner.withPropertyValues("web.reserve=2", "pools.web-server.reserved-threads=${web.reserve}",
                "events.after=5s", "pools.events.saturation-after=${events.after}").run((context) -> {
                    refresh(context, Map.of("pools.instances.mail.capacity", "3"));
                    assertThat(output).doesNotContain("take a restart to change");
                    refresh(context, Map.of("web.reserve", "4"));
                    assertThat(output).contains("pools.web-server.* take a restart to change")
                        .doesNotContain("pools.events.* take a restart");
                    refresh(context, Map.of("events.after", "1s"));
                    assertThat(output).contains("pools.events.* take a restart to change");
                });
    }

    @Test
    void aRefreshThatLeavesAShadowedEntryAlone_tellsNothingOfIt(CapturedOutput output) {
        // Found by a review: the first refresh of anything (ZooKeeper's empty one just after
        // startup) warned that the entry is not applied, which startup had told already.
        this.runner.withPropertyValues("pools.instances.reports.capacity=2")
            .withBean("reports", io.github.workerpool.Pool.class,
                    () -> io.github.workerpool.WorkerPool.builder().name("reports").capacity(1).build())
            .run((context) -> {
                context.publishEvent(new EnvironmentChangeEvent(context, Set.of()));
                refresh(context, Map.of("pools.instances.mail.capacity", "3"));
                assertThat(output).doesNotContain("pools.instances.reports is not applied");
            });
    }

    @Test
    void anExplicitVirtualThreadsRemoved_underSpringsVirtualThreads_isNoRestartWarning(CapturedOutput output) {
        // Found by a review: unset, a restart gives the pool virtual threads (spring.threads.virtual.enabled),
        // yet the refresh warned "virtual-threads=false (the pool has true) takes a restart".
        org.junit.jupiter.api.Assumptions.assumeTrue(Runtime.version().feature() >= 21, "virtual threads need Java 21");
        this.runner.withPropertyValues("spring.threads.virtual.enabled=true", "pools.instances.mail.virtual-threads=true")
            .run((context) -> {
                Map<String, Object> all = new LinkedHashMap<>();
                all.put("spring.threads.virtual.enabled", "true");
                all.put("pools.instances.mail.capacity", "2");
                all.put("pools.instances.crawler.capacity", "3");
                replaceTestProperties(context.getEnvironment(), all);
                context.publishEvent(new EnvironmentChangeEvent(context, Set.of("pools.instances.mail.virtual-threads")));
                assertThat(context.getBean("mail", SpringPool.class).config().virtualThreads()).isTrue();
                assertThat(output).doesNotContain("virtual-threads=false");
            });
        // Without spring.threads.virtual.enabled, a restart would give it platform threads: told.
        this.runner.withPropertyValues("pools.instances.mail.virtual-threads=true").run((context) -> {
            Map<String, Object> all = new LinkedHashMap<>();
            all.put("pools.instances.mail.capacity", "2");
            all.put("pools.instances.crawler.capacity", "3");
            replaceTestProperties(context.getEnvironment(), all);
            context.publishEvent(new EnvironmentChangeEvent(context, Set.of("pools.instances.mail.virtual-threads")));
            assertThat(output).contains("pools.instances.mail.virtual-threads=false (the pool has true) takes a restart");
        });
    }

    @Test
    void anotherFormOfAShadowedEntry_isNoAddedPool(CapturedOutput output) {
        // Found by a review: the application's bean shadows order-events, so no alias is made, and
        // the key orderevents (an environment variable's form) was warned as a pool added.
        this.runner.withPropertyValues("pools.instances.order-events.capacity=2", "pools.instances.orderevents.capacity=2")
            .withBean("order-events", io.github.workerpool.Pool.class,
                    () -> io.github.workerpool.WorkerPool.builder().name("order-events").capacity(1).build())
            .run((context) -> {
                context.publishEvent(new EnvironmentChangeEvent(context, Set.of()));
                assertThat(output).doesNotContain("was added to pools.instances").doesNotContain("is not applied");
                refresh(context, Map.of("pools.instances.orderevents.capacity", "4"));
                assertThat(output).contains("pools.instances.order-events is not applied")
                    .doesNotContain("was added to pools.instances");
            });
    }

    /** Puts the values in front of every other source and publishes the event for their keys. */
    private static void refresh(org.springframework.context.ConfigurableApplicationContext context,
            Map<String, Object> values) {
        context.getEnvironment().getPropertySources().addFirst(new MapPropertySource("refreshed", values));
        context.publishEvent(new EnvironmentChangeEvent(context, values.keySet()));
    }

    /** Replaces the runner's test properties, as a config engine replaces its property source. */
    private static void replaceTestProperties(ConfigurableEnvironment environment, Map<String, Object> values) {
        String name = environment.getPropertySources().stream()
            .map(org.springframework.core.env.PropertySource::getName)
            .filter((n) -> n.toLowerCase(java.util.Locale.ROOT).contains("test"))
            .findFirst()
            .orElseThrow();
        environment.getPropertySources().replace(name, new MapPropertySource(name, values));
    }

}
