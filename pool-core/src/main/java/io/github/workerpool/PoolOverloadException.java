package io.github.workerpool;

import java.util.concurrent.RejectedExecutionException;

/**
 * Thrown when a pool cannot take a task because every worker is busy, the queue is full,
 * and the caller may not (or may no longer) wait: the pool is nonblocking, too many callers
 * already wait ({@code maxBlockingTasks}), the {@code blockingTimeout} ran out, or the
 * waiting caller was interrupted; or because its thread factory failed and no live worker
 * could take the task. The message names the pool and the limit that was hit, or the factory.
 */
public class PoolOverloadException extends RejectedExecutionException {

    private static final long serialVersionUID = 1L;

    private final String poolName;

    /**
     * Creates an exception for the named pool.
     * @param poolName the pool that rejected the task
     * @param message what limit was hit
     */
    public PoolOverloadException(String poolName, String message) {
        super(message);
        this.poolName = poolName;
    }

    PoolOverloadException(String poolName, String message, Throwable cause) {
        super(message, cause);
        this.poolName = poolName;
    }

    /** Returns the name of the pool that rejected the task. */
    public String getPoolName() {
        return poolName;
    }
}
