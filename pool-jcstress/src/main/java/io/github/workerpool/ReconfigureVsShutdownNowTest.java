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
 * shutdownNow() racing a reconfiguration that grows the capacity (1 to 2: a task-less worker is
 * made under the lock and started after it, for the queued task) and the queue (2 to 3), while the
 * busy worker finishes: the queued task either runs (on the new worker or the old one) or is
 * returned by shutdownNow, never both, never neither; the pool terminates (no worker started for
 * a stopped pool is left behind) with a sound structure and totals that add up.
 * Result: returned, ran, sound.
 */
@JCStressTest
@Outcome(id = "1, 0, 1", expect = Expect.ACCEPTABLE, desc = "the queued task was returned by shutdownNow")
@Outcome(id = "0, 1, 1", expect = Expect.ACCEPTABLE, desc = "the queued task ran before the stop")
@Outcome(expect = Expect.FORBIDDEN, desc = "lost, duplicated, hung, or counts that do not add up")
@State
public class ReconfigureVsShutdownNowTest {

    private final WorkerPool pool = WorkerPool.builder().name("jcs").capacity(1).queueCapacity(2)
            .disablePurge(true).build();
    private final AtomicInteger ran = new AtomicInteger();
    private volatile boolean release;

    public ReconfigureVsShutdownNowTest() {
        pool.execute(Jcs.blockUntil(() -> release, TimeUnit.SECONDS.toNanos(10)));
        pool.execute(ran::incrementAndGet); // queued behind the busy worker
    }

    @Actor
    public void reconfigure() {
        pool.reconfigure(c -> c.withCapacity(2).withQueueCapacity(3));
    }

    @Actor
    public void stop(III_Result r) {
        release = true;
        r.r1 = pool.shutdownNow().size();
    }

    @Arbiter
    public void check(III_Result r) {
        r.r2 = Jcs.terminate(pool) ? ran.get() : -1;
        r.r3 = Jcs.soundAndAddsUp(pool);
    }
}
