package io.github.workerpool;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A listener that records the pool it is told of at every task's end: which pool do listeners hear of. */
public final class TaskEnds implements PoolListener {

    /** The pools told of, one per task that ended, in order. */
    public final List<Pool> told = new CopyOnWriteArrayList<>();

    @Override
    public void taskEnded(Pool pool, long runNanos, Throwable failure) {
        told.add(pool);
    }
}
