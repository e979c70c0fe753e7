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
 * release() racing reboot() on a pool with an idle worker: the pool ends either closed (reboot
 * came first and did nothing) or open (release then reboot), and behaves accordingly: a task
 * offered afterwards is rejected by a closed pool and runs on an open one.
 * Result: closed, accepted afterwards, ran.
 */
@JCStressTest
@Outcome(id = "1, 0, 0", expect = Expect.ACCEPTABLE, desc = "reboot first (no-op), then release: closed")
@Outcome(id = "0, 1, 1", expect = Expect.ACCEPTABLE, desc = "release, then reboot: open and working")
@Outcome(expect = Expect.FORBIDDEN, desc = "state and behaviour disagree, or hung")
@State
public class RebootVsReleaseTest {

    private final WorkerPool pool = WorkerPool.builder().name("jcs").capacity(2).disablePurge(true).build();
    private final AtomicInteger ran = new AtomicInteger();

    public RebootVsReleaseTest() {
        Jcs.warmOneIdleWorker(pool);
    }

    @Actor
    public void release() {
        pool.release();
    }

    @Actor
    public void reboot() {
        pool.reboot();
    }

    @Arbiter
    public void check(III_Result r) {
        r.r1 = pool.isClosed() ? 1 : 0;
        r.r2 = Jcs.tryExecute(pool, ran::incrementAndGet);
        r.r3 = Jcs.terminate(pool) ? ran.get() : -1;
    }
}
