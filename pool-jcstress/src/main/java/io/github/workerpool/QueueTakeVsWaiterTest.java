package io.github.workerpool;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * A worker's take from a full bounded queue racing a caller that finds the queue full and waits
 * (QueueEngine's notes, "A caller waiting for room"). The take is counted without a full
 * fence, so the two can miss each other; the caller then finds the free slot on its own look. The task the
 * worker takes keeps it busy until the arbiter, so no later take and no idle worker can let the
 * caller in instead: a caller let in only after that task ended (its 10 s limit) was stranded.
 * Result: the caller got in while the queued task still ran, tasks run, sound and adds up.
 */
@JCStressTest
@Outcome(id = "1, 3, 1", expect = Expect.ACCEPTABLE, desc = "the caller got the free slot")
@Outcome(expect = Expect.FORBIDDEN, desc = "the caller was rejected or stranded, a task was lost, or the totals do not add up")
@State
public class QueueTakeVsWaiterTest {

    private static final long LIMIT = TimeUnit.SECONDS.toNanos(10);

    private final WorkerPool pool = WorkerPool.builder().name("jcs").capacity(1).queueCapacity(1)
            .disablePurge(true).build();
    private final AtomicInteger ran = new AtomicInteger();
    private volatile boolean releaseRunning;
    private volatile boolean releaseQueued;
    private volatile boolean queuedEnded;

    public QueueTakeVsWaiterTest() {
        Runnable running = Jcs.blockUntil(() -> releaseRunning, LIMIT);
        Runnable queued = Jcs.blockUntil(() -> releaseQueued, LIMIT);
        pool.execute(() -> {
            running.run();
            ran.incrementAndGet();
        });
        pool.execute(() -> { // fills the queue of one
            queued.run();
            queuedEnded = true;
            ran.incrementAndGet();
        });
    }

    @Actor
    public void finish() {
        releaseRunning = true; // the worker finishes and takes the queued task, freeing the slot
    }

    @Actor
    public void submit(III_Result r) {
        int accepted = Jcs.tryExecute(pool, ran::incrementAndGet); // blocks while the queue is full
        r.r1 = accepted == 1 && queuedEnded ? 2 : accepted; // 2: let in only once the worker was free again
    }

    @Arbiter
    public void check(III_Result r) {
        releaseQueued = true;
        r.r2 = Jcs.terminate(pool) ? ran.get() : -1;
        r.r3 = Jcs.soundAndAddsUp(pool);
    }
}
