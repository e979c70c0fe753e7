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
 * A caller that leaves its task pending (the one worker is busy) races that worker finishing and,
 * right after, a shutdown: the worker takes the task and runs it, or the caller takes it back and
 * is rejected; never both, never neither. Result: accepted, ran, sound.
 */
@JCStressTest
@Outcome(id = "1, 1, 1", expect = Expect.ACCEPTABLE, desc = "accepted before the shutdown, and ran")
@Outcome(id = "0, 0, 1", expect = Expect.ACCEPTABLE, desc = "rejected by the shutdown, and never ran")
@Outcome(expect = Expect.FORBIDDEN, desc = "lost, run though rejected, hung, or a slot left full")
@State
public class PendingVsShutdownTest {

    private final WorkerPool pool = WorkerPool.builder().name("jcs").capacity(1).disablePurge(true).build();
    private final AtomicInteger ran = new AtomicInteger();
    private volatile boolean release;

    public PendingVsShutdownTest() {
        pool.execute(Jcs.blockUntil(() -> release, 10_000_000_000L));
    }

    @Actor
    public void submit(III_Result r) {
        r.r1 = Jcs.tryExecute(pool, ran::incrementAndGet);
    }

    @Actor
    public void finishThenShutdown() {
        release = true; // one actor for both: jcstress on two CPUs runs no more than two
        pool.shutdown();
    }

    @Arbiter
    public void check(III_Result r) {
        r.r2 = Jcs.terminate(pool) ? ran.get() : -1;
        r.r3 = Jcs.soundAndAddsUp(pool);
    }
}
