package io.github.workerpool.sample.demo;

import java.util.concurrent.CountDownLatch;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The demo's load runs: how many callers they may have at once, and their end as the application stops. */
class LoadDriverTests {

    @Test
    void runsPastTheCallerLimit_areRefused_andEveryCallerEndsWhenTheApplicationStops() throws Exception {
        // Found by a review: each POST started up to 64 threads with no limit on runs, and they went
        // on calling the closed pools for minutes after the application stopped.
        LoadDriver driver = new LoadDriver();
        CountDownLatch never = new CountDownLatch(1);
        LoadDriver.Call blocks = (n) -> never.await(); // a pool that keeps every caller waiting
        for (int i = 0; i < LoadDriver.MAX_CALLERS / 64; i++) {
            driver.start("only-this-test", 1_000_000, 64, blocks); // its threads' names are this test's alone
        }
        assertThat(driver.callers()).isEqualTo(LoadDriver.MAX_CALLERS);
        assertThatThrownBy(() -> driver.start("only-this-test", 10, 1, blocks)).isInstanceOf(LoadDriver.Busy.class)
            .hasMessageContaining("256 callers of earlier runs are still going");
        java.util.List<Thread> callers = Thread.getAllStackTraces().keySet().stream()
            .filter((t) -> t.getName().startsWith("load-only-this-test-"))
            .toList();
        assertThat(callers).hasSize(LoadDriver.MAX_CALLERS);
        driver.stop();
        for (Thread caller : callers) {
            caller.join(10_000);
            assertThat(caller.isAlive()).as(caller.getName()).isFalse();
        }
        assertThat(driver.callers()).isZero();
        assertThatThrownBy(() -> driver.start("only-this-test", 10, 1, blocks)).isInstanceOf(LoadDriver.Busy.class)
            .hasMessageContaining("stopping");
        driver.start();
        CountDownLatch ran = new CountDownLatch(10);
        driver.start("only-this-test", 10, 2, (n) -> ran.countDown());
        assertThat(ran.await(10, java.util.concurrent.TimeUnit.SECONDS)).as("runs again after a start").isTrue();
    }

}
