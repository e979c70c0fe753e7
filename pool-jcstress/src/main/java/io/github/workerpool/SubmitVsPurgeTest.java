package io.github.workerpool;

import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/**
 * execute() racing purge() of the one idle worker it may be handing the task to: either the
 * task got the worker first (purge finds nothing) or purge won (the task gets a new worker);
 * the task runs exactly once either way. Result: accepted, purged, ran.
 */
@JCStressTest
@Outcome(id = "1, 0, 1", expect = Expect.ACCEPTABLE, desc = "task took the idle worker first")
@Outcome(id = "1, 1, 1", expect = Expect.ACCEPTABLE, desc = "purge stopped the idle worker; the task got a new one")
@Outcome(expect = Expect.FORBIDDEN, desc = "task lost, run twice, or the pool hung")
@State
public class SubmitVsPurgeTest {

    private final WorkerPool pool = WorkerPool.builder().name("jcs").capacity(2).disablePurge(true).build();
    private final AtomicInteger ran = new AtomicInteger();

    public SubmitVsPurgeTest() {
        Jcs.warmOneIdleWorker(pool);
    }

    @Actor
    public void submit(III_Result r) {
        r.r1 = Jcs.tryExecute(pool, ran::incrementAndGet);
    }

    @Actor
    public void purge(III_Result r) {
        r.r2 = pool.purge();
    }

    @Arbiter
    public void check(III_Result r) {
        r.r3 = Jcs.terminate(pool) ? ran.get() : -1;
    }
}
