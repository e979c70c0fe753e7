package io.github.workerpool;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** Latch helpers for tasks: wait for a latch the test releases, failing loudly instead of hanging. */
public final class Latches {

    private Latches() {
    }

    /**
     * Starts a thread that releases {@code latch} once {@code waiter} is in a timed wait (within
     * 10 s): the waiter's call must be waiting for what the latch holds up, not return at once.
     */
    public static Thread releaseOnceWaiting(Thread waiter, CountDownLatch latch) {
        Thread opener = new Thread(() -> {
            org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10))
                .until(() -> waiter.getState() == Thread.State.TIMED_WAITING);
            latch.countDown();
        }, "release-once-waiting");
        opener.start();
        return opener;
    }

    /** Waits up to 10 s for the latch; throws if it is not released (a bug in the test or the code). */
    public static void pass(CountDownLatch latch) {
        try {
            if (!latch.await(10, TimeUnit.SECONDS)) {
                throw new IllegalStateException("latch not released within 10 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for a latch", e);
        }
    }
}
