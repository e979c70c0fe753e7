package io.github.workerpool;

import java.time.Duration;
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
 * A caller that finds the only worker busy and the queue full (1 task) and waits, racing a
 * reconfiguration that grows the queue to 2: either the caller arrives after the growth and
 * queues, or it waits and the growth moves its task into the queue. It must be let in (a 2 s
 * blockingTimeout ends the wait of a caller that was forgotten, as a rejection), and both queued
 * tasks run once the worker is free, without a shutdown to wake anyone.
 * Result: accepted, ran, sound.
 */
@JCStressTest
@Outcome(id = "1, 2, 1", expect = Expect.ACCEPTABLE, desc = "the caller was let in; both tasks ran")
@Outcome(expect = Expect.FORBIDDEN, desc = "the waiting caller was forgotten, a task lost or stranded, or counts off")
@State
public class QueueGrowVsWaiterTest {

    private final WorkerPool pool = WorkerPool.builder().name("jcs").capacity(1).queueCapacity(1)
            .blockingTimeout(Duration.ofSeconds(2)).disablePurge(true).build();
    private final AtomicInteger ran = new AtomicInteger();
    private volatile boolean release;

    public QueueGrowVsWaiterTest() {
        pool.execute(Jcs.blockUntil(() -> release, TimeUnit.SECONDS.toNanos(10)));
        pool.execute(ran::incrementAndGet); // fills the queue
    }

    @Actor
    public void submit(III_Result r) {
        r.r1 = Jcs.tryExecute(pool, ran::incrementAndGet);
    }

    @Actor
    public void grow() {
        pool.reconfigure(c -> c.withQueueCapacity(2));
    }

    @Arbiter
    public void check(III_Result r) {
        release = true;
        int expected = 1 + r.r1;
        Jcs.spinUntil(() -> ran.get() >= expected);
        r.r2 = Jcs.terminate(pool) ? ran.get() : -1;
        r.r3 = Jcs.soundAndAddsUp(pool);
    }
}
