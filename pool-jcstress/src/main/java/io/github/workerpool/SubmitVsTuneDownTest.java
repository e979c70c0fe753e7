package io.github.workerpool;

import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

/** execute() racing tune(1): the task is accepted and runs, and the new capacity holds. Result: accepted, ran, capacity. */
@JCStressTest
@Outcome(id = "1, 1, 1", expect = Expect.ACCEPTABLE, desc = "accepted, ran, capacity 1")
@Outcome(expect = Expect.FORBIDDEN, desc = "lost, rejected, hung, or capacity wrong")
@State
public class SubmitVsTuneDownTest {

    private final WorkerPool pool = WorkerPool.builder().name("jcs").capacity(2).disablePurge(true).build();
    private final AtomicInteger ran = new AtomicInteger();

    @Actor
    public void submit(III_Result r) {
        r.r1 = Jcs.tryExecute(pool, ran::incrementAndGet);
    }

    @Actor
    public void tune() {
        pool.tune(1);
    }

    @Arbiter
    public void check(III_Result r) {
        boolean terminated = Jcs.terminate(pool);
        r.r2 = terminated ? ran.get() : -1;
        r.r3 = pool.capacity();
    }
}
