package io.github.workerpool;

import java.util.concurrent.RejectedExecutionException;

/**
 * Thrown when a task is offered to a pool that has been shut down (released), or to a caller
 * that was waiting for a free worker when the pool was shut down.
 */
public class PoolClosedException extends RejectedExecutionException {

    private static final long serialVersionUID = 1L;

    private final String poolName;

    /**
     * Creates an exception for the named pool.
     * @param poolName the pool that rejected the task
     * @param message what happened
     */
    public PoolClosedException(String poolName, String message) {
        super(message);
        this.poolName = poolName;
    }

    /** Returns the name of the pool that rejected the task. */
    public String getPoolName() {
        return poolName;
    }
}
