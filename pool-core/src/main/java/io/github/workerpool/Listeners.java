package io.github.workerpool;

import java.util.Arrays;
import java.util.concurrent.RejectedExecutionException;

/**
 * The listeners of a pool, as an immutable array replaced on every change (copy on write), so
 * the per-task path reads one volatile field and, with no listener, finds null. Each listener
 * is called with the pool it was added to (a FunctionPool or MultiPool rather than the
 * WorkerPool underneath). A listener that throws is logged, at most once a minute per listener
 * (one that throws on every task must not hide another's failures: the starter adds its own for
 * meters, events and adaptive sizing), and otherwise ignored.
 */
final class Listeners {

    private final PoolListener[] listeners;
    private final Pool[] sources;
    private final RateLimitedLog[] logs;

    private Listeners(PoolListener[] listeners, Pool[] sources, RateLimitedLog[] logs) {
        this.listeners = listeners;
        this.sources = sources;
        this.logs = logs;
    }

    /** The listeners with one more; {@code current} may be null. */
    static Listeners with(Listeners current, PoolListener listener, Pool source) {
        if (current == null) {
            return new Listeners(new PoolListener[] {listener}, new Pool[] {source},
                    new RateLimitedLog[] {new RateLimitedLog()});
        }
        int n = current.listeners.length;
        PoolListener[] ls = Arrays.copyOf(current.listeners, n + 1);
        Pool[] ss = Arrays.copyOf(current.sources, n + 1);
        RateLimitedLog[] gs = Arrays.copyOf(current.logs, n + 1);
        ls[n] = listener;
        ss[n] = source;
        gs[n] = new RateLimitedLog();
        return new Listeners(ls, ss, gs);
    }

    /** The listeners without the first occurrence of {@code listener} told of {@code source}; null if none is left. */
    static Listeners without(Listeners current, PoolListener listener, Pool source) {
        if (current == null) {
            return null;
        }
        PoolListener[] ls = current.listeners;
        for (int i = 0; i < ls.length; i++) {
            if (ls[i] == listener && current.sources[i] == source) {
                if (ls.length == 1) {
                    return null;
                }
                PoolListener[] nl = new PoolListener[ls.length - 1];
                Pool[] ns = new Pool[ls.length - 1];
                RateLimitedLog[] ng = new RateLimitedLog[ls.length - 1];
                System.arraycopy(ls, 0, nl, 0, i);
                System.arraycopy(ls, i + 1, nl, i, ls.length - i - 1);
                System.arraycopy(current.sources, 0, ns, 0, i);
                System.arraycopy(current.sources, i + 1, ns, i, ls.length - i - 1);
                System.arraycopy(current.logs, 0, ng, 0, i);
                System.arraycopy(current.logs, i + 1, ng, i, ls.length - i - 1);
                return new Listeners(nl, ns, ng);
            }
        }
        return current;
    }

    void started(long queuedNanos) {
        for (int i = 0; i < listeners.length; i++) {
            try {
                listeners[i].taskStarted(sources[i], queuedNanos);
            } catch (Throwable t) {
                failed(i, "taskStarted", t);
            }
        }
    }

    void ended(long runNanos, Throwable failure) {
        for (int i = 0; i < listeners.length; i++) {
            try {
                listeners[i].taskEnded(sources[i], runNanos, failure);
            } catch (Throwable t) {
                failed(i, "taskEnded", t);
            }
        }
    }

    /** Tells the listeners of {@code only}, or every listener if it is null. */
    void rejected(RejectedExecutionException rejection, Pool only) {
        for (int i = 0; i < listeners.length; i++) {
            if (only != null && sources[i] != only) {
                continue;
            }
            try {
                listeners[i].taskRejected(sources[i], rejection);
            } catch (Throwable t) {
                failed(i, "taskRejected", t);
            }
        }
    }

    void queueTimedOut(long queuedNanos) {
        for (int i = 0; i < listeners.length; i++) {
            try {
                listeners[i].queueTimedOut(sources[i], queuedNanos);
            } catch (Throwable t) {
                failed(i, "queueTimedOut", t);
            }
        }
    }

    void runTimedOut(long runNanos) {
        for (int i = 0; i < listeners.length; i++) {
            try {
                listeners[i].runTimedOut(sources[i], runNanos);
            } catch (Throwable t) {
                failed(i, "runTimedOut", t);
            }
        }
    }

    private void failed(int i, String method, Throwable t) {
        logs[i].warn(() -> "listener " + listeners[i] + " of pool '" + sources[i].name() + "' threw from " + method
                + "; the pool carries on", t);
    }
}
