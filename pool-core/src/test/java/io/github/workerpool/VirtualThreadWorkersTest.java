package io.github.workerpool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Virtual-thread workers. Skipped below Java 21, unless the build sets
 * {@code -Dworkerpool.requireVirtualThreads=true} (CI does on its newest JDK), in which case a
 * JVM without virtual threads fails the suite instead of silently skipping it.
 */
class VirtualThreadWorkersTest extends PoolTestSupport {

    @BeforeEach
    void needsVirtualThreads() {
        boolean required = Boolean.getBoolean("workerpool.requireVirtualThreads");
        boolean supported = Threads.virtualThreadsSupported();
        if (required) {
            assertThat(supported).as("virtual threads required on Java " + Runtime.version()).isTrue();
        }
        assumeTrue(supported, "virtual threads need Java 21+");
    }

    @Test
    void virtualWorkers_runTasksOnVirtualThreadsNamedAfterThePool() throws Exception {
        WorkerPool pool = pool(WorkerPool.builder().name("crawler").capacity(4).virtualThreads(true));
        Thread t = pool.submit(Thread::currentThread).get(10, TimeUnit.SECONDS);
        assertThat(Threads.isVirtual(t)).isTrue();
        assertThat(t.getName()).isEqualTo("crawler-1");
        assertThat(pool.config().virtualThreads()).isTrue();
    }

    @Test
    void virtualWorkers_keepCapacity_andAreReused() throws Exception {
        WorkerPool pool = pool(WorkerPool.builder().capacity(100).virtualThreads(true));
        CountDownLatch gate = gate();
        CountDownLatch started = new CountDownLatch(100);
        for (int i = 0; i < 100; i++) {
            pool.execute(() -> {
                started.countDown();
                hold(gate);
            });
        }
        assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(pool.running()).isEqualTo(100);
        assertThat(pool.free()).isZero();
        open(gate);
        awaitUntil("all idle", () -> pool.idle() == 100);
        for (int i = 0; i < 1000; i++) {
            pool.execute(() -> { });
        }
        awaitUntil("all done", () -> pool.stats().completed() == 1100);
        assertThat(pool.running() + pool.idle()).isLessThanOrEqualTo(100);
    }
}
