package io.github.workerpool.pipeline;

import java.util.concurrent.ExecutionException;

/**
 * The first failure of a {@link Pipeline}, in batch order: which batch, at which stage, and
 * (as the cause) what its step threw. Other batches that failed too, of those the call waited
 * for, are attached as suppressed exceptions of this type (the pipeline keeps the first
 * {@value Pipeline#FAILURES_KEPT} failures to happen, in time order: this one, the first in batch
 * order, need not be among them, and then all of them are attached).
 */
public final class PipelineException extends ExecutionException {

    private static final long serialVersionUID = 1L;

    private final long batch;
    private final int stage;

    PipelineException(String pipeline, long batch, int stage, Throwable cause) {
        super("pipeline '" + pipeline + "': batch " + batch + " failed at stage " + stage + ": " + describe(cause), cause);
        this.batch = batch;
        this.stage = stage;
    }

    /**
     * The cause as text, or its class if its own toString() throws (user code: a getMessage() that
     * fails would otherwise escape from here and leave the batch never ended).
     */
    private static String describe(Throwable cause) {
        try {
            return String.valueOf(cause);
        } catch (Throwable e) { // whatever its getMessage() throws, StackOverflowError included
            return cause.getClass().getName() + " (whose message could not be read: " + e.getClass().getName() + ")";
        }
    }

    /** Returns the failed batch's number; the first batch submitted is 1. */
    public long batch() {
        return batch;
    }

    /** Returns the stage whose step failed; the first stage is 1. */
    public int stage() {
        return stage;
    }
}
