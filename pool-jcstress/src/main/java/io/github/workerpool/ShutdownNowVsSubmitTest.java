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
 * shutdownNow() racing execute() into the queue while the only worker finishes its task: an
 * accepted task either runs or is returned by shutdownNow, never both, never neither.
 * Result: accepted, returned, ran.
 */
@JCStressTest
@Outcome(id = "1, 0, 1", expect = Expect.ACCEPTABLE, desc = "accepted and ran")
@Outcome(id = "1, 1, 0", expect = Expect.ACCEPTABLE, desc = "accepted and returned by shutdownNow")
@Outcome(id = "0, 0, 0", expect = Expect.ACCEPTABLE, desc = "rejected: the pool was already stopped")
@Outcome(expect = Expect.FORBIDDEN, desc = "lost, duplicated, or hung")
@State
public class ShutdownNowVsSubmitTest {

    private final WorkerPool pool = WorkerPool.builder().name("jcs").capacity(1).queueCapacity(1)
            .disablePurge(true).build();
    private final AtomicInteger ran = new AtomicInteger();
    private volatile boolean release;

    public ShutdownNowVsSubmitTest() {
        pool.execute(() -> {
            while (!release) {
                Thread.onSpinWait();
            }
        });
    }

    @Actor
    public void submit(III_Result r) {
        r.r1 = Jcs.tryExecute(pool, ran::incrementAndGet);
    }

    @Actor
    public void stop(III_Result r) {
        release = true;
        r.r2 = pool.shutdownNow().size();
    }

    @Arbiter
    public void check(III_Result r) {
        r.r3 = Jcs.terminate(pool) ? ran.get() : -1;
    }
}
