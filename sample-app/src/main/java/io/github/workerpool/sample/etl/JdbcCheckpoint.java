package io.github.workerpool.sample.etl;

import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

import io.github.workerpool.pipeline.Checkpoint;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The ETL job's {@link Checkpoint}, kept in H2: table {@code etl_checkpoint} holds the last
 * batch whose every stage succeeded, and {@code etl_batch} one row per saved batch.
 *
 * <p>Both are written in one transaction, so after a crash either both show the batch or
 * neither does. {@code etl_batch}'s keys make a batch saved twice fail loudly instead of
 * silently counting twice.
 */
@Component
class JdbcCheckpoint implements Checkpoint<EtlCheckpoint> {

    static final String JOB = "reviews";

    /** The job's state as last recorded, so that a restart knows whether to resume. */
    enum State { IDLE, RUNNING, STOPPED, DONE, FAILED }

    private final JdbcTemplate jdbc;

    private final TransactionTemplate tx;

    JdbcCheckpoint(JdbcTemplate jdbc, TransactionTemplate tx) {
        this.jdbc = jdbc;
        this.tx = tx;
    }

    @Override
    public Optional<EtlCheckpoint> load() {
        List<EtlCheckpoint> found = this.jdbc.query(
                "SELECT c.batches, COALESCE(b.first_id, 0), c.last_id, COALESCE(b.row_count, 0) FROM etl_checkpoint c "
                        + "LEFT JOIN etl_batch b ON b.batch_no = c.batches WHERE c.job = ?",
                (rs, i) -> new EtlCheckpoint(rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getInt(4)), JOB);
        return found.stream().filter((c) -> c.batchNo() > 0).findFirst();
    }

    @Override
    public void save(EtlCheckpoint checkpoint) {
        this.tx.executeWithoutResult((status) -> {
            Timestamp now = Timestamp.from(Instant.now());
            this.jdbc.update("INSERT INTO etl_batch (batch_no, first_id, last_id, row_count, committed_at) VALUES (?, ?, ?, ?, ?)",
                    checkpoint.batchNo(), checkpoint.firstId(), checkpoint.lastId(), checkpoint.rowCount(), now);
            int updated = this.jdbc.update("UPDATE etl_checkpoint SET last_id = ?, batches = ?, rows_done = rows_done + ?, "
                    + "updated_at = ? WHERE job = ? AND batches = ?", checkpoint.lastId(), checkpoint.batchNo(),
                    checkpoint.rowCount(), now, JOB, checkpoint.batchNo() - 1);
            if (updated != 1) {
                // Saves run one at a time in batch order (the pipeline's last stage has concurrency 1).
                throw new IllegalStateException("checkpoint of batch " + checkpoint.batchNo()
                        + " does not follow the saved one: " + load().orElse(EtlCheckpoint.START));
            }
        });
    }

    /** Rows done so far according to the checkpoint. */
    long rowsDone() {
        List<Long> rows = this.jdbc.queryForList("SELECT rows_done FROM etl_checkpoint WHERE job = ?", Long.class, JOB);
        return rows.isEmpty() ? 0 : rows.get(0);
    }

    /** The job's recorded state; IDLE if it never ran. */
    State state() {
        List<String> states = this.jdbc.queryForList("SELECT state FROM etl_checkpoint WHERE job = ?", String.class, JOB);
        return states.isEmpty() ? State.IDLE : State.valueOf(states.get(0));
    }

    /** Records the job's state, creating the checkpoint row on first use. */
    void state(State state) {
        state(state, null);
    }

    /**
     * Records the job's state and, for FAILED, why (the first 1,000 characters), so that a
     * restart shows it again; any other state clears it.
     */
    void state(State state, String error) {
        String kept = (error != null && error.length() > ERROR_LENGTH) ? error.substring(0, ERROR_LENGTH) : error;
        this.jdbc.update("MERGE INTO etl_checkpoint c USING (VALUES (?, ?, ?, ?)) AS v(job, state, now, error) "
                + "ON c.job = v.job "
                + "WHEN MATCHED THEN UPDATE SET c.state = v.state, c.updated_at = v.now, c.error = v.error "
                + "WHEN NOT MATCHED THEN INSERT (job, last_id, batches, rows_done, state, updated_at, error) "
                + "VALUES (v.job, 0, 0, 0, v.state, v.now, v.error)", JOB, state.name(), Timestamp.from(Instant.now()),
                (state == State.FAILED) ? kept : null);
    }

    /** Why the last run failed, if the recorded state is FAILED; else null. */
    String error() {
        List<String> errors = this.jdbc.queryForList("SELECT error FROM etl_checkpoint WHERE job = ? AND state = ?",
                String.class, JOB, State.FAILED.name());
        return errors.isEmpty() ? null : errors.get(0);
    }

    /** The length of the error column. */
    private static final int ERROR_LENGTH = 1000;

    /** Forgets all progress and results, to run the job again from the first review. */
    void reset() {
        this.tx.executeWithoutResult((status) -> {
            this.jdbc.update("DELETE FROM etl_batch");
            this.jdbc.update("DELETE FROM review_result");
            this.jdbc.update("DELETE FROM etl_checkpoint");
        });
    }
}
