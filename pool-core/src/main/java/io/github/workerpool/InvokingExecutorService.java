package io.github.workerpool;

import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@link AbstractExecutorService} with {@code invokeAll} and {@code invokeAny} that keep their
 * contract when {@code execute} blocks, as a full pool's does ({@link Invocations}): the
 * executor services of this package, {@link WorkerPool} and {@link MultiPool}.
 */
abstract class InvokingExecutorService extends AbstractExecutorService {

    /**
     * As {@link java.util.concurrent.ExecutorService#invokeAll(Collection)}. A caller interrupted
     * while it waits for a worker (the pool full) gets {@link InterruptedException}, and the tasks
     * are cancelled.
     */
    @Override
    public <T> List<Future<T>> invokeAll(Collection<? extends Callable<T>> tasks) throws InterruptedException {
        return Invocations.untimed(() -> super.invokeAll(tasks));
    }

    /**
     * As {@link java.util.concurrent.ExecutorService#invokeAll(Collection, long, TimeUnit)}, the
     * timeout included while the caller waits for a worker (the pool full): then the unfinished
     * tasks are cancelled and the futures returned, and the task that waited counts as rejected.
     */
    @Override
    public <T> List<Future<T>> invokeAll(Collection<? extends Callable<T>> tasks, long timeout, TimeUnit unit)
            throws InterruptedException {
        return Invocations.invokeAll(this, this::newTaskFor, tasks, timeout, unit);
    }

    /**
     * As {@link java.util.concurrent.ExecutorService#invokeAny(Collection)}. A caller interrupted
     * while it waits for a worker (the pool full) gets {@link InterruptedException}; one waiting
     * to submit the next task returns as soon as a task succeeds (that submit is withdrawn); a
     * task the pool refuses while others run ends the submits, and the call throws the
     * {@link java.util.concurrent.RejectedExecutionException} only if none of those succeeds.
     */
    @Override
    public <T> T invokeAny(Collection<? extends Callable<T>> tasks) throws InterruptedException, ExecutionException {
        try {
            return Invocations.invokeAny(this, this::newTaskFor, tasks, false, 0L, TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw new IllegalStateException("an untimed invokeAny timed out", e); // cannot happen
        }
    }

    /**
     * As {@link java.util.concurrent.ExecutorService#invokeAny(Collection, long, TimeUnit)}, the
     * timeout included while the caller waits for a worker (the pool full): then it throws
     * {@link TimeoutException}, and the task that waited counts as rejected. Otherwise as
     * {@link #invokeAny(Collection)}.
     */
    @Override
    public <T> T invokeAny(Collection<? extends Callable<T>> tasks, long timeout, TimeUnit unit)
            throws InterruptedException, ExecutionException, TimeoutException {
        Objects.requireNonNull(unit, "unit");
        return Invocations.invokeAny(this, this::newTaskFor, tasks, true, timeout, unit);
    }
}
