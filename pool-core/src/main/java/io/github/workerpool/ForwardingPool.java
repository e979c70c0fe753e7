package io.github.workerpool;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.UnaryOperator;

/**
 * A {@link Pool} that forwards every call to another, for wrappers that change a few calls and
 * keep the rest: override those, as Guava's {@code ForwardingExecutorService} is used. The
 * listeners added through a wrapper are told of the wrapper, not of the pool under it (as
 * {@link FunctionPool}'s and {@link MultiPool}'s are told of them): a listener that acts on the
 * pool it is told of goes through the wrapper's overrides.
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

    /** The listeners added here, each with the one the delegate calls; guarded by itself. */
    private final List<Told> told = new ArrayList<>();

    /** Constructor for subclasses. */
    protected ForwardingPool() {
    }

    /**
     * Returns the pool every call goes to; may change from call to call. A listener, though, is
     * added to the delegate of the moment ({@link #addListener}) and hears nothing from a later
     * one: a subclass whose delegate changes overrides {@code addListener} and
     * {@code removeListener} to put its listeners on each new delegate.
     */
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

    /**
     * Adds the listener to the delegate of the moment, told of this pool instead of the delegate
     * (see {@link #delegate()} for a delegate that changes).
     */
    @Override
    public void addListener(PoolListener listener) {
        Objects.requireNonNull(listener, "listener");
        Pool d = delegate(); // a subclass's, which may take locks of its own: not under the monitor
        synchronized (told) { // with the delegate's change, so that a remove meanwhile finds both or neither
            Told t = new Told(listener, this, d);
            t.delegate.addListener(t);
            told.add(t);
        }
    }

    /** Removes a listener added here (its first addition, if it was added more than once). */
    @Override
    public void removeListener(PoolListener listener) {
        synchronized (told) {
            for (int i = 0; i < told.size(); i++) {
                Told t = told.get(i);
                if (t.listener == listener) {
                    told.remove(i);
                    t.delegate.removeListener(t); // the pool it was added to, should delegate() have changed since
                    return;
                }
            }
        }
    }

    /** A listener as the delegate calls it: told of the forwarding pool. */
    private static final class Told implements PoolListener {

        final PoolListener listener;
        private final Pool source;
        final Pool delegate;

        Told(PoolListener listener, Pool source, Pool delegate) {
            this.listener = listener;
            this.source = source;
            this.delegate = delegate;
        }

        /** The listener's own: the pool's warning about a listener that threw names it. */
        @Override
        public String toString() {
            return String.valueOf(listener);
        }

        @Override
        public void taskStarted(Pool pool, long queuedNanos) {
            listener.taskStarted(source, queuedNanos);
        }

        @Override
        public void taskEnded(Pool pool, long runNanos, Throwable failure) {
            listener.taskEnded(source, runNanos, failure);
        }

        @Override
        public void taskRejected(Pool pool, RejectedExecutionException rejection) {
            listener.taskRejected(source, rejection);
        }

        @Override
        public void queueTimedOut(Pool pool, long queuedNanos) {
            listener.queueTimedOut(source, queuedNanos);
        }

        @Override
        public void runTimedOut(Pool pool, long runNanos) {
            listener.runTimedOut(source, runNanos);
        }
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
