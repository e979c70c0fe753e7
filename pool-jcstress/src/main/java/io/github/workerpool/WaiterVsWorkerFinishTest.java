package io.github.workerpool;

import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Expect;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

/**
 * A caller that finds the one worker busy and waits, racing that worker finishing and going
 * idle (spinner, idle stack, waiter queue): the caller is always let in, never left waiting.
 * Result: accepted, ran.
 */
@JCStressTest
@Outcome(id = "1, 1", expect = Expect.ACCEPTABLE, desc = "the waiting caller got the worker")
@Outcome(expect = Expect.FORBIDDEN, desc = "lost wake-up: the caller or task was stranded")
@State
public class WaiterVsWorkerFinishTest {

    private final WorkerPool pool = WorkerPool.builder().name("jcs").capacity(1).disablePurge(true).build();
    private final AtomicInteger ran = new AtomicInteger();
    private volatile boolean release;

    public WaiterVsWorkerFinishTest() {
        pool.execute(() -> {
            while (!release) {
                Thread.onSpinWait();
            }
        });
    }

    @Actor
    public void submit(II_Result r) {
        r.r1 = Jcs.tryExecute(pool, ran::incrementAndGet);
    }

    @Actor
    public void finish() {
        release = true;
    }

    @Arbiter
    public void check(II_Result r) {
        r.r2 = Jcs.terminate(pool) ? ran.get() : -1;
    }
}
