package io.github.workerpool.sample.etl;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLongArray;

import io.github.workerpool.Pool;
import io.github.workerpool.PoolListener;
import io.github.workerpool.TaskGroup;
import java.util.concurrent.ExecutorService;
import io.github.workerpool.pipeline.Pipeline;
import io.github.workerpool.pipeline.PipelineException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.event.EventListener;
import org.springframework.stereotype.Component;

/**
 * Seed 002's ETL job on the sample database: extract batches of reviews, then a
 * {@link Pipeline} of four stages (enrich 4, analyse 8, load 2, checkpoint 1 by default).
 *
 * <p>The analyse stage calls the {@link NlpService} in chunks on the {@code etl} pool, so that
 * pool bounds the calls to the NLP service across all batches being analysed. The last stage
 * saves a {@link JdbcCheckpoint}; the pipeline's ordering makes it the last batch whose every
 * stage succeeded, so a restart resumes after it with no batch lost or repeated.
 */
@Component
public class EtlJob implements DisposableBean {

    /*
     * States: IDLE -> RUNNING (start) -> DONE | FAILED | STOPPING (stop) -> STOPPED.
     * The database row says RUNNING while the job runs and keeps saying so if the application
     * dies or is shut down mid-job; that is what makes the next start resume on its own. Only a
     * stop from the user (or the end, or a failure) writes another state.
     *
     * Shutdown: shutDown() cancels the pipeline, so every batch stops at its next stage boundary
     * in batch order (running steps finish), then waits for the driver. EtlJobLifecycle calls it
     * when the context closes, in a lifecycle phase before the pools', which stop taking tasks in
     * theirs: the running steps can still hand the etl pool their NLP calls. destroy() calls it
     * again, which does nothing more by then.
     */

    private static final Logger logger = LoggerFactory.getLogger(EtlJob.class);

    static final List<String> STAGES = List.of("enrich", "analyse", "load", "checkpoint");

    private static final int NLP_CHUNK = 25;

    private final EtlProperties properties;

    private final EtlRepository repository;

    private final JdbcCheckpoint checkpoint;

    private final NlpService nlp;

    private final ExecutorService etlPool;

    private final Object lock = new Object();

    /** Listeners of the etl-pipeline bean, given to each run's pipeline pool (see addPipelineListener). */
    private final List<PoolListener> pipelineListeners = new CopyOnWriteArrayList<>();

    private volatile State state = State.IDLE;

    private volatile Pipeline pipeline;

    private volatile Thread driver;

    private volatile boolean stopRequested;

    /** Stop was asked for (POST /etl/stop), not only the application's shutdown: the run is recorded STOPPED. */
    private volatile boolean stoppedByUser;

    private volatile boolean shuttingDown;

    private volatile String error;

    private volatile Instant startedAt;

    private volatile long rowsAtStart;

    private final AtomicLongArray stageDone = new AtomicLongArray(STAGES.size());

    /** What the job is doing. */
    public enum State { IDLE, RUNNING, STOPPING, STOPPED, DONE, FAILED }

    EtlJob(EtlProperties properties, EtlRepository repository, JdbcCheckpoint checkpoint, NlpService nlp,
            @Qualifier("etl") ExecutorService etlPool) {
        this.properties = properties;
        this.repository = repository;
        this.checkpoint = checkpoint;
        this.nlp = nlp;
        this.etlPool = etlPool;
        this.pipeline = newPipeline(); // idle until a run: its pool is on the dashboard from the start
        JdbcCheckpoint.State recorded = checkpoint.state();
        this.state = switch (recorded) {
            case DONE -> State.DONE;
            case FAILED -> State.FAILED;
            case STOPPED, RUNNING -> State.STOPPED;
            case IDLE -> State.IDLE;
        };
        if (this.state == State.FAILED) {
            this.error = checkpoint.error(); // shown again after a restart (helper-163)
        }
    }

    private Pipeline newPipeline() {
        Pipeline next = Pipeline.builder().name("etl-pipeline")
            .concurrency(this.properties.getEnrichConcurrency(), this.properties.getAnalyseConcurrency(),
                    this.properties.getLoadConcurrency(), 1)
            .build();
        for (PoolListener listener : this.pipelineListeners) {
            next.pool().addListener(listener);
        }
        return next;
    }

    /** The pool of the current (or last, or next) run's pipeline, for the dashboard. */
    Pool pipelinePool() {
        return this.pipeline.pool();
    }

    /**
     * Adds a listener to the pipeline's pool, this run's and every later run's: the meters'
     * timers and the events are listeners, added once, when the {@code etl-pipeline} bean is made.
     */
    void addPipelineListener(PoolListener listener) {
        synchronized (this.lock) {
            this.pipelineListeners.add(listener);
            this.pipeline.pool().addListener(listener);
        }
    }

    /** Removes a listener added with {@link #addPipelineListener}. */
    void removePipelineListener(PoolListener listener) {
        synchronized (this.lock) {
            this.pipelineListeners.remove(listener);
            this.pipeline.pool().removeListener(listener);
        }
    }

    /** Resumes a job that was running when the application went down. */
    @EventListener(ApplicationReadyEvent.class)
    void resumeIfInterrupted() {
        if (this.properties.isResumeOnStartup() && this.checkpoint.state() == JdbcCheckpoint.State.RUNNING) {
            logger.info("ETL job was running when the application stopped: resuming after {}",
                    this.checkpoint.load().orElse(EtlCheckpoint.START));
            start(false);
        }
    }

    /**
     * Starts the job, or resumes it from its checkpoint.
     * @param restart whether to forget the checkpoint and results and start from the first review
     * @return null if started, else why not
     */
    public String start(boolean restart) {
        synchronized (this.lock) {
            if (this.state == State.RUNNING || this.state == State.STOPPING) {
                return "the ETL job is already " + this.state.name().toLowerCase();
            }
            if (this.shuttingDown) {
                return "the application is shutting down";
            }
            if (restart) {
                this.checkpoint.reset();
            }
            else if (this.checkpoint.state() == JdbcCheckpoint.State.DONE) {
                return "the ETL job is done; POST /etl/start?restart=true runs it again from the first review";
            }
            this.checkpoint.state(JdbcCheckpoint.State.RUNNING);
            this.stopRequested = false;
            this.stoppedByUser = false;
            this.error = null;
            this.startedAt = Instant.now();
            this.rowsAtStart = this.checkpoint.rowsDone();
            for (int i = 0; i < STAGES.size(); i++) {
                this.stageDone.set(i, 0);
            }
            Pipeline previous = this.pipeline;
            this.pipeline = newPipeline();
            if (previous != null) {
                previous.close(); // idle, or the last run's, already closed
            }
            this.state = State.RUNNING;
            Thread thread = new Thread(this::drive, "etl-driver");
            this.driver = thread;
            thread.start();
            return null;
        }
    }

    /**
     * Stops the job: no new batch is read; batches already in the pipeline finish and are
     * checkpointed. Does not wait.
     * @return null if stopping, else why not
     */
    public String stop() {
        synchronized (this.lock) {
            if (this.state != State.RUNNING) {
                return "the ETL job is not running (" + this.state.name().toLowerCase() + ")";
            }
            // Recorded now, not when the last batch ends: a crash while it drains (kill -9, a
            // shutdown whose wait runs out) must not resume a job the user stopped. First: if the
            // database refuses it, the job runs on and the caller gets the error.
            this.checkpoint.state(JdbcCheckpoint.State.STOPPED);
            this.stopRequested = true;
            this.stoppedByUser = true;
            this.state = State.STOPPING;
            return null;
        }
    }

    /** Returns the job's state. */
    public State state() {
        return this.state;
    }

    /** Returns the job's progress, with the pipeline's live per-stage counts. */
    public Progress progress() {
        EtlCheckpoint saved = this.checkpoint.load().orElse(EtlCheckpoint.START);
        long rowsDone = this.checkpoint.rowsDone();
        Pipeline p = this.pipeline;
        List<StageProgress> stages = new ArrayList<>();
        Pipeline.Stats stats = (p != null) ? p.stats() : null;
        int[] limits = { this.properties.getEnrichConcurrency(), this.properties.getAnalyseConcurrency(),
                this.properties.getLoadConcurrency(), 1 };
        for (int i = 0; i < STAGES.size(); i++) {
            Pipeline.StageStats s = (stats != null) ? stats.stages().get(i) : null;
            stages.add(new StageProgress(STAGES.get(i), limits[i], (s != null) ? s.running() : 0,
                    (s != null) ? s.occupied() : 0, (s != null) ? s.waiting() : 0, this.stageDone.get(i)));
        }
        Instant since = this.startedAt;
        double seconds = (since != null) ? Duration.between(since, Instant.now()).toMillis() / 1000.0 : 0;
        double rate = (this.state == State.RUNNING && seconds > 0) ? (rowsDone - this.rowsAtStart) / seconds : 0;
        return new Progress(this.state, this.repository.reviewCount(), rowsDone, saved.batchNo(), saved.lastId(),
                (stats != null) ? stats.inFlight() : 0, rate, stages, this.error);
    }

    private void drive() {
        Pipeline p = this.pipeline;
        boolean end = false;
        String failure = null;
        long batchesBefore = 0;
        try {
            EtlCheckpoint from = this.checkpoint.load().orElse(EtlCheckpoint.START);
            batchesBefore = from.batchNo();
            logger.info("ETL job starts after {}", from);
            int size = this.properties.getBatchSize();
            long after = from.lastId();
            long batchNo = from.batchNo();
            while (!this.stopRequested) {
                List<Batch.Row> rows = this.repository.extract(after, size);
                if (rows.isEmpty()) {
                    end = true;
                    break;
                }
                Batch batch = new Batch(new EtlCheckpoint(++batchNo, rows.get(0).id, rows.get(rows.size() - 1).id,
                        rows.size()), rows);
                boolean admitted = p.submit(
                        counted(0, () -> this.repository.enrich(batch.rows())),
                        counted(1, () -> analyse(batch)),
                        counted(2, () -> this.repository.load(batch)),
                        counted(3, this.checkpoint.saving(batch.checkpoint())));
                if (!admitted) {
                    break; // a batch failed, or shutdown cancelled the pipeline
                }
                after = batch.checkpoint().lastId();
                if (rows.size() < size) {
                    end = true;
                    break;
                }
            }
            p.await();
        }
        catch (PipelineException ex) {
            // The pipeline numbers this run's batches from 1; the checkpoint's count on from the last run.
            failure = "batch " + (batchesBefore + ex.batch()) + " failed in stage " + STAGES.get(ex.stage() - 1) + ": " + ex.getCause();
            logger.error("ETL job failed: {}", failure, ex);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        catch (RuntimeException ex) {
            // From the extract, or from the pipeline refusing the next batch: not only the extract's.
            failure = "the run failed reading or submitting the next batch: " + ex;
            logger.error("ETL job failed", ex);
        }
        catch (Error ex) {
            // Out of memory, a worker thread that could not start (Pipeline.submit may throw it):
            // the run fails, and the job must leave RUNNING, or Start answered 409 until a restart
            // (helper-151).
            failure = "the run failed: " + ex;
            logger.error("ETL job failed", ex);
        }
        finally {
            // The idle one first, then the old one closed: closed first, the bean read as closed
            // (health DOWN, a PoolClosedEvent) until the swap.
            synchronized (this.lock) {
                if (this.pipeline == p && !this.shuttingDown) {
                    this.pipeline = newPipeline(); // idle until the next run; a closed pool would read as down
                }
            }
            p.close();
        }
        finish(end, failure);
    }

    private void finish(boolean end, String failure) {
        synchronized (this.lock) {
            if (this.shuttingDown) {
                // A failure now is most likely the shutdown's interrupt of a step that outlasted
                // the drain (a hung call): the run is cut short, not failed. Without a Stop, the
                // recorded state stays RUNNING and the next start resumes from the checkpoint
                // (the batch runs again, and fails there if the failure was its own); after a Stop
                // the shutdown came in the middle of, it stays STOPPED, as stop() recorded it.
                this.state = State.STOPPED;
                logger.info("ETL job {} at {}{}", this.stoppedByUser ? "stopped, its drain cut short by shutdown,"
                        : "interrupted by shutdown", this.checkpoint.load().orElse(EtlCheckpoint.START),
                        ((failure != null) ? " (a step ended with: " + failure + ")" : "")
                                + (this.stoppedByUser ? "" : "; it resumes at the next start"));
            }
            else if (failure != null) {
                this.error = failure;
                this.state = State.FAILED;
                this.checkpoint.state(JdbcCheckpoint.State.FAILED, failure);
            }
            else if (end) {
                this.state = State.DONE;
                this.checkpoint.state(JdbcCheckpoint.State.DONE);
                logger.info("ETL job done: {}", this.checkpoint.load().orElse(EtlCheckpoint.START));
            }
            else {
                this.state = State.STOPPED;
                this.checkpoint.state(JdbcCheckpoint.State.STOPPED);
                logger.info("ETL job stopped at {}", this.checkpoint.load().orElse(EtlCheckpoint.START));
            }
        }
    }

    /** Stage 2: the batch's rows in chunks to the NLP service, at most the etl pool's capacity at once. */
    private void analyse(Batch batch) throws Exception {
        TaskGroup<Void> calls = TaskGroup.builder(this.etlPool).failFast(true).build();
        List<Batch.Row> rows = batch.rows();
        for (int from = 0; from < rows.size(); from += NLP_CHUNK) {
            List<Batch.Row> chunk = rows.subList(from, Math.min(rows.size(), from + NLP_CHUNK));
            calls.submit(() -> {
                this.nlp.analyse(chunk);
                return null;
            });
        }
        try {
            calls.awaitAll();
        }
        catch (ExecutionException ex) {
            throw (ex.getCause() instanceof Exception cause) ? cause : ex;
        }
        catch (TimeoutException ex) {
            throw new IllegalStateException("unreachable: the group has no deadline", ex);
        }
        catch (InterruptedException ex) {
            calls.cancel();
            throw ex;
        }
    }

    private Pipeline.Step counted(int stage, Pipeline.Step step) {
        return () -> {
            step.run();
            this.stageDone.incrementAndGet(stage);
        };
    }

    /** Calls {@link #shutDown()}: Spring destroys this bean before the pool and the DataSource it uses. */
    @Override
    public void destroy() throws InterruptedException {
        shutDown();
    }

    /**
     * Cancels the pipeline (batches stop at their next stage boundary) and waits for the driver;
     * the job's recorded state stays RUNNING, so the next start resumes it.
     * @throws InterruptedException if interrupted while waiting for the driver
     */
    void shutDown() throws InterruptedException {
        Thread thread;
        synchronized (this.lock) {
            this.shuttingDown = true;
            this.stopRequested = true;
            if (this.state == State.RUNNING) {
                this.state = State.STOPPING;
            }
            Pipeline p = this.pipeline;
            if (p != null) {
                p.cancel();
            }
            thread = this.driver;
        }
        if (thread != null) {
            Duration wait = this.properties.getShutdownWait();
            long millis;
            try {
                millis = Math.max(1, wait.toMillis());
            }
            catch (ArithmeticException ages) {
                millis = Long.MAX_VALUE;
            }
            thread.join(millis);
            if (thread.isAlive()) {
                logger.warn("ETL driver did not stop within {} of shutdown (sample.etl.shutdown-wait)", wait);
            }
        }
        Pipeline p = this.pipeline;
        if (p != null && (thread == null || !thread.isAlive())) {
            p.close(); // the idle one, or the run's, already closed
        }
    }

    /**
     * Takes runs again after {@link #shutDown()} ({@code context.stop()}, then
     * {@code context.start()}): a fresh idle pipeline, and a run the stop interrupted resumes from
     * its checkpoint, as at the application's start.
     */
    void reopen() {
        Pipeline previous;
        synchronized (this.lock) {
            if (!this.shuttingDown) {
                return;
            }
            Thread thread = this.driver;
            if (thread != null && thread.isAlive()) {
                // A step the stop could not wait out: a second driver would run beside this one.
                logger.warn("ETL driver still running after the stop; the job takes runs again at the next start "
                        + "of the application");
                return;
            }
            this.shuttingDown = false;
            if (this.state == State.STOPPING) {
                this.state = State.STOPPED;
            }
            previous = this.pipeline;
            this.pipeline = newPipeline();
        }
        if (previous != null) {
            previous.close();
        }
        resumeIfInterrupted(); // as at startup: a run the stop interrupted goes on from its checkpoint
    }

    /**
     * The job's progress.
     * @param state        what the job is doing
     * @param totalRows    reviews in the source table
     * @param rowsDone     reviews checkpointed
     * @param batchesDone  batches checkpointed
     * @param lastId       the checkpoint: the last review id done
     * @param inFlight     batches in the pipeline now
     * @param rowsPerSecond rate since this run started
     * @param stages       per-stage counts
     * @param error        the failure, if the job failed
     */
    public record Progress(State state, long totalRows, long rowsDone, long batchesDone, long lastId, int inFlight,
            double rowsPerSecond, List<StageProgress> stages, String error) {
    }

    /**
     * One stage's counts.
     * @param name        the stage
     * @param concurrency batches it may run at once
     * @param active      batches running its step now
     * @param occupied    slots taken (running, or done and waiting for the next stage)
     * @param waiting     batches waiting to enter it
     * @param done        steps it completed in this run
     */
    public record StageProgress(String name, int concurrency, int active, int occupied, int waiting, long done) {
    }
}
