package io.github.workerpool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.UnaryOperator;

/**
 * Reconfiguration storms for the stress and soak tests' fault injection: each {@link #step}
 * changes several live options of a pool at once (capacity, queueCapacity within its kind,
 * nonblocking, maxBlockingTasks, blockingTimeout, expiry and disablePurge, queueTimeout and
 * runTimeout), or adds or removes one of two counting listeners, or goes back to the pool's
 * options as built, or tries a change that must be refused as a whole (another kind of queue, an
 * option fixed at build, a preAlloc pool's capacity, a change function that throws) and checks
 * that nothing changed. A step's result is checked against what it asked for.
 *
 * <p>Used by one thread at a time (the chaos thread). Once the pool is quiet,
 * {@link #assertListenersAgreeWith} checks that each listener heard every task it saw start
 * end, and heard no more than the pool counted.
 */
final class ReconfigureStorm {

    // Options that make a full pool reject at once (nonblocking, waiting limits, a zero timeout) are
    // among the choices but rare: a rejection costs a producer a microsecond where a wait costs it
    // a task's time, so even short spells of them reject a large share of the tasks.
    private static final int[] BOUNDED_QUEUES = {1, 2, 8, 64, 256, 1024, 4096};
    private static final int[] MAX_BLOCKING = {0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 4};
    private static final Duration[] BLOCKING_TIMEOUTS = {null, null, null, null, null, null, null, null, Duration.ZERO,
        Duration.ofMillis(1), Duration.ofMillis(5), Duration.ofMillis(50)};
    private static final Duration[] EXPIRIES = {Duration.ofMillis(1), Duration.ofMillis(5), Duration.ofMillis(100),
        Duration.ofSeconds(60)};
    private static final Duration[] TASK_TIMEOUTS = {null, null, Duration.ofNanos(1), Duration.ofNanos(100_000),
        Duration.ofMillis(1)};

    private final Pool pool;
    private final PoolConfig baseline;
    /**
     * Whether reconfigure's result can be checked against the change. Not for a MultiPool: it
     * gives every sub-pool a whole result computed from options read before, so a concurrent tune
     * (the chaos thread's) can undo any option this storm set (ReconfigureStormFindingsTest).
     */
    private final boolean exactResult;
    private final CountingListener[] listeners = {new CountingListener(), new CountingListener()};
    private final boolean[] attached = new boolean[listeners.length];

    final LongAdder reconfigurations = new LongAdder();
    final LongAdder refused = new LongAdder();
    final LongAdder listenerChanges = new LongAdder();

    ReconfigureStorm(Pool pool) {
        this.pool = pool;
        this.baseline = pool.config();
        this.exactResult = !(pool instanceof MultiPool);
    }

    /** One storm move, at random. */
    void step(Random random) {
        int move = random.nextInt(100);
        if (move < 10) {
            toggleListener(random.nextInt(listeners.length));
        } else if (move < 16) {
            refusedChange(random);
        } else if (move < 24) {
            apply(c -> baseline);
        } else {
            randomChange(random);
        }
    }

    private void toggleListener(int i) {
        if (attached[i]) {
            pool.removeListener(listeners[i]);
        } else {
            pool.addListener(listeners[i]);
        }
        attached[i] = !attached[i];
        listenerChanges.increment();
    }

    /** Several options at once (at least two), each to a random valid value. */
    private void randomChange(Random random) {
        PoolConfig base = pool.config();
        boolean preAlloc = base.preAlloc();
        int changes = 0;
        List<UnaryOperator<PoolConfig>> parts = new ArrayList<>();
        while (changes < 2) {
            if (!preAlloc && random.nextBoolean()) {
                // Unbounded only for hand-off pools: on a queue pool, growing to unbounded starts a
                // thread per queued task at once (ReconfigureStormFindingsTest).
                int c = baseline.queueCapacity() == 0 && random.nextInt(50) == 0 ? -1 : 1 + random.nextInt(8);
                parts.add(x -> x.withCapacity(c));
                changes++;
            }
            if (baseline.queueCapacity() > 0 && !baseline.unboundedQueue() && random.nextBoolean()) {
                int q = BOUNDED_QUEUES[random.nextInt(BOUNDED_QUEUES.length)];
                parts.add(x -> x.withQueueCapacity(q));
                changes++;
            }
            if (random.nextBoolean()) {
                // Mostly the pool's own mode, so that blocking pools keep exercising their waiters.
                boolean nb = random.nextInt(12) == 0 ? !baseline.nonblocking() : baseline.nonblocking();
                parts.add(x -> x.withNonblocking(nb));
                changes++;
            }
            if (random.nextBoolean()) {
                int m = MAX_BLOCKING[random.nextInt(MAX_BLOCKING.length)];
                parts.add(x -> x.withMaxBlockingTasks(m));
                changes++;
            }
            if (random.nextBoolean()) {
                Duration t = BLOCKING_TIMEOUTS[random.nextInt(BLOCKING_TIMEOUTS.length)];
                parts.add(x -> x.withBlockingTimeout(t));
                changes++;
            }
            if (random.nextInt(4) == 0) {
                Duration e = EXPIRIES[random.nextInt(EXPIRIES.length)];
                boolean disable = random.nextInt(5) == 0;
                parts.add(x -> x.withExpiry(e).withDisablePurge(disable));
                changes++;
            }
            if (random.nextBoolean()) {
                Duration q = TASK_TIMEOUTS[random.nextInt(TASK_TIMEOUTS.length)];
                Duration r = TASK_TIMEOUTS[random.nextInt(TASK_TIMEOUTS.length)];
                parts.add(x -> x.withQueueTimeout(q).withRunTimeout(r));
                changes++;
            }
        }
        UnaryOperator<PoolConfig> change = c -> {
            for (UnaryOperator<PoolConfig> p : parts) {
                c = p.apply(c);
            }
            return c;
        };
        apply(change);
    }

    /**
     * Applies the change and checks the result has what the change asked for: the change applied
     * to the result is the result itself (every change here sets values, so applying it twice
     * changes nothing more).
     */
    private void apply(UnaryOperator<PoolConfig> change) {
        PoolConfig got = pool.reconfigure(change);
        reconfigurations.increment();
        if (exactResult) {
            assertThat(got).as("reconfigure's result has what was asked for").isEqualTo(change.apply(got));
        } else {
            assertThat(got.name()).isEqualTo(pool.name());
        }
    }

    /** A change that must be refused as a whole: afterwards the options are as before (the capacity may be tuned meanwhile). */
    private void refusedChange(Random random) {
        PoolConfig before = pool.config();
        int kind = random.nextInt(4);
        UnaryOperator<PoolConfig> change;
        Class<? extends RuntimeException> expected = IllegalArgumentException.class;
        if (kind == 0) {
            int otherKind = before.queueCapacity() == 0 ? 8 : before.unboundedQueue() ? 0 : Integer.MAX_VALUE;
            change = c -> c.withNonblocking(!c.nonblocking()).withMaxBlockingTasks(3).withQueueCapacity(otherKind);
        } else if (kind == 1) {
            change = c -> c.withBlockingTimeout(Duration.ofMillis(7)).withPreAlloc(!c.preAlloc());
        } else if (kind == 2 && before.preAlloc()) {
            change = c -> c.withNonblocking(!c.nonblocking()).withCapacity(c.capacity() + 1);
            expected = IllegalStateException.class;
        } else {
            change = c -> {
                c.withNonblocking(!c.nonblocking()); // the caller's code fails half-way
                throw new IllegalArgumentException("storm: a change function that throws");
            };
        }
        assertThatThrownBy(() -> pool.reconfigure(change)).isInstanceOf(expected);
        refused.increment();
        PoolConfig after = pool.config();
        if (exactResult) {
            assertThat(after.withCapacity(before.capacity())).as("a refused reconfiguration changes nothing")
                    .isEqualTo(before);
        }
    }

    /** Removes the listeners still attached (before the pool is checked, so none is added meanwhile). */
    void detachAll() {
        for (int i = 0; i < listeners.length; i++) {
            if (attached[i]) {
                toggleListener(i);
            }
        }
    }

    /**
     * Once the pool is quiet: each listener heard an end for every start, and no more starts,
     * failures, rejections or timeouts than the pool counted; the pool counted each timeout at
     * most once per task that ran.
     */
    void assertListenersAgreeWith(PoolStats s) {
        long ran = s.completed() + s.failed();
        assertThat(s.queueTimeouts()).as("queue timeouts <= tasks that ran, %s", s).isLessThanOrEqualTo(ran);
        assertThat(s.runTimeouts()).as("run timeouts <= tasks that ran, %s", s).isLessThanOrEqualTo(ran);
        for (CountingListener l : listeners) {
            assertThat(l.ended.sum()).as("listener heard an end for every start: %s", l).isEqualTo(l.started.sum());
            assertThat(l.started.sum()).as("listener starts <= tasks run: %s, %s", l, s).isLessThanOrEqualTo(ran);
            assertThat(l.failures.sum()).as("listener failures <= failed: %s, %s", l, s).isLessThanOrEqualTo(s.failed());
            assertThat(l.rejected.sum()).as("listener rejections <= rejected: %s, %s", l, s)
                    .isLessThanOrEqualTo(s.rejected());
            assertThat(l.queueTimedOut.sum()).as("listener queue timeouts: %s, %s", l, s)
                    .isLessThanOrEqualTo(Math.min(s.queueTimeouts(), l.started.sum()));
            assertThat(l.runTimedOut.sum()).as("listener run timeouts: %s, %s", l, s)
                    .isLessThanOrEqualTo(Math.min(s.runTimeouts(), l.ended.sum()));
        }
    }

    /** Counts what it hears. */
    static final class CountingListener implements PoolListener {
        final LongAdder started = new LongAdder();
        final LongAdder ended = new LongAdder();
        final LongAdder failures = new LongAdder();
        final LongAdder rejected = new LongAdder();
        final LongAdder queueTimedOut = new LongAdder();
        final LongAdder runTimedOut = new LongAdder();

        @Override
        public void taskStarted(Pool pool, long queuedNanos) {
            started.increment();
        }

        @Override
        public void taskEnded(Pool pool, long runNanos, Throwable failure) {
            ended.increment();
            if (failure != null) {
                failures.increment();
            }
        }

        @Override
        public void taskRejected(Pool pool, RejectedExecutionException rejection) {
            rejected.increment();
        }

        @Override
        public void queueTimedOut(Pool pool, long queuedNanos) {
            queueTimedOut.increment();
        }

        @Override
        public void runTimedOut(Pool pool, long runNanos) {
            runTimedOut.increment();
        }

        @Override
        public String toString() {
            return "listener[started=" + started + ", ended=" + ended + ", failures=" + failures + ", rejected="
                    + rejected + ", queueTimedOut=" + queueTimedOut + ", runTimedOut=" + runTimedOut + "]";
        }
    }
}
