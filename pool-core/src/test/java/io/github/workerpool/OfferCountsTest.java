package io.github.workerpool;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class OfferCountsTest {

    @Test
    void aThreadCountsInItsOwnCell() {
        OfferCounts counts = new OfferCounts();
        for (int i = 0; i < 1_000; i++) {
            counts.increment(5);
        }
        assertThat(counts.sum()).isEqualTo(1_000);
    }

    @Test
    void aCellOfAThreadThatEnded_isTakenOver_withItsCount() throws Exception {
        OfferCounts counts = new OfferCounts();
        Thread first = new Thread(() -> {
            for (int i = 0; i < 7; i++) {
                counts.increment(3);
            }
        });
        first.start();
        first.join(TimeUnit.SECONDS.toMillis(30));
        for (int i = 0; i < 5; i++) {
            counts.increment(3 + OfferCounts.CELLS); // the same cell
        }
        assertThat(counts.sum()).isEqualTo(12);
    }

    @Test
    void aCellOfALiveThread_isShared_throughTheFallbackCounter() throws Exception {
        OfferCounts counts = new OfferCounts();
        CountDownLatch counted = new CountDownLatch(1);
        CountDownLatch end = new CountDownLatch(1);
        Thread owner = new Thread(() -> {
            counts.increment(9);
            counted.countDown();
            try {
                end.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            counts.increment(9);
        });
        owner.start();
        assertThat(counted.await(30, TimeUnit.SECONDS)).isTrue();
        for (int i = 0; i < 10; i++) {
            counts.increment(9);
        }
        end.countDown();
        owner.join(TimeUnit.SECONDS.toMillis(30));
        assertThat(counts.sum()).isEqualTo(12);
    }

    @Test
    void fewerCells_numbersThatMeetOnACell_shareTheFallback() throws Exception {
        OfferCounts counts = new OfferCounts(2); // numbers 0 and 2 meet on cell 0
        CountDownLatch counted = new CountDownLatch(1);
        CountDownLatch end = new CountDownLatch(1);
        Thread owner = new Thread(() -> {
            counts.increment(0);
            counted.countDown();
            try {
                end.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        owner.start();
        assertThat(counted.await(30, TimeUnit.SECONDS)).isTrue();
        for (int i = 0; i < 5; i++) {
            counts.increment(2);
        }
        counts.increment(1);
        assertThat(counts.sum()).isEqualTo(7);
        end.countDown();
        owner.join(TimeUnit.SECONDS.toMillis(30));
        counts.increment(2); // the owner ended: this thread takes cell 0 over, count and all
        assertThat(counts.sum()).isEqualTo(8);
    }

    @Test
    void manyThreads_countEveryOffer_andTheSumNeverGoesDown() throws Exception {
        OfferCounts counts = new OfferCounts();
        int threads = 8;
        int each = 200_000;
        Thread[] producers = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            int producer = t % 3; // several threads on one cell: one owns it, the others share
            producers[t] = new Thread(() -> {
                for (int i = 0; i < each; i++) {
                    counts.increment(producer);
                }
            });
            producers[t].start();
        }
        long last = 0;
        boolean running = true;
        while (running) {
            long now = counts.sum();
            assertThat(now).isGreaterThanOrEqualTo(last);
            last = now;
            running = false;
            for (Thread p : producers) {
                running |= p.isAlive();
            }
        }
        for (Thread p : producers) {
            p.join(TimeUnit.SECONDS.toMillis(30));
        }
        assertThat(counts.sum()).isEqualTo((long) threads * each);
    }
}
