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
 * Two callers submit the same Runnable to a nonblocking pool whose one worker finishes its task
 * meanwhile, both through one pending slot (HandOffEngine's notes): a caller must never take the
 * other's copy for its own. Each caller marks a flag before it submits; a caller that is
 * accepted must have a run that saw its flag (what it did before submitting happens-before the
 * run), and the runs are as many as the acceptances. Result: first accepted, second accepted,
 * runs, 1 if every accepted caller's flag was seen by a run and the pool's totals add up.
 */
@JCStressTest
@Outcome(id = {"1, 1, 2, 1", "1, 0, 1, 1", "0, 1, 1, 1", "0, 0, 0, 1"}, expect = Expect.ACCEPTABLE,
        desc = "each accepted submission ran, after its caller's flag")
@Outcome(expect = Expect.FORBIDDEN, desc = "an accepted submission's run did not see its caller, a run lost or doubled, or a slot left full")
@State
public class PendingSameTaskTest {

    private final WorkerPool pool = WorkerPool.builder().name("jcs").capacity(1).nonblocking(true)
            .disablePurge(true).build();
    private final AtomicInteger ran = new AtomicInteger();
    private final AtomicInteger sawFirst = new AtomicInteger();
    private final AtomicInteger sawSecond = new AtomicInteger();
    private int first;  // plain: only the pool's hand-off makes them visible to the run
    private int second;
    private final Runnable task = () -> {
        ran.incrementAndGet();
        sawFirst.addAndGet(first);
        sawSecond.addAndGet(second);
    };
    private volatile boolean release;

    public PendingSameTaskTest() {
        ((HandOffEngine) pool.engine()).usePendingSlots(1);
        pool.execute(Jcs.blockUntil(() -> release, 10_000_000_000L));
    }

    @Actor
    public void first(IIII_Result r) {
        first = 1;
        r.r1 = Jcs.tryExecute(pool, task);
    }

    @Actor
    public void second(IIII_Result r) {
        release = true; // the worker finishes while the two submit (two actors: jcstress on two CPUs runs no more)
        second = 1;
        r.r2 = Jcs.tryExecute(pool, task);
    }

    @Arbiter
    public void check(IIII_Result r) {
        r.r3 = Jcs.terminate(pool) ? ran.get() : -1;
        boolean seen = (r.r1 == 0 || sawFirst.get() > 0) && (r.r2 == 0 || sawSecond.get() > 0);
        r.r4 = seen && r.r3 == r.r1 + r.r2 && Jcs.soundAndAddsUp(pool) == 1 ? 1 : 0;
    }
}
