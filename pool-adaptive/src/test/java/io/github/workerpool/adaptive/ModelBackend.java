package io.github.workerpool.adaptive;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A backend of true capacity {@code k} as a formula, driven on a clock the test owns: with L tasks
 * in flight, each runs {@code base * max(1, L / k)} (the first k run at once, the rest queue for
 * them). Demand always exceeds the pool's capacity, so L is the capacity. Nothing sleeps: a simulated minute takes milliseconds.
 */
final class ModelBackend {

    final int k;

    final long baseNanos;

    final AtomicLong clock = new AtomicLong(TimeUnit.SECONDS.toNanos(1));

    /** The pool's capacity every 100 simulated ms. */
    final List<Integer> limits = new ArrayList<>();

    private long nextRecord;

    ModelBackend(int k, long baseMillis) {
        this.k = k;
        this.baseNanos = TimeUnit.MILLISECONDS.toNanos(baseMillis);
        this.nextRecord = this.clock.get();
    }

    /** Runs the model for this much simulated time. */
    void run(AdaptiveCapacity adaptive, long seconds) {
        long end = this.clock.get() + TimeUnit.SECONDS.toNanos(seconds);
        while (this.clock.get() < end) {
            int inflight = adaptive.pool().capacity();
            long rtt = (long) (this.baseNanos * Math.max(1.0, (double) inflight / this.k));
            // One round: the tasks in flight end spread over one run time.
            long step = Math.max(1, rtt / inflight);
            for (int i = 0; i < inflight; i++) {
                this.clock.addAndGet(step);
                adaptive.sample(adaptive.generation(), inflight, rtt, false);
                record(adaptive);
            }
        }
    }

    private void record(AdaptiveCapacity adaptive) {
        while (this.clock.get() >= this.nextRecord) {
            this.limits.add(adaptive.pool().capacity());
            this.nextRecord += TimeUnit.MILLISECONDS.toNanos(100);
        }
    }

    /** The limits recorded from this simulated second on. */
    List<Integer> limitsFrom(int second) {
        return this.limits.subList(Math.min(second * 10, this.limits.size()), this.limits.size());
    }
}
