package io.github.workerpool;

import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.IIII_Result;

/**
 * An unbounded queue, which counts its tasks per submitting thread (offers), per worker (polls)
 * and per drain: shutdownNow() racing execute() into the queue while the only worker finishes
 * its task. An accepted task either runs or is returned, and the totals add up afterwards (the
 * task taken back by its producer, or returned, is counted once, as submitted and as rejected or
 * cancelled). Result: accepted, returned, ran, sound and adds up.
 */
@JCStressTest
@Outcome(id = "1, 0, 1, 1", expect = Expect.ACCEPTABLE, desc = "accepted and ran")
@Outcome(id = "1, 1, 0, 1", expect = Expect.ACCEPTABLE, desc = "accepted and returned by shutdownNow")
@Outcome(id = "0, 0, 0, 1", expect = Expect.ACCEPTABLE, desc = "rejected: the pool was already stopped")
@Outcome(expect = Expect.FORBIDDEN, desc = "lost, duplicated, hung, or the totals do not add up")
@State
public class UnboundedShutdownNowVsSubmitTest {

    private final WorkerPool pool = WorkerPool.builder().name("jcs").capacity(1).queueCapacity(Integer.MAX_VALUE)
            .disablePurge(true).build();
    private final AtomicInteger ran = new AtomicInteger();
    private volatile boolean release;

    public UnboundedShutdownNowVsSubmitTest() {
        pool.execute(() -> {
            while (!release) {
                Thread.onSpinWait();
            }
        });
    }

    @Actor
    public void submit(IIII_Result r) {
        r.r1 = Jcs.tryExecute(pool, ran::incrementAndGet);
    }

    @Actor
    public void stop(IIII_Result r) {
        release = true;
        r.r2 = pool.shutdownNow().size();
    }

    @Arbiter
    public void check(IIII_Result r) {
        r.r3 = Jcs.terminate(pool) ? ran.get() : -1;
        r.r4 = Jcs.soundAndAddsUp(pool);
    }
}
