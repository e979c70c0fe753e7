package io.github.workerpool;

import java.util.Iterator;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A queue-mode pool's task queue: one {@link ConcurrentLinkedQueue} per stripe. A submitting
 * thread always offers to the same stripe, and a worker polls its home stripe first.
 *
 * <p>Why: with one queue for all, two producers on two workers and two CPUs paid for every
 * offer in contention on the queue's tail, a cost {@code ForkJoinPool} avoids by giving each
 * submitting thread a queue of its own; striping measured 1.15x-1.28x there
 * (BENCHMARKS.md, "Fifth round").
 *
 * <p>Order: the tasks of one thread are taken in the order it submitted them (one stripe, FIFO).
 * Tasks of different threads have no order between them. A pool built with capacity 1, or on
 * one CPU, has one stripe, so it is FIFO across threads like a single-thread executor.
 *
 * <p>Fairness: homes are spread evenly over the live workers, so once there are as many
 * workers as stripes every stripe has one that serves it first. A worker looks at the
 * other stripes whenever its own is empty, and once every {@link #FAIR_EVERY} polls it starts
 * at another stripe, each of the others in turn. So a stripe with no worker of its own (after a
 * tune down) is served first at least once in {@code FAIR_EVERY * (stripes - 1)} polls of every
 * worker, however busy the other stripes are.
 */
final class TaskQueue {

    /** A worker looks at the other stripes first once in this many polls (a power of two). */
    static final int FAIR_EVERY = 8;

    /** Most stripes a pool uses: beyond this, scanning the empty ones costs more than it saves. */
    static final int MAX_STRIPES = 16;

    private static final AtomicInteger NEXT_PRODUCER = new AtomicInteger();

    /** Each submitting thread's stripe number, modulo a pool's stripe count; taken in turn. */
    private static final ThreadLocal<Integer> PRODUCER = ThreadLocal.withInitial(NEXT_PRODUCER::getAndIncrement);

    private final ConcurrentLinkedQueue<Object>[] stripes;
    private final int mask;
    private final OfferCounts offers; // null: offers are not counted here (a bounded queue counts them itself)
    private final int[] homed; // live workers per home stripe; guarded by the pool's lock
    private final Object removals = new Object(); // remove() calls take turns on it

    /**
     * A queue of one stripe per CPU, no more than the capacity the pool is built with, a power of
     * two, at most {@link #MAX_STRIPES}.
     * @param capacity the pool's capacity, or -1 for unbounded
     */
    TaskQueue(int capacity) {
        this(capacity, Runtime.getRuntime().availableProcessors(), false);
    }

    /**
     * @param countOffers whether {@link #offer(Object)} counts each offer per submitting thread
     *        ({@link #offered()}), for an unbounded queue's length in constant time
     */
    TaskQueue(int capacity, boolean countOffers) {
        this(capacity, Runtime.getRuntime().availableProcessors(), countOffers);
    }

    TaskQueue(int capacity, int cpus) {
        this(capacity, cpus, false);
    }

    @SuppressWarnings("unchecked")
    TaskQueue(int capacity, int cpus, boolean countOffers) {
        int limit = Math.min(MAX_STRIPES, cpus);
        if (capacity > 0) {
            limit = Math.min(limit, capacity);
        }
        int n = Integer.highestOneBit(Math.max(1, limit));
        stripes = new ConcurrentLinkedQueue[n];
        for (int i = 0; i < n; i++) {
            stripes[i] = new ConcurrentLinkedQueue<>();
        }
        mask = n - 1;
        homed = new int[n];
        offers = countOffers ? new OfferCounts() : null;
    }

    /** Gives a new worker the home stripe with the fewest live workers; under the pool's lock. */
    void adoptHome(Worker w) {
        int best = 0;
        for (int i = 1; i < homed.length; i++) {
            if (homed[i] < homed[best]) {
                best = i;
            }
        }
        homed[best]++;
        w.home = best;
    }

    /** A worker left; under the pool's lock. */
    void leaveHome(Worker w) {
        homed[w.home]--;
    }

    /**
     * Queues the task on the calling thread's stripe; counts it first if this queue counts offers,
     * so that a task a worker has taken (and counted) is always in {@link #offered()} too.
     */
    void offer(Object task) {
        if (offers == null) {
            stripes[stripeOfThisThread()].offer(task);
            return;
        }
        int producer = PRODUCER.get();
        offers.increment(producer);
        stripes[producer & mask].offer(task);
    }

    /** Tasks ever offered by {@link #offer(Object)}, if this queue counts them (else 0). */
    long offered() {
        return offers == null ? 0 : offers.sum();
    }

    /** The calling thread's producer number: its stripe, modulo the stripe count, and its offer-count cell. */
    static int producerOfThisThread() {
        return PRODUCER.get();
    }

    /** Queues a task for another thread, on the stripe it had from {@link #stripeOfThisThread()}. */
    void offer(Object task, int stripe) {
        stripes[stripe & mask].offer(task);
    }

    /** The calling thread's stripe. */
    int stripeOfThisThread() {
        return stripes.length == 1 ? 0 : PRODUCER.get() & mask;
    }

    /** Takes the next task for the worker, from its home stripe first (mostly); null if all are empty. */
    Object poll(Worker w) {
        ConcurrentLinkedQueue<Object>[] s = stripes;
        if (s.length == 1) {
            return s[0].poll();
        }
        int p = ++w.polls;
        // Every FAIR_EVERY-th poll starts at the next stripe in turn, all of them in rotation: a
        // fixed "home + 1" would leave a stripe two away from every home unread for as long as
        // the stripes before it have work (one worker left with four stripes after a tune down).
        int start = (p & (FAIR_EVERY - 1)) == 0 ? w.home + 1 + (p / FAIR_EVERY) % (s.length - 1) : w.home;
        for (int i = 0; i < s.length; i++) {
            Object t = s[(start + i) & mask].poll();
            if (t != null) {
                return t;
            }
        }
        return null;
    }

    /** Takes any task, stripe by stripe: for draining. */
    Object poll() {
        for (ConcurrentLinkedQueue<Object> q : stripes) {
            Object t = q.poll();
            if (t != null) {
                return t;
            }
        }
        return null;
    }

    boolean isEmpty() {
        for (ConcurrentLinkedQueue<Object> q : stripes) {
            if (!q.isEmpty()) {
                return false;
            }
        }
        return true;
    }

    /** Tasks in the queue, counted: time proportional to the length. */
    int size() {
        return sizeAtMost(Integer.MAX_VALUE);
    }

    /** Tasks in the queue, counted only as far as {@code limit}. */
    int sizeAtMost(int limit) {
        int n = 0;
        for (ConcurrentLinkedQueue<Object> q : stripes) {
            for (Iterator<Object> it = q.iterator(); n < limit && it.hasNext(); it.next()) {
                n++;
            }
        }
        return n;
    }

    /**
     * Takes this very task back out (its producer lost a race with shutdown); false if a worker
     * took it. By identity: ConcurrentLinkedQueue.remove goes by equals(), and would take an equal
     * task (a FunctionPool's argument, a record) queued and accepted earlier, leaving this one to run.
     */
    boolean remove(Object task) {
        // removeIf takes an element with a compare-and-set, as remove(Object) does (an iterator's
        // remove() does not, and would take a task a worker is taking too); one occurrence only:
        // the same object submitted twice is two tasks. If the one it tried was taken meanwhile
        // (by a worker), it looks again. Removals take turns (they are rare: a producer that lost a
        // race with shutdown): a traversal sees every element there when it began unless another
        // thread removes it meanwhile, so another producer of the same object could take this
        // one's occurrence while its own, offered after this traversal began, went unseen, and this
        // one would report its task taken while an occurrence stayed queued (found by a flaky test).
        // In turns, an occurrence another remover took was replaced by that remover's own, offered
        // before it removed, so before this traversal began.
        ConcurrentLinkedQueue<Object> stripe = stripes[stripeOfThisThread()];
        synchronized (removals) {
            return removeFrom(stripe, task);
        }
    }

    /** One occurrence of the task, by identity, from the stripe; false if none is there. */
    private static boolean removeFrom(ConcurrentLinkedQueue<Object> stripe, Object task) {
        for (;;) {
            boolean[] seen = {false};
            if (stripe.removeIf(t -> {
                if (t != task || seen[0]) {
                    return false;
                }
                seen[0] = true;
                return true;
            })) {
                return true;
            }
            if (!seen[0]) {
                return false; // not there: a worker took it
            }
        }
    }

    /** The number of stripes. */
    int stripes() {
        return stripes.length;
    }

    /** A worker's home stripe's live-worker count, for tests; under the pool's lock. */
    int homed(int stripe) {
        return homed[stripe];
    }
}
