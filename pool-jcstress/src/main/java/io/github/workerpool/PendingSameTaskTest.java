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
 * Two callers submit the same Runnable while the one worker finishes its task: each leaves the
 * object in a pending slot (HandOffEngine's notes), where the worker takes one, a caller may take
 * back the other's copy, and whoever is left waits. Each submission runs once, and the pool's
 * structure and totals add up. Result: first accepted, second accepted, ran, sound.
 */
@JCStressTest
@Outcome(id = "1, 1, 2, 1", expect = Expect.ACCEPTABLE, desc = "both submissions ran once")
@Outcome(expect = Expect.FORBIDDEN, desc = "a submission lost, run twice, a caller stranded, or a slot left full")
@State
public class PendingSameTaskTest {

    private final WorkerPool pool = WorkerPool.builder().name("jcs").capacity(1).disablePurge(true).build();
    private final AtomicInteger ran = new AtomicInteger();
    private final Runnable task = ran::incrementAndGet;
    private volatile boolean release;

    public PendingSameTaskTest() {
        pool.execute(Jcs.blockUntil(() -> release, 10_000_000_000L));
    }

    @Actor
    public void first(IIII_Result r) {
        r.r1 = Jcs.tryExecute(pool, task);
    }

    @Actor
    public void second(IIII_Result r) {
        r.r2 = Jcs.tryExecute(pool, task);
    }

    @Actor
    public void finish() {
        release = true;
    }

    @Arbiter
    public void check(IIII_Result r) {
        r.r3 = Jcs.terminate(pool) ? ran.get() : -1;
        r.r4 = Jcs.soundAndAddsUp(pool);
    }
}
