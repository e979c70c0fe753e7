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
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * A caller waiting for the only worker (no blockingTimeout, no spinning, so it parks at once)
 * racing a reconfiguration to blockingTimeout 0, made as soon as the caller is registered as
 * waiting, i.e. while it is on its way to park: the new timeout must reach it (reconfigure wakes
 * waiting callers to re-check), so it is rejected. The busy task ends by itself 1 s after the
 * reconfiguration returned, so a caller the new timeout missed is let in then instead of hanging
 * the test: "accepted" means the caller still waited 1 s after its timeout had become 0.
 * Result: accepted, sound.
 */
@JCStressTest
@Outcome(id = "0, 1", expect = Expect.ACCEPTABLE, desc = "rejected by the new timeout")
@Outcome(id = "1, 1", expect = Expect.FORBIDDEN, desc = "lost nudge: the caller kept waiting past the new timeout")
@Outcome(expect = Expect.FORBIDDEN, desc = "hung, or counts that do not add up")
@State
public class BlockingTimeoutVsWaiterTest {

    private final WorkerPool pool = WorkerPool.builder().name("jcs").capacity(1).spinNanos(0)
            .disablePurge(true).build();
    private final AtomicInteger ran = new AtomicInteger();
    private volatile boolean release;
    private volatile long reconfigured; // nanoTime when the reconfiguration returned; 0 before

    public BlockingTimeoutVsWaiterTest() {
        pool.execute(Jcs.blockUntil(() -> release || (reconfigured != 0
                && System.nanoTime() - reconfigured > TimeUnit.SECONDS.toNanos(1)), TimeUnit.SECONDS.toNanos(60)));
    }

    @Actor
    public void submit(II_Result r) {
        r.r1 = Jcs.tryExecute(pool, ran::incrementAndGet);
    }

    @Actor
    public void timeout() {
        Jcs.spinUntil(() -> pool.waiting() > 0 || ran.get() > 0);
        pool.reconfigure(c -> c.withBlockingTimeout(Duration.ZERO));
        reconfigured = System.nanoTime();
    }

    @Arbiter
    public void check(II_Result r) {
        release = true;
        r.r2 = Jcs.terminate(pool) ? Jcs.soundAndAddsUp(pool) : -1;
    }
}
