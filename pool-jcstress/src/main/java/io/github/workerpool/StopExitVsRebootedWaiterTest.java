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
 * A hand-off pool of one, after shutdownNow() while its worker runs a task that ignores the
 * interrupt: the task ending (its worker then sees STOP and leaves) races a reboot() followed by
 * a caller. Whichever comes first, the caller gets a worker: the old one (rebooted in time), or a
 * new one. Found by a review: a worker that had seen STOP still counted when the caller looked,
 * the caller waited for it, and it left without a replacement, so the caller waited out its
 * blockingTimeout with the pool's capacity free.
 * Result: the caller's task accepted, and run.
 */
@JCStressTest
@Outcome(id = "1, 1", expect = Expect.ACCEPTABLE, desc = "the caller got a worker")
@Outcome(expect = Expect.FORBIDDEN, desc = "refused, or never run, with the capacity free")
@State
public class StopExitVsRebootedWaiterTest {

    private final WorkerPool pool = WorkerPool.builder().name("jcs").capacity(1).spinNanos(0)
            .blockingTimeout(Duration.ofSeconds(2)).build();
    private final AtomicInteger ran = new AtomicInteger();
    private volatile boolean gate;

    public StopExitVsRebootedWaiterTest() {
        AtomicInteger started = new AtomicInteger();
        Runnable hold = Jcs.blockUntil(() -> gate, TimeUnit.SECONDS.toNanos(10));
        pool.execute(() -> {
            started.set(1);
            hold.run(); // spins through shutdownNow's interrupt
        });
        if (!Jcs.spinUntil(() -> started.get() == 1)) {
            throw new IllegalStateException("the task did not start: " + pool);
        }
        pool.shutdownNow();
    }

    @Actor
    public void taskEnds() {
        gate = true;
    }

    @Actor
    public void rebootAndSubmit(II_Result r) {
        pool.reboot();
        r.r1 = Jcs.tryExecute(pool, ran::incrementAndGet);
    }

    @Arbiter
    public void check(II_Result r) {
        r.r2 = Jcs.terminate(pool) ? ran.get() : -1;
    }
}
