package io.github.workerpool.pipeline;

import io.github.workerpool.Pool;
import io.github.workerpool.WorkerPool;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.TreeSet;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A pipeline of stages, each with its own concurrency limit, through which batches of work pass
 * in order: the ETL pipeline of seed 002.
 *
 * <p>{@code Pipeline.of(4, 8, 2, 1)} has four stages that run at most 4, 8, 2 and 1 batches at
 * once. {@link #submit} gives one batch, one {@link Step} per stage; the batch's steps run one
 * after another on a thread of the pipeline. The pipeline guarantees:
 * <ol>
 * <li><b>Back-pressure.</b> {@code submit} blocks while stage 1 is full.</li>
 * <li><b>Order.</b> A batch's stage i starts no earlier than the previous batch's stage i:
 *     batches are granted each stage (its slot) strictly in batch order, a batch that finished a
 *     stage early waits for its predecessor to be granted the next one, and a batch's step begins
 *     only once its predecessor's step of that stage has begun. (The two steps run on different
 *     threads, so their first instructions may still interleave; with concurrency 1 a stage runs
 *     strictly in order.)</li>
 * <li><b>Slot holding.</b> A batch that finished stage i keeps its stage-i slot until it gets a
 *     stage-(i+1) slot. A slow stage slows everything before it, nothing jumps ahead, and at
 *     most the sum of the limits batches are admitted (plus the submitters blocked in {@code submit},
 *     whose batches are not made yet, which {@code stats().inFlight()} counts too), so their
 *     memory is bounded.</li>
 * <li><b>Failure stops in order.</b> When a step throws (or returns with its thread interrupted,
 *     which fails it with an {@link InterruptedException}: its work was most likely cut short),
 *     its batch stops, and every later batch
 *     stops at its next stage boundary (the stage it is running finishes, the next one never
 *     starts); earlier batches run to the end. From then on {@code submit} returns
 *     {@code false}, and {@link #await()} throws the first failure in batch order. If batch 12
 *     fails at stage 4, batch 13 never reaches stage 5 and batch 11 completes.</li>
 * <li><b>Stopping is the same.</b> {@link #close()} and an interrupt of a thread blocked in
 *     {@code submit} stop the pipeline at the next batch, as a failure of that batch would
 *     (earlier batches run to the end); {@link #cancel()} stops every unfinished batch at its
 *     next stage boundary, still in batch order.</li>
 * <li><b>Checkpoints.</b> Hence, if the last stage has concurrency 1 and saves a
 *     {@link Checkpoint}, the saved checkpoint is always the last batch whose every stage
 *     succeeded, and a restart from it neither loses nor skips a batch.</li>
 * </ol>
 *
 * <pre>{@code
 * try (Pipeline etl = Pipeline.of(4, 8, 2, 1)) {
 *     while (more()) {
 *         Batch b = extract();                                   // stage 0, on this thread
 *         if (!etl.submit(() -> join(b), () -> nlp(b), () -> load(b), store.saving(b.end()))) {
 *             break;                                             // the pipeline failed
 *         }
 *     }
 *     etl.await();                                               // throws the first failure
 * }
 * }</pre>
 *
 * <p>{@link #stats()} gives per-stage live counts: slots occupied, steps running, batches
 * waiting for a slot. This class is thread-safe; several threads may submit, in which case the
 * order of batches is the order in which their {@code submit} calls took their number.
 *
 * <p>Memory consistency effects: actions in a thread before it submits a batch happen-before the
 * batch's first step runs; each step's actions happen-before its batch's next step, and the
 * steps of a stage happen-before the same stage's step of the next batch when that stage's
 * concurrency is 1 (a checkpoint saved in the last stage sees every earlier batch's work).
 */
public final class Pipeline implements AutoCloseable {

    /*
     * Implementation notes.
     *
     * Seed 002 gives each batch a goroutine and per-stage semaphores (buffered channels), and
     * chains batches with "started stage i" signals and an "interrupted" flag that each batch
     * copies from its predecessor. Here one lock and one condition guard all of it, which makes
     * the chain simple to state:
     *   - Batches are numbered from 1 in submit order (under the lock, before waiting).
     *   - stopFrom is the lowest batch number that is stopped (failed, interrupted, cancelled, or
     *     the first number after close()). Batch n may cross a stage boundary only while
     *     n < stopFrom. This is the seed's transitive interrupt: every batch after a stopped one
     *     stops, no batch before it does.
     *   - Batch n enters stage i when its predecessor has entered stage i (prev.started > i)
     *     and stage i has a free slot. Its slot for stage i-1 is released only after that, so a
     *     batch always holds a slot from admission to its end. The seed picks at random when
     *     "interrupted" and "may enter" are both ready; here a stop always wins.
     *   - A batch drops its reference to its predecessor once it has entered the last stage (it
     *     needs no more gates) or ended, so the chain of live references is as long as the
     *     number of batches in flight.
     *   - The seed's Wait waits for the chain of exits of the batches submitted so far;
     *     exitedThrough is the highest n such that batches 1..n have all ended.
     * Unlike the seed, a stopped batch releases its slot, so live counts return to zero.
     *
     * Deadlock freedom: a batch waits either for its predecessor to enter a stage (the
     * predecessor is ahead and waits only on batches ahead of it) or for a slot of the next stage
     * (held by batches that wait only on later stages, and the last stage waits on nothing).
     *
     * Threads: each admitted batch runs on a worker of an internal WorkerPool whose capacity is
     * the sum of the limits; admitted batches hold at least one slot until they end, so a worker
     * is free or about to be, and the pool's queue (as long as the pool) holds a batch until it
     * is. A step's leftover interrupt fails its batch and is cleared (runBatch).
     */

    private final String name;
    private final int[] limits;
    private final WorkerPool workers;
    private final Pool pool;

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final int[] occupied;
    private final int[] running;
    private final int[] waiting;
    private final TreeSet<Long> exitedAhead = new TreeSet<>();
    private Batch last;
    private long nextNumber = 1;
    private long stopFrom = Long.MAX_VALUE;
    private long exitedThrough;
    private boolean closed;
    private PipelineException firstFailure;
    private final List<PipelineException> failures = new ArrayList<>(); // the first FAILURES_KEPT to happen; guarded by lock

    /** Failures kept to attach to the one {@link #await()} throws (stats().failed() counts them all). */
    static final int FAILURES_KEPT = 16;
    private long submitted;
    private long completed;
    private long failed;
    private long stopped;
    /** Set on a thread while it runs a batch of this pipeline: close() and await() there would wait for themselves. */
    private final ThreadLocal<Batch> runningBatch = new ThreadLocal<>();
    private final ThreadLocal<Boolean> ownThread = new ThreadLocal<>(); // set on the pipeline's own threads
    /** The batch a submit hands to the pool: a listener of the pool told of its refusal runs meanwhile, on that thread. */
    private final ThreadLocal<Batch> handingOver = new ThreadLocal<>();
    /** Test seam: told, under the lock, each time a batch enters a stage (batch number, stage from 1). */
    volatile EnterListener enterListener;

    /** Test seam: observes stage entries in the order the pipeline grants them. */
    interface EnterListener {
        void entered(long batch, int stage);
    }

    private Pipeline(Builder b) {
        this.name = b.name;
        this.limits = b.limits.clone();
        int n = limits.length;
        this.occupied = new int[n];
        this.running = new int[n];
        this.waiting = new int[n];
        long sum = 0;
        for (int l : limits) {
            sum += l;
        }
        // A queue as long as the pool: admitted batches number at most the sum of the limits (each
        // holds a slot), so it never fills, and submit never waits for a worker that is still
        // finishing the batch that freed the slot (an interrupt there would fail the batch).
        int capacity = (int) Math.min(Integer.MAX_VALUE, sum);
        java.util.concurrent.atomic.AtomicLong threads = new java.util.concurrent.atomic.AtomicLong();
        ClassLoader loader = Thread.currentThread().getContextClassLoader();
        // Its threads are marked, so that close() and await() from one (a listener of pool(), after
        // a batch ended) are refused: close() would wait for that very thread, and await() on a
        // full pool for a batch that thread holds up.
        this.workers = WorkerPool.builder().name(name).capacity(capacity).queueCapacity(capacity)
                .expiry(Duration.ofSeconds(1))
                .threadFactory((r) -> {
                    // As the pool's own factory makes them: a thread is made on whichever thread
                    // submits and then runs every batch, so it takes neither that thread's
                    // priority nor its inheritable thread locals (one feeder's request or
                    // security context seen by every step), and the builder's class loader.
                    Thread t = new Thread(null, () -> {
                        ownThread.set(Boolean.TRUE);
                        r.run();
                    }, name + "-" + threads.incrementAndGet(), 0, false);
                    t.setDaemon(false);
                    t.setPriority(Thread.NORM_PRIORITY);
                    t.setContextClassLoader(loader);
                    return t;
                })
                .build();
        this.pool = new OwnedPool(workers, name);
    }

    /**
     * Returns a pipeline with one stage per argument, each argument being that stage's
     * concurrency limit.
     * @param concurrency each stage's limit, at least 1
     * @return a new pipeline named {@code "pipeline"}
     * @throws IllegalArgumentException if no stage is given or a limit is below 1
     */
    public static Pipeline of(int... concurrency) {
        return builder().concurrency(concurrency).build();
    }

    /** Returns a builder; {@link Builder#concurrency(int...)} is required. */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * One stage's work for one batch.
     */
    @FunctionalInterface
    public interface Step {
        /**
         * Runs the step.
         * @throws Exception if the step fails; the pipeline then stops as described in {@link Pipeline}
         */
        void run() throws Exception;
    }

    // ---------------------------------------------------------------- submit, await

    /**
     * Submits a batch: one step per stage, run in stage order on a pipeline thread; a null step
     * passes its stage without doing anything (it still takes the stage's slot in turn). Blocks
     * while stage 1 is full.
     *
     * @param steps one step per stage
     * @return true if the batch was admitted; false if the pipeline has failed, was cancelled or
     *         closed (the batch does not run)
     * @throws InterruptedException if interrupted while waiting for stage 1; the pipeline then
     *         stops at this batch, as if it had failed: earlier batches run to the end, later
     *         submissions return false, and {@code await()} reports only real failures
     * @throws IllegalArgumentException if the number of steps is not the number of stages
     * @throws IllegalStateException if called from a step of this pipeline, or from one of its
     *         threads (a listener of {@link #pool()}): it could wait for a stage-1 slot that its own
     *         batch, or a batch it waits for, holds
     * @throws Error what handing the batch to the pipeline's pool threw (out of memory): the batch
     *         then failed at stage 1, unless a worker had already taken it, in which case it runs
     *         all the same; so do not submit it again on an {@code Error} alone ({@code await()}
     *         reports it if it failed)
     */
    public boolean submit(Step... steps) throws InterruptedException {
        Objects.requireNonNull(steps, "steps");
        notFromAStep("submit()"); // it may wait for stage 1, which its own batch, or one it waits for, holds
        if (steps.length != limits.length) {
            throw new IllegalArgumentException("pipeline '" + name + "' has " + limits.length + " stages, so submit needs "
                    + limits.length + " steps (null for a stage with nothing to do), but got " + steps.length);
        }
        Step[] own = steps.clone(); // before the lock: an OutOfMemoryError here numbers no batch
        Batch b;
        lock.lock();
        try {
            if (closed || nextNumber >= stopFrom) {
                return false;
            }
            b = new Batch(nextNumber++, own, last);
            last = b;
            submitted++;
            boolean in;
            try {
                in = enterLocked(b, 0);
            } catch (InterruptedException e) {
                stopFrom = Math.min(stopFrom, b.number);
                endLocked(b, Outcome.STOPPED);
                throw e;
            } catch (RuntimeException | Error e) {
                // An Error on the way in (out of memory, a stack overflow in the wait): the batch
                // has a number, so it must end, or await() and close() would wait for it for ever.
                failAndEndLocked(b, 0, e);
                throw e;
            }
            if (!in) {
                endLocked(b, Outcome.STOPPED);
                return false;
            }
        } finally {
            lock.unlock();
        }
        try {
            handingOver.set(b); // in the try: its OutOfMemoryError (a thread's first set) ends the batch too
            workers.execute(b);
        } catch (RuntimeException | Error e) {
            // Refused (no thread could be started), or an Error on the way (OutOfMemoryError): the
            // batch fails at stage 1, so its slot is not held for ever and later batches, await()
            // and close() go on; unless a worker already has it (the pool can throw after handing
            // it over), which runs and ends it: ended twice, it would count twice.
            boolean ours = failUnclaimed(b, e);
            if (e instanceof RejectedExecutionException) {
                return !ours; // refused, or refused after a worker took it: admitted then, and it runs
            }
            throw e;
        } finally {
            handingOver.remove();
        }
        return true;
    }

    /**
     * Waits until every batch submitted before this call has finished or stopped (seed 002's
     * {@code Wait}), then reports the first failure among them, in batch order.
     * @throws PipelineException the first failure in batch order, with the step's exception as cause
     * @throws InterruptedException if interrupted while waiting
     * @throws IllegalStateException if called from a step of this pipeline, or from one of its
     *         threads (a listener of {@link #pool()}): it would wait for its own batch or thread
     */
    public void await() throws InterruptedException, PipelineException {
        if (!await(-1L)) {
            throw new AssertionError("unreachable");
        }
    }

    /**
     * Waits at most {@code timeout} for every batch submitted before this call to finish or stop.
     * @param timeout longest to wait
     * @return true if they all ended in time, false if the timeout passed first
     * @throws PipelineException if they ended and one failed: the first failure in batch order
     * @throws InterruptedException if interrupted while waiting
     * @throws IllegalStateException if called from a step of this pipeline, or from one of its
     *         threads (a listener of {@link #pool()}): it would wait for its own batch or thread
     */
    public boolean await(Duration timeout) throws InterruptedException, PipelineException {
        Objects.requireNonNull(timeout, "timeout");
        long nanos;
        try {
            nanos = Math.max(0L, timeout.toNanos());
        } catch (ArithmeticException e) {
            nanos = timeout.isNegative() ? 0L : Long.MAX_VALUE; // beyond long nanos: as good as for ever
        }
        return await(nanos);
    }

    /** Waits, for ever if {@code nanos} is negative. */
    private boolean await(long nanos) throws InterruptedException, PipelineException {
        notFromAStep("await()");
        PipelineException f;
        List<PipelineException> others;
        long target;
        boolean timed = nanos >= 0;
        lock.lock();
        try {
            target = nextNumber - 1;
            while (exitedThrough < target) {
                if (!timed) {
                    changed.await();
                } else if (nanos <= 0) { // awaitNanos returns a negative number once the time is up
                    return false;
                } else {
                    nanos = changed.awaitNanos(nanos);
                }
            }
            f = firstFailure;
            others = List.copyOf(failures);
        } finally {
            lock.unlock();
        }
        if (f != null && f.batch() <= target) {
            PipelineException thrown = new PipelineException(name, f.batch(), f.stage(), f.getCause());
            for (PipelineException other : others) {
                if (other != f && other.batch() <= target) { // not a batch submitted since this call
                    thrown.addSuppressed(other);
                }
            }
            throw thrown;
        }
        return true;
    }

    /**
     * Stops every unfinished batch at its next stage boundary, in batch order (a batch admitted
     * but not started yet stops before its first step; steps that are running finish, and are not
     * interrupted: a step that may hang needs a timeout of its own; the batch before the oldest
     * unfinished one is not affected), and makes later submissions return false. Does not wait;
     * {@link #await()} does.
     */
    public void cancel() {
        lock.lock();
        try {
            long n = exitedThrough + 1;
            while (exitedAhead.contains(n)) {
                n++;
            }
            stopFrom = Math.min(stopFrom, n);
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Closes the pipeline: later submissions return false, batches already submitted run to the
     * end (as if the next batch had failed), and this call waits for them and for the pipeline's
     * threads to exit. If interrupted while waiting, it {@linkplain #cancel() cancels} (every
     * batch stops at its next stage boundary), keeps waiting, and restores the interrupt status.
     * Failures are reported by {@link #await()}, which may still be called.
     * @throws IllegalStateException if called from a step of this pipeline, or from one of its
     *         threads (a listener of {@link #pool()}): it would wait for its own batch or thread; a
     *         step may call {@link #cancel()}
     */
    @Override
    public void close() {
        notFromAStep("close()");
        boolean interrupted = false;
        lock.lock();
        try {
            closed = true;
            stopFrom = Math.min(stopFrom, nextNumber);
            changed.signalAll();
            while (exitedThrough < nextNumber - 1) {
                try {
                    changed.await();
                } catch (InterruptedException e) {
                    if (!interrupted) {
                        interrupted = true;
                        lock.unlock();
                        try {
                            cancel();
                        } finally {
                            lock.lock();
                        }
                    }
                }
            }
        } finally {
            lock.unlock();
        }
        workers.close();
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    private void notFromAStep(String call) {
        Batch own = runningBatch.get();
        if (own != null) {
            throw new IllegalStateException("pipeline '" + name + "': " + call + " called from a step of batch "
                    + own.number + " would wait for that batch itself; a step may call cancel(), and submit "
                    + "from the thread that feeds the pipeline");
        }
        Batch handed = handingOver.get();
        if (handed != null) {
            // A listener of the pool on the submitting thread (told of a refusal): only this
            // thread ends the batch, once the listener returns.
            throw new IllegalStateException("pipeline '" + name + "': " + call + " called from a listener of its pool "
                    + "while batch " + handed.number + " is handed to the pool would wait for that batch itself; call "
                    + "it from another thread");
        }
        if (ownThread.get() != null) {
            throw new IllegalStateException("pipeline '" + name + "': " + call + " called from one of its own threads "
                    + "(a listener of its pool) could wait for that thread itself; call it from another thread");
        }
    }

    /** Whether the pipeline admits no more batches: it failed, was cancelled or closed. */
    public boolean isStopped() {
        lock.lock();
        try {
            return closed || nextNumber >= stopFrom;
        } finally {
            lock.unlock();
        }
    }

    // ---------------------------------------------------------------- figures

    /**
     * Returns the pool the batches run on, for watching it (its levels, {@code stats()}, listeners,
     * a dashboard): its capacity is the sum of the stages' limits. Its size and lifecycle belong
     * to the pipeline: {@code tune}, {@code reconfigure} and the lifecycle calls throw
     * {@link IllegalStateException}; {@code purge} works. A batch whose step failed is a completed
     * task to the pool: the failure is counted in {@link #stats()} and thrown by {@link #await()}.
     */
    public Pool pool() {
        return pool;
    }

    /** Returns the pipeline's name, used for its threads. */
    public String name() {
        return name;
    }

    /** Returns the number of stages. */
    public int stages() {
        return limits.length;
    }

    /** Returns a snapshot of the pipeline's totals and per-stage live counts. */
    public Stats stats() {
        lock.lock();
        try {
            List<StageStats> stages = new ArrayList<>(limits.length);
            for (int i = 0; i < limits.length; i++) {
                stages.add(new StageStats(i + 1, limits[i], occupied[i], running[i], waiting[i]));
            }
            long inFlight = submitted - completed - failed - stopped;
            return new Stats(submitted, completed, failed, stopped, (int) inFlight, List.copyOf(stages));
        } finally {
            lock.unlock();
        }
    }

    @Override
    public String toString() {
        Stats s = stats();
        return "Pipeline[" + name + ", " + Arrays.toString(limits) + ", submitted=" + s.submitted() + ", completed="
                + s.completed() + ", failed=" + s.failed() + ", stopped=" + s.stopped() + ", inFlight=" + s.inFlight()
                + "]";
    }

    /**
     * Live counts of one stage.
     * @param stage       the stage's number, from 1
     * @param concurrency its limit
     * @param occupied    slots taken: batches running the stage's step, done with it and
     *                    waiting for the next stage, or given the slot and not yet started
     *                    (still in the pool's queue, or waiting for their predecessor's step
     *                    to begin)
     * @param running     batches running the stage's step now
     * @param waiting     batches (or, for stage 1, submitters) waiting to enter the stage, for
     *                    their predecessor or for a slot
     */
    public record StageStats(int stage, int concurrency, int occupied, int running, int waiting) {
    }

    /**
     * A snapshot of a pipeline; {@code submitted == completed + failed + stopped + inFlight}.
     * @param submitted batches admitted to the order (given a number)
     * @param completed batches whose every stage succeeded
     * @param failed    batches that failed: a step threw or returned with its thread interrupted, or the
     *                  pipeline's pool refused the batch
     * @param stopped   batches stopped at a stage boundary by an earlier failure, cancel, close or interrupt
     * @param inFlight  batches not finished yet
     * @param stages    per-stage live counts, stage 1 first
     */
    public record Stats(long submitted, long completed, long failed, long stopped, int inFlight,
            List<StageStats> stages) {
    }

    // ---------------------------------------------------------------- internals

    private enum Outcome { COMPLETED, FAILED, STOPPED }

    /** One batch: its steps, its place in the order, and how far it got. */
    private final class Batch implements Runnable {
        final long number;
        final Step[] steps;
        Batch prev;     // guarded by lock; null once not needed
        int started;    // stages entered; guarded by lock
        int begun;      // stages whose step began; guarded by lock
        boolean claimed; // taken by a worker to run, or by submit to fail; guarded by lock

        Batch(long number, Step[] steps, Batch prev) {
            this.number = number;
            this.steps = steps;
            this.prev = prev;
        }

        @Override
        public void run() {
            runBatch(this);
        }
    }

    /** Waits until batch b may enter stage i and takes the slot; false if b must stop. Under lock. */
    private boolean enterLocked(Batch b, int i) throws InterruptedException {
        waiting[i]++;
        try {
            for (;;) {
                if (b.number >= stopFrom) {
                    return false;
                }
                Batch p = b.prev;
                if ((p == null || p.started > i) && occupied[i] < limits[i]) {
                    occupied[i]++;
                    b.started = i + 1;
                    try {
                        EnterListener l = enterListener;
                        if (l != null) {
                            l.entered(b.number, i + 1);
                        }
                        changed.signalAll(); // the next batch may pass the gate of stage i now
                    } catch (RuntimeException | Error e) {
                        // All or nothing: a batch that could not enter holds no slot of the stage.
                        occupied[i]--;
                        b.started = i;
                        throw e;
                    }
                    return true;
                }
                changed.await();
            }
        } finally {
            if (!lock.isHeldByCurrentThread()) {
                // An Error (a stack overflow) left the wait without the lock it gives back: take
                // it, so that the caller frees the batch's slots and ends it under the lock.
                lock.lock();
            }
            waiting[i]--;
        }
    }

    /**
     * Fails batch {@code b} at stage 1 unless a worker claimed it; true if it was not claimed. For
     * an error between the batch's admission and its first step, which would otherwise hold its
     * slot and leave await() and close() waiting for it for ever.
     */
    private boolean failUnclaimed(Batch b, Throwable e) {
        lock.lock();
        try {
            if (b.claimed) {
                return false;
            }
            b.claimed = true;
            occupied[0]--;
            failAndEndLocked(b, 0, e);
            return true;
        } finally {
            lock.unlock();
        }
    }

    private void runBatch(Batch b) {
        try {
            runningBatch.set(b);
        } catch (Error e) { // out of memory (a thread's first set): before runStages claims it
            failUnclaimed(b, e);
            throw e;
        }
        try {
            runStages(b);
        } finally {
            runningBatch.remove();
        }
    }

    private void runStages(Batch b) {
        int n = limits.length;
        for (int i = 0; i < n; i++) {
            lock.lock();
            try {
                if (i == 0) {
                    if (b.claimed) {
                        return; // failed by submit: the pool threw after handing it over
                    }
                    b.claimed = true;
                }
                // The step begins after the previous batch's step of this stage began, not only
                // after it was granted the stage (helper-142: a batch whose worker was slow to
                // start, or to come back from the wait, saw the next batch's step run first).
                // The previous batch has a worker (the pool has one for every admitted batch) and
                // was granted the stage, so it begins or stops, and then this one may go on.
                Batch p = b.prev;
                while (p != null && p.begun <= i && b.number < stopFrom) {
                    changed.awaitUninterruptibly();
                }
                if (b.number >= stopFrom) {
                    // Stopped (a failure, cancel()) while it waited in the pool's queue or for its
                    // predecessor: its step has not begun, so it stops at this boundary like the rest.
                    occupied[i]--;
                    changed.signalAll();
                    endLocked(b, Outcome.STOPPED);
                    return;
                }
                b.begun = i + 1;
                if (b.begun == n) {
                    b.prev = null; // every gate passed
                }
                if (lock.hasWaiters(changed)) {
                    changed.signalAll(); // the next batch may begin this stage's step now
                }
                running[i]++;
            } finally {
                lock.unlock();
            }
            Throwable error = null;
            try {
                Step step = b.steps[i];
                if (step != null) {
                    step.run();
                }
            } catch (Throwable t) {
                error = t;
            }
            // Nobody else interrupts the pipeline's threads, so an interrupt left set is the step's:
            // its work was most likely cut short (a watchdog, a swallowed InterruptedException), so
            // the batch fails rather than pass a half-done stage on. Cleared either way, so that it
            // never reaches the next step or the wait for the next stage.
            if (Thread.interrupted() && error == null) {
                try {
                    error = new InterruptedException("the step of stage " + (i + 1)
                            + " returned with its thread interrupted: its work may be incomplete");
                } catch (Throwable t) { // out of memory: still a failure, and the batch must end
                    error = t;
                }
            }
            lock.lock();
            try {
                running[i]--;
                if (error != null) {
                    occupied[i]--;
                    failAndEndLocked(b, i, error);
                    return;
                }
                if (i + 1 == n) {
                    occupied[i]--;
                    endLocked(b, Outcome.COMPLETED);
                    return;
                }
                boolean in;
                Throwable failed = null;
                try {
                    in = enterLocked(b, i + 1);
                } catch (InterruptedException | RuntimeException | Error e) {
                    // An interrupt is unreachable as far as the pipeline knows (its pool's lifecycle
                    // is its own, and the step's interrupt was cleared above); an Error (out of
                    // memory in the wait) is not. Either way the batch fails here, in order, and
                    // ends, rather than stopping without a word or holding its slots for ever.
                    failed = e;
                    in = false;
                }
                occupied[i]--; // released only now: slot holding
                changed.signalAll();
                if (failed != null) {
                    failAndEndLocked(b, i + 1, failed); // await() reports it, as a step's own Error
                    return;
                }
                if (!in) {
                    endLocked(b, Outcome.STOPPED);
                    return;
                }
            } finally {
                lock.unlock();
            }
        }
    }

    /** Records the batch's failure and ends it; ended even if recording throws (out of memory), or await() would hang. */
    private void failAndEndLocked(Batch b, int stageIndex, Throwable error) {
        try {
            failLocked(b, stageIndex, error);
        } finally {
            endLocked(b, Outcome.FAILED);
        }
    }

    private void failLocked(Batch b, int stageIndex, Throwable error) {
        stopFrom = Math.min(stopFrom, b.number);
        PipelineException failure = new PipelineException(name, b.number, stageIndex + 1, error);
        if (failures.size() < FAILURES_KEPT) {
            failures.add(failure);
        }
        if (firstFailure == null || b.number < firstFailure.batch()) {
            firstFailure = failure;
        }
    }

    private void endLocked(Batch b, Outcome outcome) {
        b.prev = null;
        // Its steps' closures hold its data; the batch after it may still hold it (its prev) until
        // it reaches the last stage.
        Arrays.fill(b.steps, null);
        if (last == b) {
            // The next batch needs no gate from it: an ended batch passed every gate, or stopped,
            // and then so does every later one.
            last = null;
        }
        switch (outcome) {
            case COMPLETED -> completed++;
            case FAILED -> failed++;
            default -> stopped++;
        }
        if (b.number == exitedThrough + 1) {
            exitedThrough++;
            while (exitedAhead.remove(exitedThrough + 1)) {
                exitedThrough++;
            }
        } else {
            exitedAhead.add(b.number);
        }
        changed.signalAll();
    }

    /** Builds a {@link Pipeline}. */
    public static final class Builder {
        private String name = "pipeline";
        private int[] limits;

        Builder() {
        }

        /**
         * Name used for the pipeline's threads ({@code name-N}); default {@code "pipeline"}.
         * @throws IllegalArgumentException if {@code name} is null or blank
         */
        public Builder name(String name) {
            if (name == null || name.isBlank()) {
                throw new IllegalArgumentException("name must not be blank, but was " + (name == null ? "null" : "'" + name + "'"));
            }
            this.name = name;
            return this;
        }

        /**
         * One concurrency limit per stage, each at least 1; required.
         * @throws IllegalArgumentException if there is no limit, or one is below 1
         */
        public Builder concurrency(int... limits) {
            if (limits == null || limits.length == 0) {
                throw new IllegalArgumentException("concurrency needs one limit per stage, at least one stage, e.g. "
                        + "concurrency(4, 8, 2, 1), but got none");
            }
            for (int i = 0; i < limits.length; i++) {
                if (limits[i] < 1) {
                    throw new IllegalArgumentException("concurrency of stage " + (i + 1) + " must be at least 1, but was "
                            + limits[i] + " (in " + Arrays.toString(limits) + ")");
                }
            }
            this.limits = limits.clone();
            return this;
        }

        /**
         * Builds the pipeline.
         * @throws IllegalStateException if no concurrency was given
         */
        public Pipeline build() {
            if (limits == null) {
                throw new IllegalStateException("concurrency is required: call concurrency(...) with one limit per stage");
            }
            return new Pipeline(this);
        }
    }
}
