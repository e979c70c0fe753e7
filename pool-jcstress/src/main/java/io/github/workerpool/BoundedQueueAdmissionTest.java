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
 * A bounded queue's admission without a counter shared with the workers: producers take slots
 * in `admitted` against a `taken` count they may have read stale. Two nonblocking producers race
 * for the last slot of a queue of one while the only worker is busy: exactly one gets in, and
 * the totals add up afterwards. Result: first accepted, second accepted, ran, sound and adds up.
 */
@JCStressTest
@Outcome(id = "1, 0, 1, 1", expect = Expect.ACCEPTABLE, desc = "the first took the slot")
@Outcome(id = "0, 1, 1, 1", expect = Expect.ACCEPTABLE, desc = "the second took the slot")
@Outcome(expect = Expect.FORBIDDEN, desc = "both or neither got in, a task was lost, or the totals do not add up")
@State
public class BoundedQueueAdmissionTest {

    private final WorkerPool pool = WorkerPool.builder().name("jcs").capacity(1).queueCapacity(1)
            .nonblocking(true).disablePurge(true).build();
    private final AtomicInteger ran = new AtomicInteger();
    private volatile boolean release;

    public BoundedQueueAdmissionTest() {
        pool.execute(() -> {
            while (!release) {
                Thread.onSpinWait();
            }
        });
    }

    @Actor
    public void first(IIII_Result r) {
        r.r1 = Jcs.tryExecute(pool, ran::incrementAndGet);
    }

    @Actor
    public void second(IIII_Result r) {
        r.r2 = Jcs.tryExecute(pool, ran::incrementAndGet);
    }

    @Arbiter
    public void check(IIII_Result r) {
        release = true;
        r.r3 = Jcs.terminate(pool) ? ran.get() : -1;
        r.r4 = Jcs.soundAndAddsUp(pool);
    }
}
