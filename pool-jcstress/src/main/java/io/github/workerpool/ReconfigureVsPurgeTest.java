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
 * purge() racing a reconfiguration that shrinks the capacity (3 to 1, stopping idle workers above
 * it), switches to nonblocking and changes the expiry, while one worker is parked idle and the
 * other is just finishing its task (it may be spinning, parking, or still busy): no worker is
 * stopped twice or counted wrong; afterwards the pool takes and runs a task, and once terminated
 * its structure is sound and its totals add up. Result: purged, ran afterwards, sound.
 */
@JCStressTest
@Outcome(id = "0, 1, 1", expect = Expect.ACCEPTABLE, desc = "the shrink stopped the idle worker; the other was still busy")
@Outcome(id = "1, 1, 1", expect = Expect.ACCEPTABLE, desc = "purge stopped one worker (the shrink or the busy one the other)")
@Outcome(id = "2, 1, 1", expect = Expect.ACCEPTABLE, desc = "purge stopped both idle workers first")
@Outcome(expect = Expect.FORBIDDEN, desc = "a worker stopped twice, the pool unusable or hung, or counts off")
@State
public class ReconfigureVsPurgeTest {

    private final WorkerPool pool = WorkerPool.builder().name("jcs").capacity(3).disablePurge(true).build();
    private final AtomicInteger ran = new AtomicInteger();
    private volatile boolean release;

    public ReconfigureVsPurgeTest() {
        Jcs.warmIdleWorkers(pool, 2);
        pool.execute(Jcs.blockUntil(() -> release, TimeUnit.SECONDS.toNanos(10))); // one of them takes it
    }

    @Actor
    public void purge(III_Result r) {
        r.r1 = pool.purge();
    }

    @Actor
    public void reconfigure() {
        release = true;
        pool.reconfigure(c -> c.withCapacity(1).withNonblocking(true).withExpiry(java.time.Duration.ofSeconds(30)));
    }

    @Arbiter
    public void check(III_Result r) {
        // The pool must still serve: a nonblocking caller may find the one slot still taken for a moment.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (Jcs.tryExecute(pool, ran::incrementAndGet) == 0 && System.nanoTime() - deadline < 0) {
            Thread.onSpinWait();
        }
        Jcs.spinUntil(() -> ran.get() > 0);
        r.r2 = Jcs.terminate(pool) ? ran.get() : -1;
        r.r3 = Jcs.soundAndAddsUp(pool);
    }
}
