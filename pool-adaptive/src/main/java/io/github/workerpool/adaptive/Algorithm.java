package io.github.workerpool.adaptive;

import java.util.Locale;

/**
 * How an {@link AdaptiveCapacity} finds a pool's limit from its tasks' latency: one of Netflix
 * concurrency-limits' algorithms, each fed one sample per window of tasks (at least 10 tasks and
 * 100 ms, or twice the tasks' run time, at most 1 s).
 */
public enum Algorithm {

    /**
     * Gradient2: compares the window's average run time with a long-term average and shrinks the
     * limit by that ratio (at most by half), otherwise grows it by 2 a window (half of its queue
     * allowance of 4: smoothing 0.5). Needs no setting; settles a few above the backend's knee.
     * Its long-term average slowly follows a lasting overload (minutes), so the limit creeps up
     * while one lasts.
     */
    GRADIENT2("gradient2"),

    /**
     * AIMD with slow start: doubles the limit a window until the first drop, which sets it to the
     * knee the window implies (tasks in flight x the least run time seen / the window's run time)
     * if that is below 90% of it; from then on grows it by 1 a window while tasks keep it busy,
     * and cuts it by 10% on a drop, at most every other window (one cut per round trip). A drop is
     * a window whose average run time exceeds the pool's {@code runTimeout}, or a task failed with
     * an error the {@code dropOn} predicate accepts. Without such a signal it only grows: it needs
     * the pool's {@code runTimeout} set a little above the backend's normal run time (1.15x in the
     * benchmark); it then settles where the average run time reaches it.
     */
    AIMD("aimd"),

    /**
     * Vegas: estimates the queue at the backend from the window's run time against the least run
     * time seen (probed again now and then), and keeps that queue between 3 and 6 tasks (more at
     * large limits). Needs no setting; the steadiest near the knee when run time rises with load.
     */
    VEGAS("vegas");

    private final String id;

    Algorithm(String id) {
        this.id = id;
    }

    /** The algorithm's name in properties and the endpoint: {@code gradient2}, {@code aimd} or {@code vegas}. */
    public String id() {
        return this.id;
    }

    /**
     * The algorithm of that name, in any case.
     * @param name {@code gradient2}, {@code aimd} or {@code vegas}
     * @return the algorithm
     * @throws IllegalArgumentException naming the value and the names there are
     */
    public static Algorithm of(String name) {
        if (name != null) {
            String lower = name.trim().toLowerCase(Locale.ROOT);
            for (Algorithm algorithm : values()) {
                if (algorithm.id.equals(lower)) {
                    return algorithm;
                }
            }
        }
        throw new IllegalArgumentException("algorithm must be gradient2, aimd or vegas, but was "
                + ((name == null) ? "null" : "'" + name + "'"));
    }

    @Override
    public String toString() {
        return this.id;
    }
}
