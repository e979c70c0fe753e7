package io.github.workerpool.pipeline;

import java.time.Duration;
import java.util.List;
import java.util.function.UnaryOperator;

import io.github.workerpool.ForwardingPool;
import io.github.workerpool.Pool;
import io.github.workerpool.PoolConfig;

/**
 * A pipeline's pool as others see it ({@link Pipeline#pool()}): every figure, the listeners and
 * purge, but no change to its size or lifecycle, which the pipeline owns (its capacity is the sum
 * of the stages' limits, so that every admitted batch has a worker). Its listeners are told of
 * this view (ForwardingPool): told of the pool underneath, they could close or resize it
 * (releaseNow() would drop admitted batches and leave await() and close() waiting for ever).
 */
final class OwnedPool extends ForwardingPool {

    private final Pool pool;

    private final String owner;

    OwnedPool(Pool pool, String owner) {
        this.pool = pool;
        this.owner = owner;
    }

    @Override
    protected Pool delegate() {
        return pool;
    }

    private IllegalStateException owned(String what) {
        return new IllegalStateException("pool '" + pool.name() + "' belongs to pipeline '" + owner + "', which "
                + what + "; change the pipeline's stage concurrency, or close the pipeline, instead");
    }

    /** @throws IllegalStateException always: the pipeline sizes its pool */
    @Override
    public void tune(int capacity) {
        throw owned("sizes it to the sum of its stages' concurrency");
    }

    /** @throws IllegalStateException always: the pipeline sizes its pool */
    @Override
    public PoolConfig reconfigure(UnaryOperator<PoolConfig> change) {
        throw owned("sizes and configures it");
    }

    /** @throws IllegalStateException always: the pipeline closes its pool */
    @Override
    public void release() {
        throw owned("closes it when it is closed");
    }

    /** @throws IllegalStateException always: the pipeline closes its pool */
    @Override
    public List<?> releaseNow() {
        throw owned("closes it when it is closed");
    }

    /** @throws IllegalStateException always: the pipeline closes its pool */
    @Override
    public boolean releaseTimeout(Duration timeout) {
        throw owned("closes it when it is closed");
    }

    /** @throws IllegalStateException always: the pipeline's pool is rebooted only by a new pipeline */
    @Override
    public void reboot() {
        throw owned("closes it for good when it is closed");
    }

    /** @throws IllegalStateException always: the pipeline closes its pool */
    @Override
    public void close() {
        throw owned("closes it when it is closed");
    }

    @Override
    public String toString() {
        return "pool of pipeline '" + owner + "': " + pool;
    }
}
