package io.github.workerpool;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * Queue mode: a task offered to an unbounded queue while the only busy worker finishes, searches
 * the queue and parks, and a second worker is parked idle. The task must run without help: the
 * arbiter waits for it before shutting down (shutdown would wake every worker and hide a lost
 * wake-up). Result: accepted, ran before shutdown.
 */
@JCStressTest
@Outcome(id = "1, 1", expect = Expect.ACCEPTABLE, desc = "the queued task ran")
@Outcome(expect = Expect.FORBIDDEN, desc = "lost wake-up: the task stayed queued with every worker parked")
@State
public class QueueOfferVsWorkerIdleTest {

    private final WorkerPool pool = WorkerPool.builder().name("jcs").capacity(2)
            .queueCapacity(Integer.MAX_VALUE).disablePurge(true).build();
    private final AtomicInteger ran = new AtomicInteger();
    private volatile boolean release;

    public QueueOfferVsWorkerIdleTest() {
        Jcs.warmOneIdleWorker(pool);
        Runnable block = () -> {
            while (!release) {
                Thread.onSpinWait();
            }
        };
        pool.execute(block); // the idle worker takes it; the second worker slot stays free
        pool.execute(block); // a second worker starts for it: now both are busy
    }

    @Actor
    public void submit(II_Result r) {
        r.r1 = Jcs.tryExecute(pool, ran::incrementAndGet);
    }

    @Actor
    public void finish() {
        release = true;
    }

    @Arbiter
    public void check(II_Result r) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (ran.get() == 0 && System.nanoTime() - deadline < 0) {
            Thread.onSpinWait();
        }
        r.r2 = ran.get();
        Jcs.terminate(pool);
    }
}
