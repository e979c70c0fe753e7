package io.github.workerpool.pipeline;

import java.util.concurrent.ExecutionException;

/**
 * The first failure of a {@link Pipeline}, in batch order: which batch, at which stage, and
 * (as the cause) what its step threw.
 */
public final class PipelineException extends ExecutionException {

    private static final long serialVersionUID = 1L;

    private final long batch;
    private final int stage;

    PipelineException(long batch, int stage, Throwable cause) {
        super("batch " + batch + " failed at stage " + stage + ": " + cause, cause);
        this.batch = batch;
        this.stage = stage;
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
