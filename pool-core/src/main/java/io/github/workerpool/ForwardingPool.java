package io.github.workerpool;

import java.time.Duration;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * A {@link Pool} that forwards every call to another, for wrappers that change a few calls and
 * keep the rest: override those, as Guava's {@code ForwardingExecutorService} is used. The
 * listeners a wrapper adds are told of the pool that runs the task, unless it overrides
 * {@link #addListener}.
 *
 * <pre>{@code
 * final class AuditedPool extends ForwardingPool {
 *     private final Pool pool;
 *     AuditedPool(Pool pool) { this.pool = pool; }
 *     protected Pool delegate() { return pool; }
 *     public void tune(int capacity) { audit("tune", capacity); super.tune(capacity); }
 * }
 * }</pre>
 */
public abstract class ForwardingPool implements Pool {

    /** Constructor for subclasses. */
    protected ForwardingPool() {
    }

    /** Returns the pool every call goes to; may change from call to call. */
    protected abstract Pool delegate();

    @Override
    public String name() {
        return delegate().name();
    }

    @Override
    public int capacity() {
        return delegate().capacity();
    }

    @Override
    public int running() {
        return delegate().running();
    }

    @Override
    public int idle() {
        return delegate().idle();
    }

    @Override
    public int free() {
        return delegate().free();
    }

    @Override
    public int waiting() {
        return delegate().waiting();
    }

    @Override
    public int queued() {
        return delegate().queued();
    }

    @Override
    public int queueCapacity() {
        return delegate().queueCapacity();
    }

    @Override
    public PoolStats stats() {
        return delegate().stats();
    }

    @Override
    public PoolConfig config() {
        return delegate().config();
    }

    @Override
    public void tune(int capacity) {
        delegate().tune(capacity);
    }

    @Override
    public PoolConfig reconfigure(UnaryOperator<PoolConfig> change) {
        return delegate().reconfigure(change);
    }

    @Override
    public int purge() {
        return delegate().purge();
    }

    @Override
    public void addListener(PoolListener listener) {
        delegate().addListener(listener);
    }

    @Override
    public void removeListener(PoolListener listener) {
        delegate().removeListener(listener);
    }

    @Override
    public void release() {
        delegate().release();
    }

    @Override
    public List<?> releaseNow() {
        return delegate().releaseNow();
    }

    @Override
    public boolean releaseTimeout(Duration timeout) throws InterruptedException {
        return delegate().releaseTimeout(timeout);
    }

    @Override
    public boolean awaitTermination(Duration timeout) throws InterruptedException {
        return delegate().awaitTermination(timeout);
    }

    @Override
    public void reboot() {
        delegate().reboot();
    }

    @Override
    public boolean isClosed() {
        return delegate().isClosed();
    }

    @Override
    public boolean isTerminated() {
        return delegate().isTerminated();
    }

    @Override
    public void close() {
        delegate().close();
    }

    @Override
    public String toString() {
        return delegate().toString();
    }
}
