package io.github.workerpool;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The striped task queue of queue-mode pools: stripe count, order per thread, fairness, homes. */
class TaskQueueTest {

    private record Item(int producer, int seq) {
    }

    @Test
    void remove_takesBackThatVeryTask_notAnEqualOneQueuedBefore_andOneOccurrenceOnly() {
        // Found by a review: ConcurrentLinkedQueue.remove goes by equals(), so a producer that lost
        // a race with shutdown took back an equal task accepted before it (a FunctionPool's argument),
        // which was then lost while the refused one ran.
        TaskQueue q = new TaskQueue(1, 1);
        Item accepted = new Item(1, 1);
        Item refused = new Item(1, 1);
        assertThat(refused).isEqualTo(accepted).isNotSameAs(accepted);
        q.offer(accepted);
        q.offer(refused);
        assertThat(q.remove(refused)).isTrue();
        assertThat(q.poll()).isSameAs(accepted);
        assertThat(q.poll()).isNull();

        Item twice = new Item(2, 2); // the same object submitted twice is two tasks
        q.offer(twice);
        q.offer(twice);
        assertThat(q.remove(twice)).isTrue();
        assertThat(q.poll()).isSameAs(twice);
        assertThat(q.remove(twice)).as("taken already").isFalse();
    }

    @Test
    void remove_byProducersOfTheSameObjectAtOnce_alwaysFindsAnOccurrenceWhileOneIsThere() throws Exception {
        // Found by a review: a producer whose compare-and-set lost to another producer's removal
        // of the same object gave up, reporting its own occurrence as taken while it stayed queued.
        TaskQueue q = new TaskQueue(1, 1);
        Object shared = new Object();
        int producers = 4;
        int each = 20_000;
        java.util.concurrent.atomic.AtomicInteger misses = new java.util.concurrent.atomic.AtomicInteger();
        CountDownLatch done = new CountDownLatch(producers);
        for (int p = 0; p < producers; p++) {
            new Thread(() -> {
                for (int i = 0; i < each; i++) {
                    q.offer(shared);
                    if (!q.remove(shared)) { // no consumer: an occurrence is always there for it
                        misses.incrementAndGet();
                    }
                }
                done.countDown();
            }).start();
        }
        assertThat(done.await(60, TimeUnit.SECONDS)).isTrue();
        assertThat(misses).hasValue(0);
        assertThat(q.poll()).isNull();
    }

    @Test
    void stripes_oneUnlessSeveralCpusAndWorkers() {
        assertThat(new TaskQueue(1, 64).stripes()).as("capacity 1: FIFO across threads").isEqualTo(1);
        assertThat(new TaskQueue(100, 1).stripes()).as("one CPU").isEqualTo(1);
        assertThat(new TaskQueue(6, 8).stripes()).as("a power of two within capacity").isEqualTo(4);
        assertThat(new TaskQueue(-1, 64).stripes()).as("unbounded, many CPUs").isEqualTo(TaskQueue.MAX_STRIPES);
    }

    @Test
    void eachThreadsTasks_comeOutInTheOrderItSubmittedThem() throws Exception {
        TaskQueue q = new TaskQueue(-1, 4);
        int producers = 4;
        int each = 2_000;
        CountDownLatch done = new CountDownLatch(producers);
        for (int p = 0; p < producers; p++) {
            int id = p;
            Thread t = new Thread(() -> {
                for (int i = 0; i < each; i++) {
                    q.offer(new Item(id, i));
                }
                done.countDown();
            });
            t.start();
        }
        assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(q.size()).isEqualTo(producers * each);
        Worker w = new Worker(null, null);
        q.adoptHome(w);
        int[] next = new int[producers];
        for (Object o; (o = q.poll(w)) != null; ) {
            Item item = (Item) o;
            assertThat(item.seq()).as("producer " + item.producer()).isEqualTo(next[item.producer()]);
            next[item.producer()]++;
        }
        assertThat(next).containsOnly(each);
        assertThat(q.isEmpty()).isTrue();
    }

    @Test
    void aWorkerServesOtherStripes_evenWhileItsOwnHasWork() throws Exception {
        TaskQueue q = new TaskQueue(-1, 2);
        Worker w = new Worker(null, null);
        q.adoptHome(w);
        for (int i = 0; i < 1_000; i++) {
            q.offer(new Item(0, i), 0);
            q.offer(new Item(1, i), 1);
        }
        int[] taken = new int[2];
        for (int i = 0; i < 8 * TaskQueue.FAIR_EVERY; i++) {
            taken[((Item) q.poll(w)).producer()]++;
        }
        assertThat(Math.min(taken[0], taken[1])).as("each stripe served at least once in FAIR_EVERY polls")
                .isGreaterThanOrEqualTo(8);
    }

    @Test
    void aStripeWithNoHome_isServed_whileTheStripesBeforeItStayBusy() {
        // One worker left with four stripes (a tune down): its home and the next stripe never run
        // dry, and a task waits on a stripe two further on.
        TaskQueue q = new TaskQueue(-1, 4);
        Worker w = new Worker(null, null);
        q.adoptHome(w);
        assertThat(w.home).isZero();
        Object waiting = new Item(2, 0);
        q.offer(waiting, 2);
        int polls = 0;
        Object t;
        do {
            q.offer(new Item(0, polls), 0);
            q.offer(new Item(1, polls), 1);
            t = q.poll(w);
            polls++;
        } while (t != waiting && polls < 1_000);
        assertThat(t).as("the task on stripe 2").isSameAs(waiting);
        assertThat(polls).as("polls until stripe 2 came first").isLessThanOrEqualTo(TaskQueue.FAIR_EVERY * 3);
    }

    @Test
    void homes_areSpreadOverTheStripes() {
        TaskQueue q = new TaskQueue(-1, 4);
        List<Worker> ws = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            Worker w = new Worker(null, null);
            q.adoptHome(w);
            ws.add(w);
        }
        assertThat(ws).extracting(w -> w.home).containsExactlyInAnyOrder(0, 1, 2, 3);
        q.leaveHome(ws.get(2));
        Worker replacement = new Worker(null, null);
        q.adoptHome(replacement);
        assertThat(replacement.home).as("the stripe left without a worker").isEqualTo(ws.get(2).home);
        for (int s = 0; s < 4; s++) {
            assertThat(q.homed(s)).isEqualTo(1);
        }
    }

    @Test
    void remove_takesBackTheCallersOwnTask() {
        TaskQueue q = new TaskQueue(-1, 4);
        Object task = new Object();
        q.offer(task);
        assertThat(q.remove(task)).isTrue();
        assertThat(q.remove(task)).isFalse();
        assertThat(q.isEmpty()).isTrue();
    }
}
