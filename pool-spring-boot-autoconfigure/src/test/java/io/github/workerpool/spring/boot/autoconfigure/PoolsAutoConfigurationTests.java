package io.github.workerpool.spring.boot.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

import io.github.workerpool.FunctionPool;
import io.github.workerpool.Pool;
import io.github.workerpool.PoolConfig;
import io.github.workerpool.WorkerPool;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.context.LifecycleAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.autoconfigure.task.TaskSchedulingAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.task.AsyncTaskExecutor;
import org.springframework.core.task.TaskDecorator;
import org.springframework.core.task.TaskExecutor;
import org.springframework.scheduling.annotation.Async;
import org.springframework.scheduling.annotation.AsyncConfigurer;
import org.springframework.scheduling.annotation.EnableAsync;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Tests for {@link PoolsAutoConfiguration}, one scenario each.
 */
@ExtendWith(OutputCaptureExtension.class)
class PoolsAutoConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(PoolsAutoConfiguration.class, TaskExecutionAutoConfiguration.class))
        .withPropertyValues("pools.instances.mail.capacity=2", "pools.instances.crawler.capacity=3");

    @Test
    void withOnePool_andTheApplicationsOwnExecutor_plainAsyncRunsOnThatExecutor() {
        // Found by a review: the application's executor (no TaskExecutor) made Spring Boot make none,
        // and Spring's lookup of a unique TaskExecutor took the one pool, a non-default candidate.
        onePoolAnd().withBean("taskExecutor", ExecutorService.class, () -> executor("user-1"), this::shutdown)
            .run((context) -> {
                assertThat(context).hasNotFailed();
                assertThat(plainAsyncThread(context)).isEqualTo("user-1");
                assertThat(context.getBean(AsyncService.class).onMail().get(10, TimeUnit.SECONDS)).startsWith("mail-");
            });
        // Nothing of the application's either: Spring's SimpleAsyncTaskExecutor, as without the starter.
        onePoolAnd().withBean("other", ExecutorService.class, () -> executor("other-1"), this::shutdown)
            .run((context) -> assertThat(plainAsyncThread(context)).doesNotStartWith("mail-").doesNotStartWith("other-"));
        // Found by the review of that fix: with Boot's executor and its scheduler (a TaskExecutor
        // too), Boot's executor as before, not a SimpleAsyncTaskExecutor.
        onePoolAnd().withConfiguration(AutoConfigurations.of(
                    org.springframework.boot.autoconfigure.task.TaskSchedulingAutoConfiguration.class))
            .withUserConfiguration(SchedulingConfiguration.class)
            .run((context) -> assertThat(plainAsyncThread(context)).startsWith("task-"));
        // The application's own executor named applicationTaskExecutor, no TaskExecutor: Boot makes
        // neither its executor nor its wrapper of this configurer, and Spring's lookup took the pool.
        onePoolAnd().withBean("applicationTaskExecutor", ExecutorService.class, () -> executor("app-1"), this::shutdown)
            .run((context) -> assertThat(plainAsyncThread(context)).isEqualTo("app-1"));
        // The application's own pool named taskExecutor (a default candidate): as Spring would.
        onePoolAnd().withBean("taskExecutor", WorkerPool.class, () -> WorkerPool.builder().name("own").capacity(1).build())
            .run((context) -> assertThat(plainAsyncThread(context)).startsWith("own-"));
    }

    /** One pool, Boot's task execution, and the @Async service. */
    private static ApplicationContextRunner onePoolAnd() {
        return new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(PoolsAutoConfiguration.class, TaskExecutionAutoConfiguration.class))
            .withPropertyValues("pools.instances.mail.capacity=2")
            .withUserConfiguration(AsyncConfiguration.class);
    }

    private static ExecutorService executor(String thread) {
        return java.util.concurrent.Executors.newFixedThreadPool(1, (r) -> new Thread(r, thread));
    }

    private void shutdown(org.springframework.beans.factory.config.BeanDefinition definition) {
        definition.setDestroyMethodName("shutdown");
    }

    private static String plainAsyncThread(AssertableApplicationContext context) throws Exception {
        return context.getBean(AsyncService.class).plain().get(10, TimeUnit.SECONDS);
    }

    @Test
    void aPauseOfTheContext_leavesThePoolsRunning() {
        // Found by a review: Spring 7's pause() (the TestContext framework's at every switch of
        // cached contexts) stopped the pools as a shutdown: running tasks interrupted once the
        // await period was up, and tasks from beans a pause leaves running refused.
        this.runner.withPropertyValues("pools.instances.mail.shutdown.await-termination-period=200ms").run((context) -> {
            SpringPool mail = context.getBean("mail", SpringPool.class);
            CountDownLatch release = new CountDownLatch(1);
            java.util.concurrent.atomic.AtomicReference<String> outcome = new java.util.concurrent.atomic.AtomicReference<>();
            CountDownLatch started = new CountDownLatch(1);
            mail.execute(() -> {
                started.countDown();
                try {
                    release.await();
                    outcome.set("ran");
                }
                catch (InterruptedException ex) {
                    outcome.set("interrupted");
                }
            });
            assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
            org.springframework.context.ConfigurableApplicationContext source = context
                .getSourceApplicationContext(org.springframework.context.ConfigurableApplicationContext.class);
            source.pause();
            assertThat(mail.isShutdown()).isFalse();
            source.restart();
            release.countDown();
            await().atMost(Duration.ofSeconds(10)).until(() -> outcome.get() != null);
            assertThat(outcome.get()).isEqualTo("ran");
            assertThat(mail.submit(() -> "after").get(10, TimeUnit.SECONDS)).isEqualTo("after");
        });
    }

    @Test
    void whenStartupFails_thePoolsDrainTogether_notOneAfterTheOther() throws Exception {
        // Found by a review: no pool was started, so each was stopped by its own destroy(), one
        // after the other, each waiting its whole period: the failure came after their sum.
        FailingStartup.reset();
        Thread watcher = new Thread(() -> {
            try {
                FailingStartup.started.await(30, TimeUnit.SECONDS);
                await().atMost(Duration.ofSeconds(30)).until(() -> FailingStartup.mail != null
                        && FailingStartup.mail.isShutdown() && FailingStartup.crawler.isShutdown());
                FailingStartup.bothShutWhileTheirTasksRan.set(FailingStartup.interrupted.get() == 0);
            }
            catch (Throwable ex) {
                // the assertion below reports it
            }
            finally {
                FailingStartup.release.countDown();
            }
        });
        watcher.start();
        this.runner.withPropertyValues("pools.instances.mail.shutdown.await-termination-period=20s",
                "pools.instances.crawler.shutdown.await-termination-period=20s")
            .withUserConfiguration(FailingStartup.class)
            .run((context) -> assertThat(context).hasFailed());
        watcher.join(30_000);
        assertThat(FailingStartup.bothShutWhileTheirTasksRan.get())
            .as("the second pool was shut down while the first one's task still ran").isTrue();
    }

    @Test
    void whenStartupFails_eachPoolWaitsWhatIsLeftOfItsPeriod_sinceTheyAllBeganToStop() {
        // Review helper-68: the drain together had no test of its own waits. Two tasks that end
        // only when interrupted, two periods of 3 s: the pools begin to stop together, so the
        // second waits what is left of its period after the first's (nothing): both are
        // interrupted about 3 s after the failure, where each waiting its whole period would
        // interrupt the second 3 s after the first. (Timed from the failure, not from the run's
        // start: the context's start on a loaded machine is no part of it.)
        FailingStartup.reset(); // release is never opened: both tasks run until interrupted
        this.runner.withPropertyValues("pools.instances.mail.shutdown.await-termination-period=3s",
                "pools.instances.crawler.shutdown.await-termination-period=3s")
            .withUserConfiguration(FailingStartup.class)
            .run((context) -> assertThat(context).hasFailed());
        // Interrupted by the forced stops: each task counts once its thread runs again.
        await().atMost(Duration.ofSeconds(10)).until(() -> FailingStartup.interrupted.get() == 2);
        List<Long> at = FailingStartup.interruptedAt;
        assertThat(Duration.ofNanos(Math.min(at.get(0), at.get(1)) - FailingStartup.failedAt))
            .as("the first interrupt, after its period").isGreaterThanOrEqualTo(Duration.ofSeconds(3));
        assertThat(Duration.ofNanos(Math.abs(at.get(0) - at.get(1))))
            .as("the second interrupt, with the first: not a period later").isLessThan(Duration.ofSeconds(2));
    }

    @Test
    void aPoolDestroyedAloneInARunningContext_leavesTheOthersAlone() throws Exception {
        // Found by the review of that fix: a running pool destroyed alone stopped a sibling the
        // lifecycle had not started (one made again after its own destroy), in a running context.
        this.runner.run((context) -> {
            org.springframework.beans.factory.support.DefaultListableBeanFactory beans =
                    (org.springframework.beans.factory.support.DefaultListableBeanFactory) context.getBeanFactory();
            beans.destroySingleton("mail");
            SpringPool mailAgain = context.getBean("mail", SpringPool.class);
            beans.destroySingleton("crawler");
            assertThat(mailAgain.isShutdown()).isFalse();
            assertThat(mailAgain.submit(() -> "ran").get(10, TimeUnit.SECONDS)).isEqualTo("ran");
            // The other way round: a pool made again, never started, destroyed alone.
            SpringPool crawlerAgain = context.getBean("crawler", SpringPool.class);
            beans.destroySingleton("mail");
            assertThat(crawlerAgain.isShutdown()).isFalse();
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class FailingStartup {

        static volatile CountDownLatch started;

        static volatile CountDownLatch release;

        static final java.util.concurrent.atomic.AtomicInteger interrupted = new java.util.concurrent.atomic.AtomicInteger();

        /** System.nanoTime() of each interrupt, and of the failure. */
        static final List<Long> interruptedAt = new java.util.concurrent.CopyOnWriteArrayList<>();

        static volatile long failedAt;

        static final java.util.concurrent.atomic.AtomicBoolean bothShutWhileTheirTasksRan = new java.util.concurrent.atomic.AtomicBoolean();

        static volatile java.util.concurrent.ExecutorService mail;

        static volatile java.util.concurrent.ExecutorService crawler;

        static void reset() {
            started = new CountDownLatch(2);
            release = new CountDownLatch(1);
            interrupted.set(0);
            interruptedAt.clear();
            failedAt = 0;
            bothShutWhileTheirTasksRan.set(false);
            mail = null;
            crawler = null;
        }

        @Bean
        Object submitter(@Qualifier("mail") java.util.concurrent.ExecutorService mail,
                @Qualifier("crawler") java.util.concurrent.ExecutorService crawler) {
            for (java.util.concurrent.ExecutorService pool : List.of(mail, crawler)) {
                pool.execute(() -> {
                    started.countDown();
                    try {
                        release.await();
                    }
                    catch (InterruptedException ex) {
                        interruptedAt.add(System.nanoTime());
                        interrupted.incrementAndGet();
                    }
                });
            }
            FailingStartup.crawler = crawler;
            FailingStartup.mail = mail;
            return "submitted";
        }

        @Bean
        @org.springframework.context.annotation.DependsOn("submitter")
        Object failing() {
            failedAt = System.nanoTime();
            throw new IllegalStateException("startup fails");
        }

    }

    static class QualifiedByAlias {

        final java.util.concurrent.ExecutorService pool;

        final java.util.concurrent.ExecutorService byName;

        QualifiedByAlias(@org.springframework.beans.factory.annotation.Qualifier("orderevents") java.util.concurrent.ExecutorService pool,
                @org.springframework.beans.factory.annotation.Qualifier("order-events") java.util.concurrent.ExecutorService byName) {
            this.pool = pool;
            this.byName = byName;
        }

    }

    @Test
    void onePoolWrittenInTwoForms_isOnePool_underBothNames(CapturedOutput output) {
        // Found by a review: Spring Boot binds each form of a name as a key of its own, with the same
        // values (an environment variable POOLS_INSTANCES_ORDEREVENTS_CAPACITY makes the key
        // orderevents), and each key made a pool: two pools, their threads, meters and entries.
        this.runner.withPropertyValues("pools.instances.order-events.capacity=2",
                "pools.instances.orderevents.queue-capacity=5", "pools.instances.orderEvents.nonblocking=true")
            .withBean(QualifiedByAlias.class)
            .run((context) -> {
                assertThat(context).hasNotFailed();
                assertThat(context.getBeansOfType(SpringPool.class)).containsOnlyKeys("mail", "crawler", "order-events");
                SpringPool pool = context.getBean("order-events", SpringPool.class);
                assertThat(context.getBean("orderevents")).isSameAs(pool);
                assertThat(context.getBean("orderEvents")).isSameAs(pool);
                assertThat(pool.name()).isEqualTo("order-events");
                assertThat(pool.capacity()).isEqualTo(2);
                assertThat(pool.config().queueCapacity()).isEqualTo(5);
                assertThat(pool.config().nonblocking()).isTrue();
                assertThat(context.getBean(QualifiedByAlias.class).pool).isSameAs(pool);
                assertThat(context.getBean(QualifiedByAlias.class).byName).isSameAs(pool);
                assertThat(output).contains("pools.instances.orderevents").contains("pools.instances.[orderEvents]")
                    .contains("are one pool, 'order-events' (one property name in 3 forms");
            });
    }

    @Test
    void anotherFormOfAPoolsKeyThatNamesAnApplicationBean_isNoAlias_andSaysSo(CapturedOutput output) {
        // Found by a review: the alias was skipped silently, so @Async("orderevents") ran on the
        // application's bean while the configuration read as the pool's.
        this.runner.withPropertyValues("pools.instances.order-events.capacity=2", "pools.instances.orderevents.capacity=2")
            .withBean("orderevents", String.class, () -> "the application's")
            .run((context) -> {
                assertThat(context).hasNotFailed();
                assertThat(context.getBean("orderevents")).isEqualTo("the application's");
                assertThat(context.getBean("order-events", SpringPool.class).capacity()).isEqualTo(2);
                assertThat(output).contains("'orderevents' is not a name of pool 'order-events' of pools.instances.orderevents:"
                        + " the application defines a bean of that name");
            });
    }

    @Test
    void poolIsBeanNamedAfterInstanceThatIsPoolExecutorServiceAndAsyncTaskExecutor() {
        this.runner.run((context) -> {
            assertThat(context.getBean("mail")).isInstanceOf(Pool.class)
                .isInstanceOf(java.util.concurrent.ExecutorService.class)
                .isInstanceOf(AsyncTaskExecutor.class);
            SpringPool mail = context.getBean("mail", SpringPool.class);
            assertThat(mail.name()).isEqualTo("mail");
            assertThat(mail.capacity()).isEqualTo(2);
            assertThat(context.getBean("crawler", SpringPool.class).capacity()).isEqualTo(3);
        });
    }

    @Test
    void instanceInheritsDefaultsAndOverridesThem() {
        this.runner
            .withPropertyValues("pools.defaults.expiry=5s", "pools.defaults.queue-capacity=7",
                    "pools.defaults.shutdown.await-termination-period=2s", "pools.instances.crawler.expiry=9s")
            .run((context) -> {
                PoolConfig mail = context.getBean("mail", SpringPool.class).config();
                PoolConfig crawler = context.getBean("crawler", SpringPool.class).config();
                assertThat(mail.expiry()).isEqualTo(Duration.ofSeconds(5));
                assertThat(mail.queueCapacity()).isEqualTo(7);
                assertThat(crawler.expiry()).isEqualTo(Duration.ofSeconds(9));
                assertThat(crawler.queueCapacity()).isEqualTo(7);
                assertThat(context.getBean("mail", SpringPool.class).awaitTerminationPeriod())
                    .isEqualTo(Duration.ofSeconds(2));
            });
    }

    @Test
    void everyOptionIsBoundToTheBuilder() {
        this.runner
            .withPropertyValues("pools.instances.mail.expiry=3s", "pools.instances.mail.disable-purge=true",
                    "pools.instances.mail.pre-alloc=true", "pools.instances.mail.queue-capacity=4",
                    "pools.instances.mail.nonblocking=true", "pools.instances.mail.max-blocking-tasks=5",
                    "pools.instances.mail.blocking-timeout=6s")
            .run((context) -> assertThat(context.getBean("mail", SpringPool.class).config())
                .isEqualTo(new PoolConfig("mail", 2, Duration.ofSeconds(3), true, true, 4, true, 5,
                        Duration.ofSeconds(6), null, null, false, false)));
    }

    @Test
    void qualifiedInjectionOfPoolExecutorServiceAndTaskExecutorFindsThePool() {
        this.runner.withUserConfiguration(QualifiedInjectionConfiguration.class).run((context) -> {
            QualifiedClient client = context.getBean(QualifiedClient.class);
            assertThat(client.pool).isSameAs(context.getBean("mail"));
            assertThat(client.executor).isSameAs(context.getBean("mail"));
            assertThat(client.async).isSameAs(context.getBean("crawler"));
        });
    }

    @Test
    void applicationTaskExecutorStaysWhenPoolsAreDefined() {
        this.runner.run((context) -> {
            assertThat(context).hasBean("applicationTaskExecutor");
            assertThat(context.getBean(Executor.class)).isSameAs(context.getBean("applicationTaskExecutor"));
        });
    }

    @Test
    void asyncWithPoolNameRunsOnThatPool() {
        this.runner.withUserConfiguration(AsyncConfiguration.class).run((context) -> {
            AsyncService service = context.getBean(AsyncService.class);
            assertThat(service.onMail().get(10, TimeUnit.SECONDS)).startsWith("mail-");
            assertThat(service.onCrawler().get(10, TimeUnit.SECONDS)).startsWith("crawler-");
        });
    }

    @Test
    void plainAsyncRunsOnApplicationTaskExecutorWithoutDefaultPool() {
        this.runner.withUserConfiguration(AsyncConfiguration.class).run((context) -> {
            String thread = context.getBean(AsyncService.class).plain().get(10, TimeUnit.SECONDS);
            assertThat(thread).startsWith("task-");
        });
    }

    @Test
    void plainAsyncRunsOnDefaultPoolWhenSet() {
        this.runner.withUserConfiguration(AsyncConfiguration.class)
            .withPropertyValues("pools.default-pool=crawler")
            .run((context) -> {
                String thread = context.getBean(AsyncService.class).plain().get(10, TimeUnit.SECONDS);
                assertThat(thread).startsWith("crawler-");
                assertThat(context).hasBean("applicationTaskExecutor");
            });
    }

    @Test
    void applicationAsyncConfigurerWinsOverPools() {
        this.runner.withUserConfiguration(AsyncConfiguration.class, UserAsyncConfigurerConfiguration.class)
            .run((context) -> {
                assertThat(context).doesNotHaveBean(PoolsAsyncConfigurer.class);
                String thread = context.getBean(AsyncService.class).plain().get(10, TimeUnit.SECONDS);
                assertThat(thread).startsWith("user-");
            });
    }

    @Test
    void defaultPool_withTheApplicationsOwnAsyncConfigurer_isCheckedAndWarnedAsNotApplied(CapturedOutput output) {
        // Helper-107: the check and the configurer were both off with an application configurer,
        // so a pools.default-pool that no longer applied said nothing.
        this.runner.withUserConfiguration(AsyncConfiguration.class, UserAsyncConfigurerConfiguration.class)
            .withPropertyValues("pools.default-pool=crawler")
            .run((context) -> {
                assertThat(context).hasNotFailed();
                assertThat(context.getBean(AsyncService.class).plain().get(10, TimeUnit.SECONDS)).startsWith("user-");
                assertThat(output).contains("pools.default-pool=crawler is not what chooses plain @Async's executor: "
                        + "the application's AsyncConfigurer [userAsyncConfigurer] does");
            });
        this.runner.withUserConfiguration(AsyncConfiguration.class, UserAsyncConfigurerConfiguration.class)
            .withBean("plainExecutor", Executor.class, () -> (task) -> { })
            .withPropertyValues("pools.default-pool=plainExecutor")
            .run((context) -> assertThat(context).hasFailed()
                .getFailure().hasStackTraceContaining("'plainExecutor' is a"));
    }

    @Test
    void asyncMethodsWithoutEnableAsync_areWarnedOfNamingTheBean(CapturedOutput output) {
        // Found by a review (helper-132): without @EnableAsync (Spring Boot does not turn it on),
        // @Async("mail") ran on the caller's thread, the pool idle, and nothing said why.
        this.runner.withBean("asyncService", AsyncService.class).run((context) -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean(AsyncService.class).onMail().get(10, TimeUnit.SECONDS))
                .as("runs on the caller's thread: what the warning is about")
                .isEqualTo(Thread.currentThread().getName());
            assertThat(output).contains("@Async methods of bean 'asyncService' ("
                    + AsyncService.class.getName() + ") run on the calling thread: @EnableAsync is missing");
        });
    }

    @Test
    void asyncMethodsWovenByAspectJ_areNotWarnedOf(CapturedOutput output) {
        // Review helper-174: @EnableAsync(mode = ASPECTJ) registers the execution aspect, not the
        // proxying post-processor, and a working application was told @EnableAsync was missing.
        this.runner.withBean("asyncService", AsyncService.class)
            .withBean(org.springframework.scheduling.config.TaskManagementConfigUtils.ASYNC_EXECUTION_ASPECT_BEAN_NAME,
                    Object.class, Object::new)
            .run((context) -> {
                assertThat(context).hasNotFailed();
                assertThat(output).doesNotContain("@EnableAsync is missing");
            });
    }

    @Test
    void asyncMethodsWithEnableAsync_areNotWarnedOf(CapturedOutput output) {
        this.runner.withUserConfiguration(AsyncConfiguration.class).run((context) -> {
            assertThat(context.getBean(AsyncService.class).onMail().get(10, TimeUnit.SECONDS)).startsWith("mail-");
            assertThat(output).doesNotContain("@EnableAsync is missing");
        });
    }

    @Test
    void defaultPoolWhenUnknownFailsStartup() {
        this.runner.withPropertyValues("pools.default-pool=mial").run((context) -> {
            FailureAnalysis analysis = analyze(context);
            assertThat(analysis.getDescription()).contains("pools.default-pool", "'mial'");
            assertThat(analysis.getAction()).contains("mail", "crawler");
        });
    }

    @Test
    void defaultPoolThatCannotRunTasksFailsStartup() {
        // Found by a review: a FunctionPool bean passed, and every plain @Async call failed later.
        this.runner.withPropertyValues("pools.default-pool=fn")
            .withBean("fn", FunctionPool.class, () -> FunctionPool.of(WorkerPool.builder().capacity(1), (Object o) -> { }))
            .run((context) -> {
                FailureAnalysis analysis = analyze(context);
                assertThat(analysis.getDescription()).contains("pools.default-pool", "'fn'", "FunctionPool",
                        "cannot run @Async methods");
                assertThat(analysis.getAction()).contains("Set pools.default-pool to a pool of pools.instances");
            });
    }

    @Test
    void defaultPoolThatIsAnExecutorButNoPoolFailsStartup() {
        // Found by a review: the README promised this, and any Executor bean passed.
        this.runner.withPropertyValues("pools.default-pool=direct")
            .withBean("direct", java.util.concurrent.Executor.class, () -> Runnable::run)
            .run((context) -> {
                FailureAnalysis analysis = analyze(context);
                assertThat(analysis.getDescription()).contains("pools.default-pool", "'direct'", "not a pool");
                assertThat(analysis.getAction()).contains("a Pool bean that runs Runnables",
                        "or remove it to keep Spring Boot's executor");
            });
    }

    @Test
    void defaultPoolThatIsAPrototypeFailsStartupWithoutMakingOne() {
        // Found by a review: the check made an instance nobody closed, and @Async's first call another.
        List<Pool> made = new java.util.concurrent.CopyOnWriteArrayList<>();
        this.runner.withUserConfiguration(AsyncConfiguration.class)
            .withPropertyValues("pools.default-pool=proto")
            .withBean("proto", Pool.class, () -> {
                WorkerPool pool = WorkerPool.builder().name("proto").capacity(1).build();
                made.add(pool);
                return pool;
            }, (definition) -> definition.setScope(org.springframework.beans.factory.config.BeanDefinition.SCOPE_PROTOTYPE))
            .run((context) -> {
                FailureAnalysis analysis = analyze(context);
                assertThat(analysis.getDescription()).contains("pools.default-pool", "'proto'", "prototype or scoped bean");
                assertThat(analysis.getAction()).contains("Declare 'proto' as a singleton bean");
                assertThat(made).isEmpty();
            });
    }

    @Test
    void voidAsyncExceptionIsLoggedWithPoolName(CapturedOutput output) {
        this.runner.withUserConfiguration(AsyncConfiguration.class).run((context) -> {
            context.getBean(AsyncService.class).failOnMail();
            await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(output).contains("on pool 'mail'").contains("boom from mail"));
        });
    }

    @Test
    void voidAsyncExceptionIsCountedAsFailedByThePool_andLoggedOnce(CapturedOutput output) {
        // Found by a review: Spring's handler swallowed it, and the pool counted the task completed.
        this.runner.withUserConfiguration(AsyncConfiguration.class).run((context) -> {
            SpringPool mail = context.getBean("mail", SpringPool.class);
            context.getBean(AsyncService.class).failOnMail();
            await().atMost(Duration.ofSeconds(10)).until(() -> mail.stats().failed() == 1);
            assertThat(mail.stats().completed()).isZero();
            assertThat(output.toString().split("boom from mail", -1)).as("logged once").hasSize(2);
        });
    }

    @Test
    void exceptionFromExecutedTaskIsLoggedWithPoolName(CapturedOutput output) {
        this.runner.run((context) -> {
            context.getBean("crawler", SpringPool.class).execute(() -> {
                throw new IllegalStateException("boom from crawler");
            });
            await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(output).contains("Task on pool 'crawler' threw")
                    .contains("boom from crawler"));
        });
    }

    @Test
    void taskDecoratorBeansAreAppliedToEveryPool() {
        this.runner.withUserConfiguration(TaskDecoratorConfiguration.class).run((context) -> {
            for (String name : new String[] { "mail", "crawler" }) {
                SpringPool pool = context.getBean(name, SpringPool.class);
                String seen = pool.submit(() -> TaskDecoratorConfiguration.VALUE.get()).get(10, TimeUnit.SECONDS);
                assertThat(seen).isIn("first+second", "second+first");
            }
        });
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = { "execute", "submit(Runnable)", "submit(Runnable, T)", "submit(Callable)",
            "submitCompletable(Callable)", "submitCompletable(Runnable)", "invokeAll", "timed invokeAll", "invokeAny",
            "timed invokeAny", "runAsync" })
    void everyWayInDecoratesATaskOnce(String path) {
        // helper-107: each entry point wraps its own task type; one decorated twice runs inside
        // two copies of each decorator (a security or MDC context set and restored twice).
        this.runner.withUserConfiguration(TaskDecoratorConfiguration.class).run((context) -> {
            SpringPool mail = context.getBean("mail", SpringPool.class);
            CompletableFuture<String> seen = new CompletableFuture<>();
            java.util.concurrent.Callable<String> task = () -> {
                seen.complete(TaskDecoratorConfiguration.VALUE.get());
                return "done";
            };
            Runnable runnable = () -> seen.complete(TaskDecoratorConfiguration.VALUE.get());
            switch (path) {
                case "execute" -> mail.execute(runnable);
                case "submit(Runnable)" -> mail.submit(runnable);
                case "submit(Runnable, T)" -> mail.submit(runnable, "done");
                case "submit(Callable)" -> mail.submit(task);
                case "submitCompletable(Callable)" -> mail.submitCompletable(task);
                case "submitCompletable(Runnable)" -> mail.submitCompletable(runnable);
                case "invokeAll" -> mail.invokeAll(List.of(task));
                case "timed invokeAll" -> mail.invokeAll(List.of(task), 10, TimeUnit.SECONDS);
                case "invokeAny" -> mail.invokeAny(List.of(task));
                case "timed invokeAny" -> mail.invokeAny(List.of(task), 10, TimeUnit.SECONDS);
                case "runAsync" -> CompletableFuture.runAsync(runnable, mail);
                default -> throw new IllegalArgumentException(path);
            }
            assertThat(seen.get(10, TimeUnit.SECONDS)).isIn("first+second", "second+first");
        });
    }

    @Test
    void aTaskDecoratorThatThrowsBeforeTheTask_endsItsFutureWithTheFailure_andOneThatReturnsNull_isRefusedAtSubmit() {
        // Review helper-98: the future of a task whose decorator's wrapper threw was never
        // completed (get() waited for ever); a null wrapper failed only when the task ran.
        IllegalStateException noContext = new IllegalStateException("no request context here");
        this.runner.withBean(TaskDecorator.class, () -> (task) -> () -> {
            throw noContext;
        }).run((context) -> {
            SpringPool mail = context.getBean("mail", SpringPool.class);
            assertThat(mail.submit(() -> 1)).failsWithin(java.time.Duration.ofSeconds(10))
                .withThrowableOfType(java.util.concurrent.ExecutionException.class)
                .withCause(noContext);
            // @Async methods that return a CompletableFuture come this way.
            assertThat(mail.submitCompletable(() -> 1)).failsWithin(java.time.Duration.ofSeconds(10))
                .withThrowableOfType(java.util.concurrent.ExecutionException.class)
                .withCause(noContext);
        });
        this.runner.withBean(TaskDecorator.class, () -> (task) -> null).run((context) -> {
            SpringPool mail = context.getBean("mail", SpringPool.class);
            org.assertj.core.api.Assertions.assertThatNullPointerException().isThrownBy(() -> mail.submit(() -> 1))
                .withMessageContaining("returned null for a task of pool 'mail'");
        });
    }

    @Test
    void workerPoolBuilderCustomizersAreAppliedInOrderToEveryPool() {
        this.runner.withUserConfiguration(CustomizerConfiguration.class).run((context) -> {
            CustomizerConfiguration customizers = context.getBean(CustomizerConfiguration.class);
            assertThat(customizers.calls).containsExactlyInAnyOrder("first:mail", "second:mail", "first:crawler",
                    "second:crawler");
            assertThat(customizers.calls.stream().filter((call) -> call.endsWith(":mail")))
                .containsExactly("first:mail", "second:mail");
            for (String name : new String[] { "mail", "crawler" }) {
                String thread = context.getBean(name, SpringPool.class)
                    .submit(() -> Thread.currentThread().getName())
                    .get(10, TimeUnit.SECONDS);
                assertThat(thread).isEqualTo("second-" + name);
            }
        });
    }

    @Test
    void workerPoolBuilderCustomizerWinsOverPropertiesAndTheStartersPanicHandler(CapturedOutput output) {
        CompletableFuture<Throwable> panic = new CompletableFuture<>();
        WorkerPoolBuilderCustomizer customizer = (name, builder) -> {
            if (name.equals("mail")) {
                builder.capacity(9).panicHandler(panic::complete);
            }
        };
        this.runner.withBean(WorkerPoolBuilderCustomizer.class, () -> customizer).run((context) -> {
            SpringPool mail = context.getBean("mail", SpringPool.class);
            assertThat(mail.capacity()).isEqualTo(9);
            assertThat(context.getBean("crawler", SpringPool.class).capacity()).isEqualTo(3);
            mail.execute(() -> {
                throw new IllegalStateException("boom for the customizer");
            });
            assertThat(panic.get(10, TimeUnit.SECONDS)).hasMessage("boom for the customizer");
            assertThat(output).doesNotContain("Task on pool 'mail' threw");
        });
    }

    @Test
    void workerPoolBuilderCustomizerLeavesApplicationBuiltPoolsAlone() {
        java.util.List<String> customized = new java.util.concurrent.CopyOnWriteArrayList<>();
        this.runner.withUserConfiguration(UserMailPoolConfiguration.class)
            .withBean(WorkerPoolBuilderCustomizer.class, () -> (name, builder) -> customized.add(name))
            .run((context) -> {
                assertThat(context.getBean("mail")).isSameAs(context.getBean(UserMailPoolConfiguration.class).pool);
                assertThat(customized).containsExactly("crawler");
            });
    }

    @Test
    void contextCloseWaitsForRunningTasksWithinAwaitPeriod() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch started = new CountDownLatch(1);
        CompletableFuture<Boolean> finished = new CompletableFuture<>();
        this.runner.withPropertyValues("pools.instances.mail.shutdown.await-termination-period=20s").run((context) -> {
            SpringPool mail = context.getBean("mail", SpringPool.class);
            mail.execute(() -> {
                started.countDown();
                try {
                    finished.complete(release.await(20, TimeUnit.SECONDS));
                }
                catch (InterruptedException ex) {
                    finished.complete(false);
                }
            });
            assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
            // Let the task finish only once close has begun: the close must wait for it.
            Thread releaser = new Thread(() -> {
                await().atMost(Duration.ofSeconds(10)).until(mail::isShutdown);
                release.countDown();
            });
            releaser.start();
        });
        assertThat(finished).isCompletedWithValue(true);
    }

    @Test
    void contextCloseWaitsWithAnAwaitPeriodBeyondLongNanos(CapturedOutput output) throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch started = new CountDownLatch(1);
        CompletableFuture<Boolean> finished = new CompletableFuture<>();
        // 106752 days is more nanoseconds than a long holds (about 292 years).
        this.runner.withPropertyValues("pools.instances.mail.shutdown.await-termination-period=106752d")
            .run((context) -> {
                SpringPool mail = context.getBean("mail", SpringPool.class);
                mail.execute(() -> {
                    started.countDown();
                    try {
                        finished.complete(release.await(20, TimeUnit.SECONDS));
                    }
                    catch (InterruptedException ex) {
                        finished.complete(false);
                    }
                });
                assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
                Thread releaser = new Thread(() -> {
                    await().atMost(Duration.ofSeconds(10)).until(mail::isShutdown);
                    release.countDown();
                });
                releaser.start();
            });
        assertThat(finished).isCompletedWithValue(true);
        assertThat(output).doesNotContain("destroy method failed").doesNotContain("ArithmeticException");
    }

    @Test
    void contextCloseCancelsTasksThatNeverRanAndLogsThem(CapturedOutput output) throws Exception {
        CountDownLatch started = new CountDownLatch(1);
        CompletableFuture<Boolean> interrupted = new CompletableFuture<>();
        java.util.List<java.util.concurrent.Future<?>> queued = new java.util.ArrayList<>();
        SpringPool[] pool = new SpringPool[1];
        this.runner
            .withPropertyValues("pools.instances.mail.capacity=1", "pools.instances.mail.queue-capacity=5",
                    "pools.instances.mail.shutdown.await-termination-period=100ms")
            .run((context) -> {
                pool[0] = context.getBean("mail", SpringPool.class);
                pool[0].execute(() -> {
                    started.countDown();
                    try {
                        new CountDownLatch(1).await(30, TimeUnit.SECONDS);
                        interrupted.complete(false);
                    }
                    catch (InterruptedException ex) {
                        interrupted.complete(true);
                    }
                });
                assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
                for (int i = 0; i < 3; i++) {
                    queued.add(pool[0].submit(() -> { }));
                }
            });
        assertThat(interrupted.get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(queued).allMatch(java.util.concurrent.Future::isCancelled);
        assertThat(pool[0].stats().cancelled()).isEqualTo(3);
        assertThat(output).contains("Pool 'mail' did not finish").contains("3 queued task(s) never ran");
    }

    @Test
    void poolsStopInParallelWithinTheShutdownPhaseTimeout() throws Exception {
        // Each pool has a task that works 2 s more once its own pool begins to stop: stopped one
        // after the other, a pool would begin to stop only once the one before had finished;
        // together, every pool begins to stop before any of the tasks ends. (An order, not an
        // elapsed-time bound, which a loaded machine broke.)
        List<String> names = List.of("mail", "crawler", "reports");
        Map<String, CompletableFuture<Boolean>> finished = new ConcurrentHashMap<>();
        List<Long> sawStop = new java.util.concurrent.CopyOnWriteArrayList<>();
        List<Long> ended = new java.util.concurrent.CopyOnWriteArrayList<>();
        long[] closeBegan = new long[1];
        this.runner.withConfiguration(AutoConfigurations.of(LifecycleAutoConfiguration.class))
            .withPropertyValues("pools.instances.reports.capacity=1",
                    "pools.defaults.shutdown.await-termination-period=20s",
                    "spring.lifecycle.timeout-per-shutdown-phase=20s")
            .run((context) -> {
                for (String name : names) {
                    SpringPool pool = context.getBean(name, SpringPool.class);
                    CompletableFuture<Boolean> done = new CompletableFuture<>();
                    finished.put(name, done);
                    CountDownLatch started = new CountDownLatch(1);
                    pool.execute(() -> {
                        started.countDown();
                        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(5)).until(pool::isShutdown);
                        sawStop.add(System.nanoTime());
                        try {
                            Thread.sleep(2000); // the task's last work
                            ended.add(System.nanoTime());
                            done.complete(true);
                        }
                        catch (InterruptedException ex) {
                            done.complete(false);
                        }
                    });
                    assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
                }
                closeBegan[0] = System.nanoTime();
            });
        Duration close = Duration.ofNanos(System.nanoTime() - closeBegan[0]);
        for (String name : names) {
            assertThat(finished.get(name)).as("task of %s", name).isCompletedWithValue(true);
        }
        assertThat(close).isGreaterThanOrEqualTo(Duration.ofSeconds(2));
        assertThat(java.util.Collections.max(sawStop)).as("every pool began to stop before a task ended")
            .isLessThan(java.util.Collections.min(ended));
    }

    @Test
    void poolStillDrainingWhenTheShutdownPhaseEndsIsInterruptedAndReported(CapturedOutput output) throws Exception {
        CompletableFuture<Boolean> interrupted = new CompletableFuture<>();
        long[] closeBegan = new long[1];
        this.runner.withConfiguration(AutoConfigurations.of(LifecycleAutoConfiguration.class))
            .withPropertyValues("pools.instances.mail.shutdown.await-termination-period=60s",
                    "spring.lifecycle.timeout-per-shutdown-phase=300ms")
            .run((context) -> {
                CountDownLatch started = new CountDownLatch(1);
                context.getBean("mail", SpringPool.class).execute(() -> {
                    started.countDown();
                    try {
                        new CountDownLatch(1).await(60, TimeUnit.SECONDS);
                        interrupted.complete(false);
                    }
                    catch (InterruptedException ex) {
                        interrupted.complete(true);
                    }
                });
                assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
                closeBegan[0] = System.nanoTime();
            });
        Duration close = Duration.ofNanos(System.nanoTime() - closeBegan[0]);
        assertThat(interrupted.get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(close).isGreaterThanOrEqualTo(Duration.ofMillis(300)).isLessThan(Duration.ofSeconds(30));
        assertThat(output).contains("Pool 'mail' did not finish within its shutdown phase",
                "spring.lifecycle.timeout-per-shutdown-phase", "interrupted 1 running task(s)");
    }

    @Test
    void poolStillDrainingWhenTheShutdownPhaseEnds_isForcedBeforeTheBeansThatUseItAreDestroyed() throws Exception {
        // Helper-107: forced only in its own destroy(), the pool still ran its task while the
        // beans depending on it (destroyed first) went away.
        assertTaskEndedBeforeItsUserIsDestroyed(false, false, 0, "pools.instances.mail.shutdown.await-termination-period=60s",
                "spring.lifecycle.timeout-per-shutdown-phase=300ms");
    }

    @Test
    void afterAContextStop_aPoolStillDrainingAtClose_isForcedBeforeTheBeansThatUseItAreDestroyed() throws Exception {
        // Helper-110: the last phase marked itself stopped at context.stop(), so at the close
        // that followed it did not run, and the bean using the pool went while its task ran.
        assertTaskEndedBeforeItsUserIsDestroyed(true, false, 0, "pools.instances.mail.shutdown.await-termination-period=60s",
                "spring.lifecycle.timeout-per-shutdown-phase=300ms");
    }

    @Test
    void aPoolForcedByItsOwnAwaitPeriod_isWaitedForBeforeTheBeansThatUseItAreDestroyed() throws Exception {
        // Helper-110: its await period (1 s) ended before its phase (20 s): interrupted, its task
        // still finishing, and the last phase, seeing it forced, did not wait for it.
        assertTaskEndedBeforeItsUserIsDestroyed(false, false, 500, "pools.instances.mail.shutdown.await-termination-period=1s",
                "spring.lifecycle.timeout-per-shutdown-phase=20s");
    }

    @Test
    void whenAnEarlierContextClosedListenerThrows_aPoolStillDraining_isStillForcedBeforeItsUsersAreDestroyed()
            throws Exception {
        // Helper-162: the last phase knew of the close only from its own ContextClosedEvent
        // listener, which Spring does not call once an earlier (ordered) one throws.
        assertTaskEndedBeforeItsUserIsDestroyed(false, true, 0, "pools.instances.mail.shutdown.await-termination-period=60s",
                "spring.lifecycle.timeout-per-shutdown-phase=300ms");
    }

    /** A ContextClosedEvent listener, ordered first, that fails. */
    static final class FailingCloseListener implements org.springframework.context.ApplicationListener<
            org.springframework.context.event.ContextClosedEvent>, org.springframework.core.Ordered {

        @Override
        public void onApplicationEvent(org.springframework.context.event.ContextClosedEvent event) {
            throw new IllegalStateException("a close listener that fails");
        }

        @Override
        public int getOrder() {
            return org.springframework.core.Ordered.HIGHEST_PRECEDENCE;
        }

    }

    /**
     * Runs a task on mail that waits until interrupted and then works {@code workAfterInterruptMillis}
     * more, closes the context (after a context.stop() if asked; with a ContextClosedEvent listener
     * that throws, ordered first, if asked), and asserts that the task had ended when a bean
     * depending on mail was destroyed.
     */
    private void assertTaskEndedBeforeItsUserIsDestroyed(boolean stopFirst, boolean failingCloseListener,
            long workAfterInterruptMillis, String... properties) throws Exception {
        CompletableFuture<Boolean> taskEnded = new CompletableFuture<>();
        AtomicReference<Boolean> endedWhenUserDestroyed = new AtomicReference<>();
        ApplicationContextRunner runner = failingCloseListener
                ? this.runner.withBean(FailingCloseListener.class, FailingCloseListener::new) : this.runner;
        runner.withConfiguration(AutoConfigurations.of(LifecycleAutoConfiguration.class))
            .withPropertyValues(properties)
            .withBean("mailUser", org.springframework.beans.factory.DisposableBean.class,
                    () -> () -> endedWhenUserDestroyed.set(taskEnded.isDone()),
                    (definition) -> definition.setDependsOn("mail"))
            .run((context) -> {
                CountDownLatch started = new CountDownLatch(1);
                context.getBean("mail", SpringPool.class).execute(() -> {
                    started.countDown();
                    try {
                        new CountDownLatch(1).await(60, TimeUnit.SECONDS);
                    }
                    catch (InterruptedException ex) {
                        long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(workAfterInterruptMillis);
                        while (System.nanoTime() - until < 0) { // its last work, interrupted or not
                            LockSupport.parkNanos(1_000_000L);
                        }
                    }
                    taskEnded.complete(true);
                });
                assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
                assertThat(context.getBean("mailUser")).isNotNull();
                if (stopFirst) {
                    context.stop();
                }
            });
        assertThat(endedWhenUserDestroyed.get()).as("the task had ended when the bean using the pool was destroyed")
            .isTrue();
    }

    @ParameterizedTest
    @ValueSource(booleans = { false, true })
    void aStartupThatFailsAfterThePoolsStarted_forcesAPoolStillDraining_beforeTheBeansThatUseItAreDestroyed(
            boolean inARefreshListener) {
        // Helper-111 and 112: a lifecycle bean failing to start (a web server that cannot bind its
        // port), or a ContextRefreshedEvent listener that throws, stops the lifecycle from within
        // refresh() with no ContextClosedEvent: the last phase must act then too.
        CompletableFuture<Boolean> taskEnded = new CompletableFuture<>();
        AtomicReference<Boolean> endedWhenUserDestroyed = new AtomicReference<>();
        this.runner.withConfiguration(AutoConfigurations.of(LifecycleAutoConfiguration.class))
            .withPropertyValues("pools.instances.mail.shutdown.await-termination-period=60s",
                    "spring.lifecycle.timeout-per-shutdown-phase=300ms")
            .withBean("mailUser", org.springframework.beans.factory.DisposableBean.class,
                    () -> () -> endedWhenUserDestroyed.set(taskEnded.isDone()),
                    (definition) -> definition.setDependsOn("mail"))
            .withBean("failsToStart", Object.class,
                    () -> inARefreshListener ? new FailsWhenRefreshed(taskEnded) : new FailsToStart(taskEnded),
                    (definition) -> definition.setDependsOn("mail"))
            .run((context) -> assertThat(context).hasFailed());
        assertThat(endedWhenUserDestroyed.get()).as("the task had ended when the bean using the pool was destroyed")
            .isTrue();
    }

    /** Runs a task on mail that waits until interrupted, then fails its own start, as a web server that cannot bind. */
    static final class FailsToStart implements SmartLifecycle {

        private final CompletableFuture<Boolean> taskEnded;

        @Autowired
        private org.springframework.beans.factory.BeanFactory beanFactory;

        FailsToStart(CompletableFuture<Boolean> taskEnded) {
            this.taskEnded = taskEnded;
        }

        @Override
        public void start() {
            holdATaskThenFail(this.beanFactory, this.taskEnded);
        }

        /** Runs a task on mail that waits until interrupted, then throws. */
        static void holdATaskThenFail(org.springframework.beans.factory.BeanFactory beanFactory,
                CompletableFuture<Boolean> taskEnded) {
            CountDownLatch started = new CountDownLatch(1);
            beanFactory.getBean("mail", SpringPool.class).execute(() -> {
                started.countDown();
                try {
                    new CountDownLatch(1).await(60, TimeUnit.SECONDS);
                }
                catch (InterruptedException ex) {
                    // forced
                }
                taskEnded.complete(true);
            });
            try {
                started.await(10, TimeUnit.SECONDS);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
            throw new IllegalStateException("port 8080 is in use");
        }

        @Override
        public void stop() {
        }

        @Override
        public boolean isRunning() {
            return false;
        }

        @Override
        public int getPhase() {
            return 0; // after the pools (-1024), which are running by then
        }

    }

    /** Holds a task on mail, then fails when the context is refreshed: a warm-up step that throws. */
    static final class FailsWhenRefreshed
            implements org.springframework.context.ApplicationListener<org.springframework.context.event.ContextRefreshedEvent> {

        private final CompletableFuture<Boolean> taskEnded;

        @Autowired
        private org.springframework.beans.factory.BeanFactory beanFactory;

        FailsWhenRefreshed(CompletableFuture<Boolean> taskEnded) {
            this.taskEnded = taskEnded;
        }

        @Override
        public void onApplicationEvent(org.springframework.context.event.ContextRefreshedEvent event) {
            FailsToStart.holdATaskThenFail(this.beanFactory, this.taskEnded);
        }

    }

    @Test
    void contextStopWhosePhaseEnds_letsThePoolDrain_andStartReopensItUnforced() throws Exception {
        // Helper-109: the last phase forced a pool still draining on context.stop() too; only a
        // close may force it.
        this.runner.withConfiguration(AutoConfigurations.of(LifecycleAutoConfiguration.class))
            .withPropertyValues("pools.instances.reports.capacity=1", "pools.instances.reports.queue-capacity=10",
                    "pools.instances.reports.shutdown.await-termination-period=30s",
                    "spring.lifecycle.timeout-per-shutdown-phase=200ms")
            .run((context) -> {
                SpringPool reports = context.getBean("reports", SpringPool.class);
                CountDownLatch release = new CountDownLatch(1);
                AtomicInteger completed = new AtomicInteger();
                for (int i = 0; i < 3; i++) {
                    reports.execute(() -> {
                        try {
                            release.await(20, TimeUnit.SECONDS);
                            completed.incrementAndGet();
                        }
                        catch (InterruptedException ex) {
                            Thread.currentThread().interrupt(); // forced: not completed
                        }
                    });
                }
                context.stop(); // its phase ends after 200 ms, the pool still draining
                release.countDown();
                await().atMost(Duration.ofSeconds(20)).until(() -> completed.get() == 3);
                context.start();
                assertThat(reports.stats().cancelled()).isZero();
                assertThat(reports.submit(() -> "again").get(10, TimeUnit.SECONDS)).isEqualTo("again");
            });
    }

    @Test
    void poolsForcedByTheirOwnAwaitPeriod_areWaitedForTogetherAtClose_notOneAfterAnother() throws Exception {
        // Helper-109: the last phase waited again, a pool after another, for pools whose await
        // period had forced them and whose tasks ignore the interrupt.
        AtomicBoolean release = new AtomicBoolean();
        long[] closeBegan = new long[1];
        try {
            this.runner.withPropertyValues("pools.instances.reports.capacity=1", "pools.instances.audit.capacity=1",
                    "pools.defaults.shutdown.await-termination-period=1s")
                .run((context) -> {
                    for (String name : List.of("mail", "crawler", "reports", "audit")) {
                        CountDownLatch started = new CountDownLatch(1);
                        context.getBean(name, SpringPool.class).execute(() -> {
                            started.countDown();
                            while (!release.get()) { // ignores interrupts
                                Thread.onSpinWait();
                                Thread.interrupted();
                                LockSupport.parkNanos(1_000_000L);
                            }
                        });
                        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
                    }
                    closeBegan[0] = System.nanoTime();
                });
            // Their phase (1 s), then the last phase's wait for them together (1 s more), not one
            // period per pool (4 s more: 5 s at least, timed waits never end early). The bound
            // leaves 2.5 s for a loaded machine.
            assertThat(Duration.ofNanos(System.nanoTime() - closeBegan[0])).as("not one await period per pool")
                .isLessThan(Duration.ofMillis(4500));
        }
        finally {
            release.set(true);
        }
    }

    @Test
    void beansOfAnEarlierShutdownPhaseCanStillSubmitToThePools() {
        this.runner.withUserConfiguration(SubmitOnStopConfiguration.class).run((context) -> {
            SubmitOnStopConfiguration submitter = context.getBean(SubmitOnStopConfiguration.class);
            submitter.pool = context.getBean("mail", SpringPool.class);
        });
        // The submitter stopped (phase 0) before the pools (phase -1024): its task was taken and ran.
        assertThat(SubmitOnStopConfiguration.ran).isCompletedWithValue("mail");
    }

    @Test
    void contextStopReleasesThePoolsAndStartReopensThem() {
        this.runner.run((context) -> {
            SpringPool mail = context.getBean("mail", SpringPool.class);
            assertThat(mail.isRunning()).isTrue();
            context.stop();
            assertThat(mail.isShutdown()).isTrue();
            assertThat(mail.isRunning()).isFalse();
            context.start();
            assertThat(mail.isShutdown()).isFalse();
            assertThat(mail.submit(() -> 42).get(10, TimeUnit.SECONDS)).isEqualTo(42);
        });
    }

    @Test
    void aStopThatTimedOutDoesNotForceThePoolAfterStartReopenedIt() {
        aStopThatTimedOutLeavesThePoolBe_afterItIsReopenedBy((context) -> context.start());
    }

    @Test
    void aRebootWhileALifecycleStopWaits_endsThatStop_andIsNotForced() {
        // Found by a review: Pool.reboot() went around the lifecycle, and the stop's wait, when it
        // ran out, shut the rebooted pool down.
        aStopThatTimedOutLeavesThePoolBe_afterItIsReopenedBy((context) -> {
            SpringPool mail = context.getBean("mail", SpringPool.class);
            mail.reboot();
            assertThat(mail.isRunning()).isTrue();
        });
    }

    /**
     * A running task outlasts the shutdown phase (100 ms) and the pool's stop waits on (up to 1 s);
     * the pool is reopened meanwhile: when the old stop's wait ends, it must leave the pool be.
     */
    private void aStopThatTimedOutLeavesThePoolBe_afterItIsReopenedBy(Consumer<AssertableApplicationContext> reopen) {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch started = new CountDownLatch(1);
        this.runner.withConfiguration(AutoConfigurations.of(LifecycleAutoConfiguration.class))
            .withPropertyValues("spring.lifecycle.timeout-per-shutdown-phase=100ms",
                    "pools.instances.mail.shutdown.await-termination-period=1s")
            .run((context) -> {
                SpringPool mail = context.getBean("mail", SpringPool.class);
                mail.execute(() -> {
                    started.countDown();
                    try {
                        release.await(30, TimeUnit.SECONDS);
                    }
                    catch (InterruptedException ex) {
                        Thread.currentThread().interrupt();
                    }
                });
                assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
                context.stop();
                reopen.accept(context);
                for (Thread t : Thread.getAllStackTraces().keySet()) {
                    if (t.getName().equals("mail-stop")) { // the old stop's wait, which ends within 1 s
                        t.join(10_000);
                        assertThat(t.isAlive()).isFalse();
                    }
                }
                assertThat(mail.isShutdown()).isFalse();
                release.countDown();
                assertThat(mail.submit(() -> 42).get(10, TimeUnit.SECONDS)).isEqualTo(42);
            });
    }

    @Test
    void aPoolRebootedAfterContextStop_isDrainedByClose() {
        // Found by a review: the lifecycle thought it stopped, so close() forced it at once.
        this.runner.withPropertyValues("pools.instances.mail.shutdown.await-termination-period=10s").run((context) -> {
            SpringPool mail = context.getBean("mail", SpringPool.class);
            context.stop();
            mail.reboot();
            CountDownLatch started = new CountDownLatch(1);
            CompletableFuture<String> done = new CompletableFuture<>();
            mail.execute(() -> {
                started.countDown();
                try {
                    Thread.sleep(300);
                    done.complete("ran to the end");
                }
                catch (InterruptedException ex) {
                    done.completeExceptionally(ex);
                }
            });
            assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
            context.close();
            assertThat(done).isCompletedWithValue("ran to the end");
        });
    }

    @Test
    void userBeanOfSameNameMakesThatPoolBackOff() {
        this.runner.withUserConfiguration(UserMailPoolConfiguration.class).run((context) -> {
            assertThat(context.getBean("mail")).isSameAs(context.getBean(UserMailPoolConfiguration.class).pool);
            assertThat(context.getBean("crawler")).isInstanceOf(SpringPool.class);
        });
    }

    @Test
    void beanOfThePoolsNameThatIsNoPoolFailsStartupNamingBoth() {
        // Found by a review: the README's own @Component class Crawler is the bean "crawler", and
        // pools.instances.crawler was then not made, silently.
        this.runner.withBean("crawler", String.class, () -> "not a pool").run((context) -> {
            FailureAnalysis analysis = analyze(context);
            assertThat(analysis.getDescription()).contains("pools.instances.crawler",
                    "a bean named 'crawler' (java.lang.String), which is no pool");
            assertThat(analysis.getAction()).contains("Give the pool or the bean another name");
        });
    }

    @Test
    void beanOfThePoolsNameMadeByAFactoryMethodOfAnotherClassTakesThePoolsPlace() {
        // Found by a review: the definition's class is the factory's, so it read as "no pool".
        this.runner.withInitializer((context) -> {
            org.springframework.beans.factory.support.RootBeanDefinition definition =
                    new org.springframework.beans.factory.support.RootBeanDefinition(OwnPools.class);
            definition.setFactoryMethodName("crawler");
            ((org.springframework.beans.factory.support.BeanDefinitionRegistry) context.getBeanFactory())
                .registerBeanDefinition("crawler", definition);
        }).run((context) -> {
            assertThat(context).hasNotFailed();
            assertThat(context.getBean("crawler")).isInstanceOf(WorkerPool.class).isNotInstanceOf(SpringPool.class);
            context.getBean("crawler", WorkerPool.class).close();
        });
    }

    /** Pools made by a static factory method, as XML or a BeanDefinitionBuilder declares them. */
    static final class OwnPools {

        static WorkerPool crawler() {
            return WorkerPool.builder().name("own").capacity(1).build();
        }

    }

    @Test
    void beanOfThePoolsNameDeclaredAsAnExecutorServiceTakesThePoolsPlace() {
        this.runner.withBean("crawler", ExecutorService.class, () -> WorkerPool.builder().name("own").capacity(1).build())
            .run((context) -> {
                assertThat(context).hasNotFailed();
                assertThat(context.getBean("crawler")).isInstanceOf(WorkerPool.class).isNotInstanceOf(SpringPool.class);
                context.getBean("crawler", WorkerPool.class).close();
            });
    }

    @Test
    void capacityZeroFailsStartupNamingPropertyValueAndFix() {
        this.runner.withPropertyValues("pools.instances.mail.capacity=0").run((context) -> {
            FailureAnalysis analysis = analyze(context);
            assertThat(analysis.getDescription()).contains("pools.instances.mail.capacity", "'0'");
            assertThat(analysis.getAction()).contains("pools.instances.mail.capacity", ">= 1", "-1");
        });
    }

    @Test
    void capacityNotANumberFailsStartupNamingPropertyValueAndFix() {
        this.runner.withPropertyValues("pools.instances.mail.capacity=abc").run((context) -> {
            FailureAnalysis analysis = analyze(context);
            assertThat(analysis.getDescription()).isEqualTo(
                    "Invalid value 'abc' for property 'pools.instances.mail.capacity': expected a whole number");
            assertThat(analysis.getAction()).isEqualTo(
                    "Update pools.instances.mail.capacity: set it to a number >= 1, or -1 for an unbounded pool.");
        });
    }

    @Test
    void capacityBeyondIntFailsStartupSayingItIsOutOfRange() {
        this.runner.withPropertyValues("pools.instances.mail.capacity=99999999999").run((context) -> {
            FailureAnalysis analysis = analyze(context);
            assertThat(analysis.getDescription()).contains("'99999999999'", "pools.instances.mail.capacity",
                    "outside the range of an int");
        });
    }

    @Test
    void durationAndBooleanOfWrongTypeFailStartupNamingTheProperty() {
        this.runner.withPropertyValues("pools.defaults.expiry=soon").run((context) -> {
            FailureAnalysis analysis = analyze(context);
            assertThat(analysis.getDescription()).contains("'soon'", "'pools.defaults.expiry'", "expected a duration");
            assertThat(analysis.getAction()).contains("Update pools.defaults.expiry: set it to a positive duration");
        });
        this.runner.withPropertyValues("pools.instances.mail.nonblocking=maybe").run((context) -> assertThat(
                analyze(context).getDescription()).contains("'maybe'", "'pools.instances.mail.nonblocking'",
                        "expected true or false"));
    }

    @Test
    void valueWhereAGroupOfOptionsBelongsFailsStartup() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(PoolsAutoConfiguration.class))
            .withPropertyValues("pools.instances.mail=5")
            .run((context) -> {
                FailureAnalysis analysis = analyze(context);
                assertThat(analysis.getDescription()).contains("'5'", "pools.instances.mail", "group of options");
                assertThat(analysis.getAction()).contains("pools.instances.mail.capacity");
            });
    }

    @Test
    void adaptiveTrueWhereItsGroupBelongs_failsStartupNamingItsSwitch() {
        // The action named pools.instances.mail.adaptive.capacity, no option at all (review helper-153).
        for (String prefix : new String[] { "pools.instances.mail", "pools.defaults" }) {
            new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(PoolsAutoConfiguration.class))
                .withPropertyValues("pools.instances.mail.capacity=4", prefix + ".adaptive=true")
                .run((context) -> {
                    FailureAnalysis analysis = analyze(context);
                    assertThat(analysis.getDescription()).contains(prefix + ".adaptive", "group of options");
                    assertThat(analysis.getAction()).contains(prefix + ".adaptive.enabled")
                        .doesNotContain("adaptive.capacity");
                });
        }
        // A pool named adaptive (or shutdown) is a pool: its example is an option of a pool.
        for (String pool : new String[] { "adaptive", "shutdown" }) {
            new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(PoolsAutoConfiguration.class))
                .withPropertyValues("pools.instances." + pool + "=5")
                .run((context) -> assertThat(analyze(context).getAction())
                    .contains("pools.instances." + pool + ".capacity"));
        }
    }

    @Test
    void misspeltOptionFailsStartupNamingTheOptionItMostLikelyMeant() {
        // Bound leniently, queue-capcity would leave the pool's queue unbounded without a word.
        this.runner.withPropertyValues("pools.instances.mail.capacity=4", "pools.instances.mail.queue-capcity=10")
            .run((context) -> {
                FailureAnalysis analysis = analyze(context);
                assertThat(analysis.getDescription()).startsWith(
                        "Invalid value '10' for property 'pools.instances.mail.queue-capcity': no pool option has this name");
                assertThat(analysis.getAction()).startsWith("Did you mean pools.instances.mail.queue-capacity?");
            });
    }

    @Test
    void unknownOptionsInDefaultsNestedGroupsAndAtTheTopAreRefusedToo() {
        this.runner.withPropertyValues("pools.defaults.expirey=5s")
            .run((context) -> assertThat(analyze(context).getAction())
                .startsWith("Did you mean pools.defaults.expiry?"));
        this.runner.withPropertyValues("pools.instances.mail.adaptive.algoritm=vegas")
            .run((context) -> assertThat(analyze(context).getAction())
                .startsWith("Did you mean pools.instances.mail.adaptive.algorithm?"));
        this.runner.withPropertyValues("pools.default-pol=mail")
            .run((context) -> assertThat(analyze(context).getAction()).startsWith("Did you mean pools.default-pool?"));
        this.runner.withPropertyValues("pools.instances.mail.max-queue=10", "pools.instances.mail.colour=red")
            .run((context) -> {
                FailureAnalysis analysis = analyze(context);
                assertThat(analysis.getDescription()).contains("'pools.instances.mail.colour'");
                assertThat(analysis.getAction()).startsWith("Remove it.")
                    .contains("Also unknown: [pools.instances.mail.max-queue]");
            });
    }

    @Test
    void theGroupsOtherClassesBindAndAnEmptyInstanceAreNotUnknownOptions() {
        this.runner.withPropertyValues("pools.defaults.capacity=2", "pools.instances.mail.capacity=2", "pools.instances.reports=",
                "pools.events.enabled=false", "pools.web-server.pool=mail")
            .run((context) -> assertThat(context).hasNotFailed());
    }

    @Test
    void misspeltKeyUnderTheGroupsOtherClassesBindFailsStartupToo() {
        // Bound leniently by their own classes, reserved-thread would leave 2 threads reserved without a word.
        this.runner.withPropertyValues("pools.instances.mail.capacity=2", "pools.web-server.reserved-thread=4")
            .run((context) -> {
                FailureAnalysis analysis = analyze(context);
                assertThat(analysis.getDescription()).startsWith(
                        "Invalid value '4' for property 'pools.web-server.reserved-thread': no option of pools.web-server has this name");
                assertThat(analysis.getAction()).startsWith("Did you mean pools.web-server.reserved-threads?")
                    .contains("pools.web-server.retry-after");
            });
        this.runner.withPropertyValues("pools.events.min-intervall=5s")
            .run((context) -> assertThat(analyze(context).getAction())
                .startsWith("Did you mean pools.events.min-interval?"));
        this.runner.withPropertyValues("pools.events.colour=red")
            .run((context) -> assertThat(analyze(context).getAction()).startsWith("Remove it. The options of pools.events are [")
                .contains("pools.events.check-interval", "pools.events.enabled"));
    }

    @Test
    void poolNameWithDotsIsNamedInBracketsInTheReport() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(PoolsAutoConfiguration.class))
            .withPropertyValues("pools.instances.[mail.eu].capacity=0")
            .run((context) -> assertThat(analyze(context).getDescription())
                .contains("'pools.instances.[mail.eu].capacity'"));
    }

    @Test
    void emptyOptionFailsStartupInsteadOfFallingBackToItsDefault() {
        this.runner.withPropertyValues("pools.instances.mail.expiry=").run((context) -> {
            FailureAnalysis analysis = analyze(context);
            assertThat(analysis.getDescription())
                .isEqualTo("Invalid value '' for property 'pools.instances.mail.expiry': the value is empty");
            assertThat(analysis.getAction()).contains("Update pools.instances.mail.expiry: set it to a positive duration",
                    "or remove it");
        });
    }

    @Test
    void instanceWhoseOnlyOptionIsEmptyFailsStartupInsteadOfVanishing() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(PoolsAutoConfiguration.class))
            .withPropertyValues("pools.defaults.capacity=3", "pools.instances.mail.queue-capacity=")
            .run((context) -> assertThat(analyze(context).getDescription())
                .contains("'pools.instances.mail.queue-capacity'", "the value is empty"));
    }

    @Test
    void emptyDefaultPoolFailsStartup() {
        this.runner.withPropertyValues("pools.default-pool= ")
            .run((context) -> assertThat(analyze(context).getDescription())
                .isEqualTo("Invalid value '' for property 'pools.default-pool': the value is empty"));
    }

    @Test
    void poolDeclaredWithoutOptionsTakesThemFromDefaults() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(PoolsAutoConfiguration.class))
            .withPropertyValues("pools.defaults.capacity=3", "pools.instances.mail=")
            .run((context) -> assertThat(context.getBean("mail", SpringPool.class).capacity()).isEqualTo(3));
    }

    @Test
    void badDefaultFailsStartupEvenWhenEveryPoolOverridesIt() {
        this.runner.withPropertyValues("pools.defaults.capacity=0").run((context) -> {
            FailureAnalysis analysis = analyze(context);
            assertThat(analysis.getDescription()).startsWith("Invalid value '0' for property 'pools.defaults.capacity'");
            assertThat(analysis.getAction()).startsWith("Update pools.defaults.capacity:");
        });
    }

    @Test
    void badDefaultFailsStartupWhenThereIsNoPool() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(PoolsAutoConfiguration.class))
            .withPropertyValues("pools.defaults.max-blocking-tasks=-1")
            .run((context) -> assertThat(analyze(context).getDescription())
                .contains("'-1'", "'pools.defaults.max-blocking-tasks'"));
    }

    @Test
    void preAllocWithUnboundedCapacityBothInheritedNamesTheDefaults() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(PoolsAutoConfiguration.class))
            .withPropertyValues("pools.defaults.capacity=-1", "pools.defaults.pre-alloc=true",
                    "pools.instances.mail.expiry=5s")
            .run((context) -> assertThat(analyze(context).getAction()).isEqualTo(
                    "Set pools.defaults.capacity to a number >= 1, or set pools.defaults.pre-alloc to false."));
    }

    @Test
    void missingCapacityFailsStartup() {
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(PoolsAutoConfiguration.class))
            .withPropertyValues("pools.instances.mail.queue-capacity=3")
            .run((context) -> {
                FailureAnalysis analysis = analyze(context);
                assertThat(analysis.getDescription())
                    .isEqualTo("Missing value for property 'pools.instances.mail.capacity': capacity is required");
                assertThat(analysis.getAction()).contains("pools.defaults.capacity");
            });
    }

    @Test
    void poolNamedAfterBootsTaskExecutorFailsStartupNamingTheFix() {
        this.runner.withPropertyValues("pools.instances.applicationTaskExecutor.capacity=2").run((context) -> {
            FailureAnalysis analysis = analyze(context);
            assertThat(analysis.getDescription()).startsWith("Invalid value 'applicationTaskExecutor' for property "
                    + "'pools.instances.[applicationTaskExecutor]': it is the bean name of Spring Boot's own executor");
            assertThat(analysis.getAction()).contains("Give the pool another name", "pools.default-pool");
        });
    }

    @Test
    void poolNamedAfterTheTaskSchedulerFailsStartupNamingTheFix() {
        // Without the check, Boot's scheduler backed off silently and @Scheduled methods ran on a
        // single fallback thread.
        this.runner.withConfiguration(AutoConfigurations.of(TaskSchedulingAutoConfiguration.class))
            .withUserConfiguration(SchedulingConfiguration.class)
            .withPropertyValues("pools.instances.taskScheduler.capacity=2")
            .run((context) -> {
                FailureAnalysis analysis = analyze(context);
                assertThat(analysis.getDescription()).startsWith("Invalid value 'taskScheduler' for property "
                        + "'pools.instances.[taskScheduler]': it is the bean name of Spring's task scheduler");
                assertThat(analysis.getAction()).contains("Give the pool another name");
            });
    }

    @Test
    void poolNamedAfterTheBootstrapExecutorFailsStartupNamingTheFix() {
        this.runner.withPropertyValues("pools.instances.bootstrapExecutor.capacity=2").run((context) -> {
            FailureAnalysis analysis = analyze(context);
            assertThat(analysis.getDescription()).startsWith("Invalid value 'bootstrapExecutor' for property "
                    + "'pools.instances.[bootstrapExecutor]': it is the bean name of Spring's bootstrap executor");
            assertThat(analysis.getAction()).contains("Give the pool another name");
        });
    }

    @Test
    void poolNameThatThePathsCannotCarryFailsStartupNamingTheFix() {
        // Helper-114: such a pool was listed by /actuator/pools, but its own paths answered 400 or 404.
        for (String name : new String[] { "orders/eu", "orders\\eu", "orders%eu", "orders;eu" }) {
            this.runner.withPropertyValues("pools.instances[" + name + "].capacity=2").run((context) -> {
                FailureAnalysis analysis = analyze(context);
                assertThat(analysis.getDescription()).as(name).startsWith("Invalid value '" + name
                        + "' for property 'pools.instances.[" + name + "]': its '" + name.charAt(6) + "' cannot be sent");
                assertThat(analysis.getAction()).contains("Give the pool a name without");
            });
        }
        this.runner.withPropertyValues("pools.instances[orders.eu-1_x].capacity=2")
            .run((context) -> assertThat(context).hasNotFailed().hasBean("orders.eu-1_x"));
    }

    @Test
    void poolNamedTaskExecutorLeavesPlainAsyncOnBootsExecutor() {
        this.runner.withUserConfiguration(AsyncConfiguration.class)
            .withPropertyValues("pools.instances.taskExecutor.capacity=2")
            .run((context) -> {
                assertThat(context).hasNotFailed().hasBean("taskExecutor").hasBean("applicationTaskExecutor");
                assertThat(context.getBean(AsyncService.class).plain().get(10, TimeUnit.SECONDS)).startsWith("task-");
            });
    }

    @Test
    void negativeExpiryInDefaultsFailsStartupNamingTheDefaultsProperty() {
        this.runner.withPropertyValues("pools.defaults.expiry=-1s").run((context) -> {
            FailureAnalysis analysis = analyze(context);
            assertThat(analysis.getDescription()).contains("pools.defaults.expiry", "'-1s'", "but was -1s")
                .doesNotContain("PT-1S");
            assertThat(analysis.getAction()).contains("positive duration");
        });
    }

    @Test
    void negativeAwaitTerminationPeriodFailsStartup() {
        this.runner.withPropertyValues("pools.instances.mail.shutdown.await-termination-period=-5s")
            .run((context) -> assertThat(analyze(context).getDescription())
                .contains("pools.instances.mail.shutdown.await-termination-period", "'-5s'"));
    }

    @Test
    void preAllocWithUnboundedCapacityFailsStartup() {
        this.runner.withPropertyValues("pools.instances.mail.capacity=-1", "pools.instances.mail.pre-alloc=true")
            .run((context) -> {
                FailureAnalysis analysis = analyze(context);
                assertThat(analysis.getDescription()).contains("pools.instances.mail.pre-alloc", "bounded capacity");
                assertThat(analysis.getAction()).contains("pools.instances.mail.capacity");
            });
    }

    @Test
    void preAllocWithCapacityTooLargeForTheHeapFailsStartupInsteadOfOutOfMemory() {
        this.runner.withPropertyValues("pools.instances.mail.capacity=2147483647", "pools.instances.mail.pre-alloc=true")
            .run((context) -> {
                FailureAnalysis analysis = analyze(context);
                assertThat(analysis.getDescription()).contains("'2147483647'", "'pools.instances.mail.capacity'",
                        "pre-alloc reserves");
                assertThat(analysis.getAction()).contains("Lower pools.instances.mail.capacity",
                        "set pools.instances.mail.pre-alloc to false");
            });
    }

    @Test
    @EnabledForJreRange(max = JRE.JAVA_20)
    void virtualThreadsOnJava17FailsStartup() {
        this.runner.withPropertyValues("pools.instances.mail.virtual-threads=true").run((context) -> {
            FailureAnalysis analysis = analyze(context);
            assertThat(analysis.getDescription()).contains("pools.instances.mail.virtual-threads", "Java 21");
            assertThat(analysis.getAction()).contains("Java 21");
        });
    }

    @Test
    @EnabledForJreRange(min = JRE.JAVA_21)
    void virtualThreadsOnJava21RunTasksOnVirtualThreads() {
        this.runner.withPropertyValues("pools.instances.mail.virtual-threads=true").run((context) -> {
            SpringPool mail = context.getBean("mail", SpringPool.class);
            String kind = mail.submit(() -> Thread.currentThread().toString()).get(10, TimeUnit.SECONDS);
            assertThat(kind).contains("VirtualThread");
        });
    }

    @Test
    @EnabledForJreRange(min = JRE.JAVA_21)
    void springThreadsVirtualEnabledMakesVirtualWorkersTheDefaultOfPoolsThatDoNotSetIt() {
        this.runner
            .withPropertyValues("spring.threads.virtual.enabled=true", "pools.instances.crawler.virtual-threads=false")
            .run((context) -> {
                assertThat(threadOf(context, "mail")).contains("VirtualThread");
                assertThat(context.getBean("mail", SpringPool.class).config().virtualThreads()).isTrue();
                assertThat(threadOf(context, "crawler")).doesNotContain("VirtualThread");
            });
    }

    @Test
    @EnabledForJreRange(min = JRE.JAVA_21)
    void virtualThreadsInPoolsDefaultsWinOverSpringThreadsVirtualEnabled() {
        this.runner.withPropertyValues("spring.threads.virtual.enabled=true", "pools.defaults.virtual-threads=false")
            .run((context) -> {
                assertThat(threadOf(context, "mail")).doesNotContain("VirtualThread");
                assertThat(threadOf(context, "crawler")).doesNotContain("VirtualThread");
            });
    }

    @Test
    @EnabledForJreRange(min = JRE.JAVA_21)
    void customizersThreadFactoryWinsOverSpringThreadsVirtualEnabled() {
        this.runner.withUserConfiguration(CustomizerConfiguration.class)
            .withPropertyValues("spring.threads.virtual.enabled=true")
            .run((context) -> {
                assertThat(threadOf(context, "mail")).contains("second-mail").doesNotContain("VirtualThread");
                assertThat(context.getBean("mail", SpringPool.class).config().virtualThreads()).isFalse();
            });
    }

    @Test
    @EnabledForJreRange(max = JRE.JAVA_20)
    void springThreadsVirtualEnabledOnJava17KeepsPlatformThreadsAndSaysSoOnce(CapturedOutput output) {
        this.runner.withPropertyValues("spring.threads.virtual.enabled=true").run((context) -> {
            assertThat(context).hasNotFailed();
            assertThat(threadOf(context, "mail")).doesNotContain("VirtualThread");
            assertThat(threadOf(context, "crawler")).doesNotContain("VirtualThread");
            assertThat(output.getOut().split("virtual threads need Java 21 or later", -1)).hasSize(2);
            assertThat(output).contains("spring.threads.virtual.enabled is true",
                    "every other pool that does not set virtual-threads keep platform threads");
        });
    }

    @Test
    void springThreadsVirtualEnabledFalseSaysNothing(CapturedOutput output) {
        this.runner.run((context) -> {
            assertThat(threadOf(context, "mail")).doesNotContain("VirtualThread");
            assertThat(output).doesNotContain("virtual threads need Java 21");
        });
    }

    private static String threadOf(AssertableApplicationContext context, String pool) throws Exception {
        return context.getBean(pool, SpringPool.class)
            .submit(() -> Thread.currentThread().toString())
            .get(10, TimeUnit.SECONDS);
    }

    @Test
    void aBadValueOfTheEventsOrWebServerGroups_namesThePropertyAndWhatItTakes() {
        // Review helper-75: these groups are bound where they are read, and a value that did not
        // convert got Boot's "Update your application's configuration".
        this.runner.withPropertyValues("pools.events.check-interval=1 second").run((context) -> {
            var analysis = analyze(context);
            assertThat(analysis.getDescription()).contains("pools.events.check-interval").contains("1 second")
                .contains("expected a duration such as 500ms");
            assertThat(analysis.getAction()).startsWith("Update pools.events.check-interval to such a value");
        });
        this.runner.withPropertyValues("pools.web-server.pool=mail", "pools.web-server.reserved-threads=two").run((context) -> {
            var analysis = analyze(context);
            assertThat(analysis.getDescription()).contains("pools.web-server.reserved-threads")
                .contains("expected a whole number");
        });
    }

    @Test
    void valuesOfTheEventsOrWebServerGroups_whereTheGroupIsNotRead_orEmpty_stopNothing() {
        // Review helper-76: the check above must not fail an application that does not read the
        // group (events off, no web server pool), nor an empty value (Boot's binding keeps the
        // default for it; ${POOL_EVENTS:} is a common way to write one).
        for (String[] properties : new String[][] {
                { "pools.events.enabled=" },
                { "pools.events.enabled=false", "pools.events.check-interval=1 second" },
                { "pools.web-server.reserved-threads=two" },
                { "pools.events.check-interval=" },
                { "pools.events.check-interval=${EVENTS_CHECK:}", "pools.web-server.retry-after=${RETRY_AFTER:}" },
                { "pools.web-server.retry-after=soon" },
                // Review helper-79: false turns Boot's condition off; an empty group key (YAML's
                // "events:" with every option commented out) is no group to check.
                { "pools.web-server.pool=false", "pools.web-server.retry-after=soon" },
                // Review helper-82: nor does the adaptive rule of the web server's pool, which read
                // reserved-threads for a pool named 'false' (Spring's bare conversion error).
                { "pools.web-server.pool=false", "pools.web-server.reserved-threads=two" },
                { "pools.events=", "pools.events.enabled=false" } }) {
            this.runner.withConfiguration(AutoConfigurations.of(
                        io.github.workerpool.spring.boot.autoconfigure.event.PoolEventsAutoConfiguration.class))
                .withPropertyValues(properties)
                .run((context) -> assertThat(context).as(String.join(", ", properties)).hasNotFailed());
        }
        // Review helper-78: but an empty value hides no misspelt key of its group, and a bad
        // pools.events.enabled (which the condition reads) is refused, not taken for "off".
        this.runner.withPropertyValues("pools.events.check-interval=", "pools.events.min-intervall=30s")
            .run((context) -> assertThat(analyze(context).getAction()).contains("Did you mean pools.events.min-interval?"));
        // pools.web-server.pool set, even empty, turns the web server pool's configuration on (Boot's
        // @ConditionalOnProperty), which reads the group.
        this.runner.withPropertyValues("pools.web-server.pool=", "pools.web-server.retry-after=soon")
            .run((context) -> assertThat(analyze(context).getDescription()).contains("pools.web-server.retry-after"));
        this.runner.withPropertyValues("pools.events=5")
            .run((context) -> assertThat(analyze(context).getDescription()).contains("pools.events is a group of options, not a value"));
        this.runner.withPropertyValues("pools.events.enabled=ture")
            .run((context) -> assertThat(analyze(context).getDescription()).contains("pools.events.enabled")
                .contains("expected true or false"));
    }

    @Test
    void aBadValueIsReportedByThePoolsAnalyzer_beforeBootsBindAnalyzers_whateverTheClasspathOrder() {
        // Review helper-75: the exception carries Boot's BindException as its cause, and Boot's
        // analyzers (unordered, like this one was) came first when their jar did.
        this.runner.withPropertyValues("pools.instances.mail.capacity=abc").run((context) -> {
            assertThat(context).hasFailed();
            List<org.springframework.boot.diagnostics.FailureAnalyzer> analyzers = new java.util.ArrayList<>();
            for (String boots : List.of("org.springframework.boot.diagnostics.analyzer.BindFailureAnalyzer",
                    "org.springframework.boot.diagnostics.analyzer.UnboundConfigurationPropertyFailureAnalyzer")) {
                analyzers.add((org.springframework.boot.diagnostics.FailureAnalyzer) org.springframework.beans.BeanUtils
                    .instantiateClass(org.springframework.util.ClassUtils.forName(boots, null)));
            }
            analyzers.add(new PoolConfigurationFailureAnalyzer());
            org.springframework.core.annotation.AnnotationAwareOrderComparator.sort(analyzers);
            FailureAnalysis first = analyzers.stream()
                .map((analyzer) -> analyzer.analyze(context.getStartupFailure()))
                .filter(java.util.Objects::nonNull)
                .findFirst()
                .orElseThrow();
            assertThat(first.getAction()).startsWith("Update pools.instances.mail.capacity");
        });
    }

    static FailureAnalysis analyze(AssertableApplicationContext context) {
        assertThat(context).hasFailed();
        FailureAnalysis analysis = new PoolConfigurationFailureAnalyzer().analyze(context.getStartupFailure());
        assertThat(analysis).as("failure analysis of %s", context.getStartupFailure()).isNotNull();
        return analysis;
    }

    @Configuration(proxyBeanMethods = false)
    @EnableScheduling
    static class SchedulingConfiguration {

        @Scheduled(fixedRate = 60_000)
        void tick() {
        }

    }

    @Configuration(proxyBeanMethods = false)
    @EnableAsync
    static class AsyncConfiguration {

        @Bean
        AsyncService asyncService() {
            return new AsyncService();
        }

    }

    static class AsyncService {

        @Async("mail")
        CompletableFuture<String> onMail() {
            return CompletableFuture.completedFuture(Thread.currentThread().getName());
        }

        @Async("crawler")
        CompletableFuture<String> onCrawler() {
            return CompletableFuture.completedFuture(Thread.currentThread().getName());
        }

        @Async
        CompletableFuture<String> plain() {
            return CompletableFuture.completedFuture(Thread.currentThread().getName());
        }

        @Async("mail")
        void failOnMail() {
            throw new IllegalStateException("boom from mail");
        }

        @Async("mail")
        CompletableFuture<String> failOnMailWithFuture() {
            throw new IllegalStateException("backend down");
        }

    }

    @Configuration(proxyBeanMethods = false)
    static class UserAsyncConfigurerConfiguration {

        @Bean
        AsyncConfigurer userAsyncConfigurer() {
            return new AsyncConfigurer() {
                @Override
                public Executor getAsyncExecutor() {
                    return (task) -> new Thread(task, "user-thread").start();
                }
            };
        }

    }

    @Configuration(proxyBeanMethods = false)
    static class QualifiedInjectionConfiguration {

        @Bean
        QualifiedClient qualifiedClient(@Qualifier("mail") Pool pool, @Qualifier("mail") TaskExecutor executor,
                @Qualifier("crawler") AsyncTaskExecutor async) {
            return new QualifiedClient(pool, executor, async);
        }

    }

    record QualifiedClient(Pool pool, TaskExecutor executor, AsyncTaskExecutor async) {
    }

    @Configuration(proxyBeanMethods = false)
    static class TaskDecoratorConfiguration {

        static final ThreadLocal<String> VALUE = new ThreadLocal<>();

        @Bean
        @org.springframework.core.annotation.Order(1)
        TaskDecorator first() {
            return marking("first");
        }

        @Bean
        @org.springframework.core.annotation.Order(2)
        TaskDecorator second() {
            return marking("second");
        }

        private static TaskDecorator marking(String mark) {
            return (task) -> () -> {
                String before = VALUE.get();
                VALUE.set((before != null) ? before + "+" + mark : mark);
                try {
                    task.run();
                }
                finally {
                    VALUE.set(before);
                }
            };
        }

    }

    @Configuration(proxyBeanMethods = false)
    static class CustomizerConfiguration {

        final java.util.List<String> calls = new java.util.concurrent.CopyOnWriteArrayList<>();

        @Bean
        @org.springframework.core.annotation.Order(2)
        WorkerPoolBuilderCustomizer second() {
            return (name, builder) -> {
                this.calls.add("second:" + name);
                builder.threadFactory((task) -> new Thread(task, "second-" + name));
            };
        }

        @Bean
        @org.springframework.core.annotation.Order(1)
        WorkerPoolBuilderCustomizer first() {
            return (name, builder) -> {
                this.calls.add("first:" + name);
                builder.threadFactory((task) -> new Thread(task, "first-" + name));
            };
        }

    }

    /** A lifecycle bean of phase 0, as plain Lifecycle beans are, that hands the pool one more task when it stops. */
    @Configuration(proxyBeanMethods = false)
    static class SubmitOnStopConfiguration implements org.springframework.context.SmartLifecycle {

        static final CompletableFuture<String> ran = new CompletableFuture<>();

        volatile SpringPool pool;

        private volatile boolean running;

        @Override
        public void start() {
            this.running = true;
        }

        @Override
        public void stop() {
            this.running = false;
            this.pool.execute(() -> ran.complete(PoolTaskDecorator.currentPool()));
        }

        @Override
        public boolean isRunning() {
            return this.running;
        }

        @Override
        public int getPhase() {
            return 0;
        }

    }

    @Configuration(proxyBeanMethods = false)
    static class UserMailPoolConfiguration {

        final WorkerPool pool = WorkerPool.builder().name("user-mail").capacity(1).build();

        @Bean(destroyMethod = "close")
        WorkerPool mail() {
            return this.pool;
        }

    }

}
