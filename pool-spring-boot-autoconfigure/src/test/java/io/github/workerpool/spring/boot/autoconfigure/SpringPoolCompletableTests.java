package io.github.workerpool.spring.boot.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.github.workerpool.PoolClosedException;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.task.TaskRejectedException;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * {@link SpringPool#submitCompletable}: what {@code @Async} methods returning a
 * {@code CompletableFuture} go through. Their failures are the pool's to count, cancelling one
 * cancels its task, and a forced stop cancels the ones whose task never started.
 */
class SpringPoolCompletableTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(PoolsAutoConfiguration.class, TaskExecutionAutoConfiguration.class))
        .withUserConfiguration(PoolsAutoConfigurationTests.AsyncConfiguration.class)
        .withPropertyValues("pools.instances.mail.capacity=1", "pools.instances.mail.queue-capacity=5");

    @Test
    void asyncMethodFailureCompletesTheFutureAndCountsAsThePoolsFailure() {
        this.runner.run((context) -> {
            SpringPool mail = context.getBean("mail", SpringPool.class);
            PoolsAutoConfigurationTests.AsyncService service = context.getBean(PoolsAutoConfigurationTests.AsyncService.class);
            assertThat(service.onMail().get(10, TimeUnit.SECONDS)).startsWith("mail-");
            CompletableFuture<String> failed = service.failOnMailWithFuture();
            assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> failed.get(10, TimeUnit.SECONDS))
                .withCauseInstanceOf(IllegalStateException.class)
                .withMessageContaining("backend down");
            // Handlers see what Spring's default gives them: a CompletionException around it.
            assertThat(failed.handle((value, ex) -> ex).get(10, TimeUnit.SECONDS))
                .isInstanceOf(CompletionException.class)
                .hasCauseInstanceOf(IllegalStateException.class);
            // Counted once the worker is done with it, which may be just after the future completed.
            await().atMost(Duration.ofSeconds(10)).until(() -> mail.stats().failed() == 1);
            assertThat(mail.stats().completed()).isEqualTo(1);
        });
    }

    @Test
    void aFailureWhoseMessageCannotBeRead_stillCompletesTheFuture() {
        // Found by a review: wrapping it in a CompletionException read its message, which threw, and
        // the future was never completed (its caller waited for ever).
        this.runner.run((context) -> {
            SpringPool mail = context.getBean("mail", SpringPool.class);
            IllegalStateException bad = new IllegalStateException() {
                @Override
                public String getMessage() {
                    throw new UnsupportedOperationException("no message");
                }
            };
            CompletableFuture<Object> failed = mail.submitCompletable((java.util.concurrent.Callable<Object>) () -> {
                throw bad;
            });
            Throwable outcome = failed.handle((value, ex) -> ex).get(10, TimeUnit.SECONDS);
            assertThat(outcome).isInstanceOf(CompletionException.class);
            assertThat(outcome.getCause()).isSameAs(bad);
            assertThat(outcome.getMessage()).contains("whose message could not be read");
        });
    }

    @Test
    void anAsyncFailureToldInsideATaskThatReturnsAValue_doesNotFailIt() {
        // Found by a review: a void @Async method run inline (a SyncTaskExecutor) inside a task
        // that returns a value made that task fail with the inner method's exception.
        this.runner.run((context) -> {
            SpringPool mail = context.getBean("mail", SpringPool.class);
            String value = mail.submit(() -> {
                SpringPool.asyncSwallowed(new IllegalStateException("inner"));
                return "outer's value";
            }).get(10, TimeUnit.SECONDS);
            assertThat(value).isEqualTo("outer's value");
            await().atMost(Duration.ofSeconds(10)).until(() -> mail.stats().completed() == 1);
            assertThat(mail.stats().failed()).isZero();
        });
    }

    @Test
    void cancellingBeforeTheTaskStartsSkipsIt_andCountsItCancelled() {
        this.runner.run((context) -> {
            SpringPool mail = context.getBean("mail", SpringPool.class);
            CountDownLatch release = new CountDownLatch(1);
            occupyTheWorker(mail, release);
            AtomicBoolean ran = new AtomicBoolean();
            CompletableFuture<Void> queued = mail.submitCompletable(() -> ran.set(true));
            assertThat(queued.cancel(false)).isTrue();
            release.countDown();
            await().atMost(Duration.ofSeconds(10)).until(() -> mail.stats().cancelled() == 1);
            await().atMost(Duration.ofSeconds(10)).until(() -> mail.stats().queued() == 0 && mail.running() == 0);
            assertThat(ran).as("the cancelled task never ran").isFalse();
        });
    }

    @Test
    void forcedStopCancelsTheFuturesWhoseTaskNeverStarted() throws Exception {
        CompletableFuture<?>[] queued = new CompletableFuture<?>[2];
        AtomicBoolean ran = new AtomicBoolean();
        this.runner.withPropertyValues("pools.instances.mail.shutdown.await-termination-period=100ms")
            .run((context) -> {
                SpringPool mail = context.getBean("mail", SpringPool.class);
                occupyTheWorker(mail, new CountDownLatch(1)); // until the forced stop interrupts it
                queued[0] = mail.submitCompletable(() -> ran.set(true));
                queued[1] = mail.submitCompletable(() -> "never");
            });
        // The context closed: the stop waited 100 ms for the running task, then forced the pool.
        for (CompletableFuture<?> future : List.of(queued)) {
            assertThat(future).isCancelled();
        }
        assertThat(ran).isFalse();
    }

    @Test
    void shutdownNowCancelsTheFuturesWhoseTaskNeverStarted() {
        this.runner.run((context) -> {
            SpringPool mail = context.getBean("mail", SpringPool.class);
            occupyTheWorker(mail, new CountDownLatch(1)); // until shutdownNow interrupts it
            AtomicBoolean ran = new AtomicBoolean();
            CompletableFuture<Void> queued = mail.submitCompletable(() -> ran.set(true));
            List<Runnable> neverRan = mail.shutdownNow();
            assertThat(neverRan).hasSize(1);
            assertThat(queued).isCancelled();
            neverRan.get(0).run(); // a returned task run after all does not run the cancelled one
            assertThat(ran).isFalse();
        });
    }

    @Test
    void releaseNowCancelsTheFuturesWhoseTaskNeverStarted() {
        this.runner.run((context) -> {
            SpringPool mail = context.getBean("mail", SpringPool.class);
            occupyTheWorker(mail, new CountDownLatch(1)); // until releaseNow interrupts it
            CompletableFuture<String> queued = mail.submitCompletable(() -> "never");
            assertThat(mail.releaseNow()).hasSize(1);
            assertThat(queued).isCancelled();
        });
    }

    @Test
    void aCloseInterruptedWhileItWaits_cancelsTheFuturesWhoseTaskItDropped() throws Exception {
        this.runner.run((context) -> {
            SpringPool mail = context.getBean("mail", SpringPool.class);
            occupyTheWorker(mail, new CountDownLatch(1)); // until the forced close interrupts it
            CompletableFuture<String> queued = mail.submitCompletable(() -> "never");
            AtomicBoolean interruptKept = new AtomicBoolean();
            Thread closer = new Thread(() -> {
                mail.close();
                interruptKept.set(Thread.currentThread().isInterrupted());
            }, "closer");
            closer.start();
            await().atMost(Duration.ofSeconds(10)).until(mail::isShutdown);
            closer.interrupt();
            closer.join(TimeUnit.SECONDS.toMillis(10));
            assertThat(closer.isAlive()).isFalse();
            assertThat(interruptKept).isTrue();
            assertThat(queued).isCancelled();
        });
    }

    @Test
    void aCloseThatReturnsBecauseAnotherThreadReopenedThePool_cancelsNoFutureWhoseTaskWillStillRun() throws Exception {
        // Review helper-162: close() returns once another thread reboots the pool, and then
        // cancelled every future whose task had not started, though those tasks were still queued.
        this.runner.run((context) -> {
            SpringPool mail = context.getBean("mail", SpringPool.class);
            CountDownLatch release = new CountDownLatch(1);
            occupyTheWorker(mail, release);
            try {
                CompletableFuture<String> queued = mail.submitCompletable(() -> "ran");
                Thread closer = new Thread(mail::close, "closer");
                closer.start();
                await().atMost(Duration.ofSeconds(10)).until(mail::isShutdown);
                mail.reboot();
                closer.join(TimeUnit.SECONDS.toMillis(10));
                assertThat(closer.isAlive()).isFalse();
                assertThat(queued).isNotCancelled();
                release.countDown();
                assertThat(queued.get(10, TimeUnit.SECONDS)).isEqualTo("ran");
            }
            finally {
                release.countDown();
            }
        });
    }

    @Test
    void aClosedPoolRefusesAtOnce_withSpringsTaskRejectedException() {
        // Found by a review: Spring's executors refuse with a TaskRejectedException, which code
        // written for them catches (Spring Batch's job launcher, for one); the pool's is its cause.
        this.runner.run((context) -> {
            SpringPool mail = context.getBean("mail", SpringPool.class);
            mail.shutdown();
            List<ThrowingCallable> calls = List.of(() -> mail.submitCompletable(() -> "late"),
                    () -> mail.submitCompletable(() -> { }), () -> mail.execute(() -> { }),
                    () -> mail.submit(() -> { }), () -> mail.submit(() -> { }, "x"), () -> mail.submit(() -> "x"),
                    // helper-107: the invoke methods threw the pool's own exception
                    () -> mail.invokeAll(List.of(() -> "x")), () -> mail.invokeAll(List.of(() -> "x"), 1, TimeUnit.SECONDS),
                    () -> mail.invokeAny(List.of(() -> "x")), () -> mail.invokeAny(List.of(() -> "x"), 1, TimeUnit.SECONDS));
            for (ThrowingCallable call : calls) {
                assertThatExceptionOfType(TaskRejectedException.class).isThrownBy(call)
                    .withCauseInstanceOf(PoolClosedException.class)
                    .withMessageContaining("mail");
            }
        });
    }

    @Test
    void aPoolTheContextStoppedSaysSo_notToCallReboot() {
        // helper-107: the refusal said "call reboot() to reopen it", as for a pool the application
        // shut down itself; reopening a pool the context is stopping is not the fix.
        this.runner.run((context) -> {
            SpringPool mail = context.getBean("mail", SpringPool.class);
            context.stop();
            assertThatExceptionOfType(TaskRejectedException.class).isThrownBy(() -> mail.execute(() -> { }))
                .withCauseInstanceOf(PoolClosedException.class)
                .withMessage("pool 'mail' is stopped and accepts no tasks: the application context stopped it"
                        + " (context stop or close); it reopens when the context starts again");
            context.start();
            assertThat(mail.submit(() -> "again").get(10, TimeUnit.SECONDS)).isEqualTo("again");
            mail.shutdown(); // the application's own shutdown: the pool's own advice
            assertThatExceptionOfType(TaskRejectedException.class).isThrownBy(() -> mail.execute(() -> { }))
                .withMessageContaining("call reboot() to reopen it");
        });
    }

    /** Runs a task on the pool's one worker that holds it until the latch opens (or an interrupt); returns once it runs. */
    private static void occupyTheWorker(SpringPool pool, CountDownLatch release) throws InterruptedException {
        CountDownLatch started = new CountDownLatch(1);
        pool.execute(() -> {
            started.countDown();
            awaitQuietly(release);
        });
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

}
