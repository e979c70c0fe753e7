package io.github.workerpool;

/**
 * An immutable snapshot of a pool's levels and totals, as returned by {@link Pool#stats()}.
 *
 * <p>Levels ({@code capacity} to {@code queued}) describe the moment of the snapshot; totals
 * count since the pool was built. Each figure is read without stopping the pool, so while tasks
 * are moving the figures are approximate; once the pool is quiet (no caller inside
 * {@code execute}, no task running or queued) they are exact and
 * {@code submitted == completed + failed + rejected + cancelled + running + queued}.
 *
 * @param name      the pool's name
 * @param capacity  most tasks that may run at once; -1 when unbounded
 * @param running   tasks executing now (busy workers)
 * @param idle      live workers waiting for work
 * @param waiting   callers blocked in {@code execute}/{@code submit} waiting for a worker
 * @param queued    tasks accepted into the queue and not yet started
 * @param submitted every call of {@code execute} or {@code submit}, rejected ones included
 * @param completed tasks that ended normally
 * @param failed    tasks that ended by throwing
 * @param rejected  tasks refused with a {@link java.util.concurrent.RejectedExecutionException}
 * @param cancelled tasks returned by {@code shutdownNow()}, cancelled before they started, or
 *                  {@code submit}ted and cancelled while they ran (their future holds the cancel)
 * @param queueTimeouts tasks that started later than {@code queueTimeout} after they were submitted
 *                      (they ran; also counted in completed or failed)
 * @param runTimeouts   tasks that ran longer than {@code runTimeout} (also counted in completed or failed)
 */
public record PoolStats(
        String name,
        int capacity,
        int running,
        int idle,
        int waiting,
        int queued,
        long submitted,
        long completed,
        long failed,
        long rejected,
        long cancelled,
        long queueTimeouts,
        long runTimeouts) {

    /** Returns {@code capacity - running}, never below 0; -1 when the pool is unbounded. */
    public int free() {
        return capacity < 0 ? -1 : Math.max(0, capacity - running);
    }

    /** Returns live workers: running plus idle. */
    public int workers() {
        return running + idle;
    }
}
