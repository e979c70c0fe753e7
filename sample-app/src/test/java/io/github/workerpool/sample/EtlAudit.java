package io.github.workerpool.sample;

import java.util.List;
import java.util.Map;

import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/** Checks the ETL tables against each other: every review done exactly once, in batches that tile the ids. */
record EtlAudit(JdbcTemplate jdbc) {

    static EtlAudit of(JdbcTemplate jdbc) {
        return new EtlAudit(jdbc);
    }

    /** Asserts the job finished: every batch checkpointed once, no gap, no overlap, every review loaded. */
    void assertComplete(int rows, int batchSize) {
        assertConsistent();
        long batches = (rows + batchSize - 1) / batchSize;
        assertThat(count("SELECT COUNT(*) FROM etl_batch")).isEqualTo(batches);
        assertThat(count("SELECT SUM(row_count) FROM etl_batch")).isEqualTo(rows);
        assertThat(count("SELECT MIN(first_id) FROM etl_batch")).isEqualTo(1);
        assertThat(count("SELECT MAX(last_id) FROM etl_batch")).isEqualTo(count("SELECT MAX(id) FROM review"));
        assertThat(count("SELECT COUNT(*) FROM review_result")).isEqualTo(rows);
        assertThat(count("SELECT COUNT(*) FROM review r LEFT JOIN review_result x ON x.review_id = r.id "
                + "WHERE x.review_id IS NULL")).as("reviews never loaded").isZero();
        Map<String, Object> checkpoint = this.jdbc.queryForMap("SELECT * FROM etl_checkpoint");
        assertThat(checkpoint.get("STATE")).isEqualTo("DONE");
    }

    /**
     * Asserts the checkpoint and the batch log agree: batches 1..n, each starting right after the
     * previous one ended, and the checkpoint is batch n. Returns n.
     */
    long assertConsistent() {
        List<Map<String, Object>> log = this.jdbc.queryForList(
                "SELECT batch_no, first_id, last_id, row_count FROM etl_batch ORDER BY batch_no");
        long expectedNo = 1;
        long nextId = 1;
        long rows = 0;
        for (Map<String, Object> batch : log) {
            assertThat(((Number) batch.get("BATCH_NO")).longValue()).as("batch numbers").isEqualTo(expectedNo++);
            assertThat(((Number) batch.get("FIRST_ID")).longValue()).as("batch %s starts after the previous", batch)
                    .isEqualTo(nextId);
            long last = ((Number) batch.get("LAST_ID")).longValue();
            int count = ((Number) batch.get("ROW_COUNT")).intValue();
            assertThat(count("SELECT COUNT(*) FROM review WHERE id BETWEEN " + batch.get("FIRST_ID") + " AND " + last))
                    .as("rows of %s", batch).isEqualTo(count);
            nextId = last + 1;
            rows += count;
        }
        Map<String, Object> checkpoint = this.jdbc.queryForMap("SELECT * FROM etl_checkpoint");
        assertThat(((Number) checkpoint.get("BATCHES")).longValue()).isEqualTo(log.size());
        assertThat(((Number) checkpoint.get("LAST_ID")).longValue()).isEqualTo(nextId - 1);
        assertThat(((Number) checkpoint.get("ROWS_DONE")).longValue()).isEqualTo(rows);
        assertThat(count("SELECT COUNT(*) FROM review_result WHERE review_id <= " + (nextId - 1)))
                .as("every checkpointed review is loaded").isEqualTo(rows);
        return log.size();
    }

    private long count(String sql) {
        Long n = this.jdbc.queryForObject(sql, Long.class);
        return (n != null) ? n : 0;
    }
}
