package io.github.workerpool;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * The purger expiring an idle worker while execute() hands it a task: the hand-off and the
 * expiry never both take the worker. Result: accepted, expired, ran.
 */
@JCStressTest
@Outcome(id = "1, 0, 1", expect = Expect.ACCEPTABLE, desc = "hand-off took the worker before it expired")
@Outcome(id = "1, 1, 1", expect = Expect.ACCEPTABLE, desc = "worker expired; the task got a new one")
@Outcome(expect = Expect.FORBIDDEN, desc = "task lost, run twice, or the pool hung")
@State
public class ExpiryVsHandOffTest {

    private final AtomicLong clock = new AtomicLong();
    private final WorkerPool pool = WorkerPool.builder().name("jcs").capacity(2).disablePurge(true)
            .expiry(Duration.ofSeconds(1)).clock(clock::get).build();
    private final AtomicInteger ran = new AtomicInteger();

    public ExpiryVsHandOffTest() {
        Jcs.warmOneIdleWorker(pool);
        clock.addAndGet(TimeUnit.HOURS.toNanos(1));
    }

    @Actor
    public void submit(III_Result r) {
        r.r1 = Jcs.tryExecute(pool, ran::incrementAndGet);
    }

    @Actor
    public void expire(III_Result r) {
        r.r2 = pool.purgeExpired();
    }

    @Arbiter
    public void check(III_Result r) {
        r.r3 = Jcs.terminate(pool) ? ran.get() : -1;
    }
}
