package io.github.workerpool;

import java.util.concurrent.RejectedExecutionException;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.ModelCheckingOptions;
import org.junit.jupiter.api.Test;

/**
 * Lincheck model checking of the pool's state transitions and levels with a small capacity:
 * every interleaving of tune, purge, release, reboot and the level reads must be explainable by
 * some sequential order of the same calls. Slow (minutes), so it runs with the reliability
 * command in the README rather than in the normal build.
 */
@Param(name = "capacity", gen = IntGen.class, conf = "1:3")
public class WorkerPoolLincheckTest {

    private final WorkerPool pool = WorkerPool.builder().name("lin").capacity(2).nonblocking(true)
            .queueCapacity(1000).disablePurge(true).build();

    @Operation
    public int tune(@Param(name = "capacity") int capacity) {
        pool.tune(capacity);
        return 0;
    }

    @Operation
    public int capacity() {
        return pool.capacity();
    }

    @Operation
    public int free() {
        return pool.free();
    }

    @Operation
    public int purge() {
        return pool.purge();
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

    /** Accepted exactly when the pool is open: a closed pool rejects, an open one never does (unbounded). */
    @Operation
    public String trySubmit() {
        try {
            pool.execute(() -> { });
            return "accepted";
        } catch (RejectedExecutionException e) {
            return "rejected";
        }
    }

    @Test
    void modelChecking() {
        new ModelCheckingOptions().iterations(20).invocationsPerIteration(300).check(getClass());
    }
}
