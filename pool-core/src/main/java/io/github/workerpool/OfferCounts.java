package io.github.workerpool;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * Events counted per thread without a shared write: the tasks offered to an unbounded queue
 * (a cell per submitting thread), and the tasks workers take from a bounded one (a cell per
 * worker, QueueEngine). Each counting thread counts in a cell of its own, which only it writes (a plain
 * increment published with a release store, no locked instruction), and a reader sums a fixed
 * number of cells. So the queue's length is offered - polled - drained in time that does not
 * depend on it, and the producer's cost stays what the fifth round measured without a counter
 * (BENCHMARKS.md, "Eighth round").
 *
 * <p>A thread's cell is the one at its producer number ({@link TaskQueue#producerOfThisThread()})
 * modulo the number of cells. The first thread to offer there claims it. A thread that finds it owned
 * by a thread that has since ended takes it over, count and all (the ended thread's writes are
 * visible once {@link Thread#isAlive()} says it ended). A thread that finds it owned by a live
 * thread (more than {@code CELLS} submitting threads, or a collision of numbers) counts in a
 * shared {@link LongAdder} instead.
 */
final class OfferCounts {

    /** Most cells (a power of two): more counting threads than this share a LongAdder. */
    static final int CELLS = 64;

    private static final VarHandle COUNT;

    static {
        try {
            COUNT = MethodHandles.lookup().findVarHandle(Fields.class, "count", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final AtomicReferenceArray<Cell> cells;
    private final int mask;
    private final LongAdder shared = new LongAdder();

    /** {@link #CELLS} cells. */
    OfferCounts() {
        this(CELLS);
    }

    /**
     * @param cells how many cells at most (rounded up to a power of two, at most {@link #CELLS}):
     *        fewer make {@link #sum()} cheaper for a reader that sums often
     */
    OfferCounts(int cells) {
        int n = cells >= CELLS ? CELLS : Math.max(1, Integer.highestOneBit(Math.max(1, cells) * 2 - 1));
        this.cells = new AtomicReferenceArray<>(n);
        this.mask = n - 1;
    }

    /** Counts one offer by the calling thread, whose producer number is {@code producer}. */
    void increment(int producer) {
        int i = producer & mask;
        Cell c = cells.getPlain(i);
        Thread me = Thread.currentThread();
        if (c != null && c.owner == me) {
            COUNT.setRelease(c, c.count + 1); // only the owner writes
            return;
        }
        incrementSlow(i, me, c);
    }

    private void incrementSlow(int i, Thread me, Cell c) {
        for (;;) {
            if (c == null) {
                Cell mine = new Cell(me, 1);
                if (cells.compareAndSet(i, null, mine)) {
                    return;
                }
            } else if (c.owner == me) {
                COUNT.setRelease(c, c.count + 1);
                return;
            } else if (!c.owner.isAlive()) {
                // The owner ended: its last write is visible now (thread termination), and it
                // writes no more, so its count carries over to the new owner's cell.
                Cell mine = new Cell(me, (long) COUNT.getAcquire(c) + 1);
                if (cells.compareAndSet(i, c, mine)) {
                    return;
                }
            } else {
                shared.increment();
                return;
            }
            c = cells.get(i);
        }
    }

    /**
     * Offers counted so far. Read after the workers' poll counts, it is at least every offer
     * whose task those counts include: a producer counts before it offers.
     */
    long sum() {
        long n = shared.sum();
        for (int i = 0; i <= mask; i++) {
            Cell c = cells.get(i);
            if (c != null) {
                n += (long) COUNT.getAcquire(c);
            }
        }
        return n;
    }

    /** A cell's fields, padded before (LinePad) and after (Cell), so that two threads' cells never share a cache line. */
    abstract static class Fields extends LinePad {
        final Thread owner;
        long count; // written only by owner (release), read with acquire

        Fields(Thread owner, long count) {
            this.owner = owner;
            this.count = count;
        }
    }

    static final class Cell extends Fields {
        long q01, q02, q03, q04, q05, q06, q07, q08;

        Cell(Thread owner, long count) {
            super(owner, count);
        }
    }
}
