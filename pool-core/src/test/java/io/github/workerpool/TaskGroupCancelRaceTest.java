package io.github.workerpool;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Regression: TaskGroup.cancel() used to cancel task by task, so interrupting the running task
 * first freed its worker to run queued tasks that were not cancelled yet (found by the Spring
 * sweeps' full build, where it failed TaskGroupTest one run in a few hundred).
 */
class TaskGroupCancelRaceTest {

    @Test
    void cancel_neverLetsAQueuedTaskRun_evenWhenTheInterruptedWorkerIsQuick() throws Exception {
        for (int iteration = 0; iteration < 2000; iteration++) {
            WorkerPool pool = WorkerPool.builder().name("cancel-race-" + iteration).capacity(1).queueCapacity(10).build();
            TaskGroup<Integer> group = TaskGroup.of(pool);
            CountDownLatch running = new CountDownLatch(1);
            AtomicInteger ran = new AtomicInteger();
            group.submit(() -> {
                running.countDown();
                Thread.sleep(TimeUnit.SECONDS.toMillis(30)); // until cancel interrupts it
                return 0;
            });
            for (int i = 0; i < 5; i++) {
                group.submit(ran::incrementAndGet);
            }
            assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(group.cancel()).as("iteration %d: %s", iteration, group.counts()).isEqualTo(6);
            pool.shutdown();
            assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
            assertThat(ran.get()).as("iteration %d", iteration).isZero();
            // All six: the running one's future holds a cancellation, whatever it threw on the interrupt.
            assertThat(pool.stats().cancelled()).as("iteration %d: %s", iteration, pool.stats()).isEqualTo(6);
            assertThat(pool.stats().failed()).as("iteration %d: %s", iteration, pool.stats()).isZero();
        }
    }
}
