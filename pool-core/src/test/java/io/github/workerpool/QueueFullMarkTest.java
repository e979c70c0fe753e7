package io.github.workerpool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The queue engine's full mark, which lets a searcher whose spin ran out yield instead of park
 * while its bounded queue was just full: written by a refused slot (not by a slot taken), read as
 * "full just now" for FULL_RECENT_NANOS, never set in an unbounded queue, and written at most once
 * per {@link QueueEngine.Slots#FULL_MARK_EVERY} however many slots are refused.
 */
class QueueFullMarkTest {

    @Test
    void aRefusedSlotWritesTheMark() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        WorkerPool pool = WorkerPool.builder().name("full-mark").capacity(1).queueCapacity(1).nonblocking(true).build();
        try {
            QueueEngine engine = (QueueEngine) pool.engine();
            long built = System.nanoTime();
            CountDownLatch running = new CountDownLatch(1);
            pool.execute(() -> {
                running.countDown();
                try {
                    release.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
            pool.execute(() -> { }); // takes the one queue slot
            assertThat(engine.slotsForTest().fullAt - built).as("no slot refused yet").isNegative();
            long refusing = System.nanoTime();
            assertThatThrownBy(() -> pool.execute(() -> { })).isInstanceOf(PoolOverloadException.class);
            long refused = System.nanoTime();
            long mark = engine.slotsForTest().fullAt;
            assertThat(mark - refusing).as("written by the refused execute").isNotNegative();
            assertThat(refused - mark).as("written by the refused execute").isNotNegative();
        } finally {
            release.countDown();
            pool.shutdown();
            assertThat(pool.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void theMarkReadsAsFullJustNow() {
        WorkerPool pool = WorkerPool.builder().name("full-mark-now").capacity(1).queueCapacity(10).build();
        try {
            QueueEngine engine = (QueueEngine) pool.engine();
            assertThat(engine.fullJustNow()).as("a new pool").isFalse();
            // Asserted in an attempt that took well under FULL_RECENT_NANOS (a thread descheduled
            // for a millisecond in between would rightly read "not just now").
            boolean checked = false;
            for (int attempt = 0; attempt < 100 && !checked; attempt++) {
                long start = System.nanoTime();
                engine.slotsForTest().markFull();
                boolean justNow = engine.fullJustNow();
                if (System.nanoTime() - start < QueueEngine.FULL_RECENT_NANOS / 2) {
                    assertThat(justNow).isTrue();
                    checked = true;
                }
            }
            assertThat(checked).as("an attempt within half of FULL_RECENT_NANOS").isTrue();
        } finally {
            pool.shutdown();
        }
    }

    @Test
    void anUnboundedQueueIsNeverFull() {
        WorkerPool pool = WorkerPool.builder().name("full-mark-unbounded").capacity(1).queueCapacity(Integer.MAX_VALUE).build();
        try {
            QueueEngine engine = (QueueEngine) pool.engine();
            assertThat(engine.slotsForTest()).as("no producer side, so no mark to write").isNull();
            assertThat(engine.fullJustNow()).isFalse();
        } finally {
            pool.shutdown();
        }
    }

    @Test
    void refusalsInARowWriteTheMarkOncePerInterval() {
        QueueEngine.Slots slots = new QueueEngine.Slots();
        slots.markFull();
        long last = slots.fullAt;
        for (int i = 0; i < 1_000; i++) {
            slots.markFull();
            long now = slots.fullAt;
            // Rewritten only once the mark is FULL_MARK_EVERY old (as a thread descheduled that long may see it).
            assertThat(now == last || now - last >= QueueEngine.Slots.FULL_MARK_EVERY)
                    .as("mark moved from %d to %d at refusal %d", last, now, i + 2).isTrue();
            last = now;
        }
    }

    @Test
    void aRefusalRewritesTheMarkOnceItIsAnIntervalOld() {
        QueueEngine.Slots slots = new QueueEngine.Slots();
        slots.markFull();
        long first = slots.fullAt;
        // Waits on the clock itself, not on a sleep: the mark is then FULL_MARK_EVERY old for sure.
        while (System.nanoTime() - first < QueueEngine.Slots.FULL_MARK_EVERY) {
            Thread.onSpinWait();
        }
        slots.markFull();
        assertThat(slots.fullAt - first).as("rewritten by a refusal once the mark is an interval old")
                .isGreaterThanOrEqualTo(QueueEngine.Slots.FULL_MARK_EVERY);
    }
}
