package io.github.workerpool;

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
 * execute() racing a reconfiguration that grows the capacity (1 to 2: a new worker starts for
 * the queued task) and shrinks the queue (2 to 1) of a nonblocking pool whose only worker is busy
 * and whose queue holds one task: the new task is either accepted and runs, or rejected; the
 * queued task runs either way; nothing is lost, and once terminated the structure is sound and
 * the totals add up. The arbiter waits for the tasks before shutting down (shutdown would wake
 * every worker and hide a lost wake-up). Result: accepted, ran (queued task included), sound.
 */
@JCStressTest
@Outcome(id = "1, 2, 1", expect = Expect.ACCEPTABLE, desc = "accepted (new worker, queue or idle worker) and ran")
@Outcome(id = "0, 1, 1", expect = Expect.ACCEPTABLE, desc = "rejected: the shrunk queue was full and no worker free")
@Outcome(expect = Expect.FORBIDDEN, desc = "lost, run twice, stranded, hung, or counts that do not add up")
@State
public class ReconfigureVsSubmitTest {

    private final WorkerPool pool = WorkerPool.builder().name("jcs").capacity(1).queueCapacity(2)
            .nonblocking(true).disablePurge(true).build();
    private final AtomicInteger ran = new AtomicInteger();
    private volatile boolean release;

    public ReconfigureVsSubmitTest() {
        pool.execute(Jcs.blockUntil(() -> release, TimeUnit.SECONDS.toNanos(10)));
        pool.execute(ran::incrementAndGet); // queued behind the busy worker
    }

    @Actor
    public void submit(III_Result r) {
        r.r1 = Jcs.tryExecute(pool, ran::incrementAndGet);
    }

    @Actor
    public void reconfigure() {
        pool.reconfigure(c -> c.withCapacity(2).withQueueCapacity(1));
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
