package io.github.workerpool;

import java.time.Duration;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.junit.jupiter.api.Test;

/**
 * Lincheck model checking of the pool's state transitions and levels with a small capacity:
 * every interleaving of tune, reconfigure (capacity, nonblocking, maxBlockingTasks,
 * blockingTimeout and queueTimeout changed at once; its result is the options it applied), purge,
 * release, reboot and the level reads must be explainable by some sequential order of the same
 * calls. Submission is not among the operations: the workers it
 * starts outlive the operations (idle workers wait for work), which Lincheck reports as a hang;
 * submission races are the jcstress tests' job. About 20 s, so it runs in the normal build.
 */
@Param(name = "capacity", gen = IntGen.class, conf = "1:3")
public class WorkerPoolLincheckTest {

    private final WorkerPool pool = WorkerPool.builder().name("lin").capacity(2).disablePurge(true).build();

    @Operation
    public int tune(@Param(name = "capacity") int capacity) {
        pool.tune(capacity);
        return 0;
    }

    /**
     * Several options at once, by capacity: 3 is a wide nonblocking pool with waiting limits, 1 a
     * narrow blocking one with task timeouts, 2 the options as built.
     */
    @Operation
    public PoolConfig reconfigure(@Param(name = "capacity") int capacity) {
        return pool.reconfigure(c -> c.withCapacity(capacity).withNonblocking(capacity == 3)
                .withMaxBlockingTasks(capacity == 3 ? 2 : 0)
                .withBlockingTimeout(capacity == 3 ? Duration.ofMillis(5) : null)
                .withQueueTimeout(capacity == 1 ? Duration.ofSeconds(1) : null));
    }

    @Operation
    public int capacity() {
        return pool.capacity();
    }

    @Operation
    public int purge() {
        return pool.purge();
    }

    @Operation
    public int free() {
        return pool.free();
    }

    @Operation
    public void release() {
        pool.release();
    }

    @Operation
    public void reboot() {
        pool.reboot();
    }

    @Operation
    public boolean isClosed() {
        return pool.isClosed();
    }

    @Test
    void modelChecking() {
        // 5 scenarios in the normal build (about 20 s; it must stay under 10 minutes);
        // -Dlincheck.iterations=20 or more for a longer search.
        new ModelCheckingOptions().iterations(Integer.getInteger("lincheck.iterations", 5)).invocationsPerIteration(300)
            .check(getClass());
    }
}
