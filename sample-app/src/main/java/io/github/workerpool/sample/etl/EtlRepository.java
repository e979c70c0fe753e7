package io.github.workerpool.sample.etl;

import java.sql.PreparedStatement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Repository;

/**
 * The ETL job's SQL: read reviews ("database A"), join users ("database B"), write results
 * ("database C").
 */
@Repository
class EtlRepository {

    private final JdbcTemplate jdbc;

    EtlRepository(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    /** Extract: the next {@code limit} reviews after {@code afterId}, in id order. */
    List<Batch.Row> extract(long afterId, int limit) {
        return this.jdbc.query("SELECT id, user_id, stars, body FROM review WHERE id > ? ORDER BY id LIMIT ?",
                (rs, i) -> new Batch.Row(rs.getLong(1), rs.getInt(2), rs.getInt(3), rs.getString(4)), afterId, limit);
    }

    /** Enrich: each row's user name and country. */
    void enrich(List<Batch.Row> rows) {
        String ids = rows.stream().map((r) -> Integer.toString(r.userId)).distinct().collect(Collectors.joining(","));
        Map<Integer, String[]> users = new HashMap<>();
        this.jdbc.query("SELECT id, name, country FROM app_user WHERE id IN (" + ids + ")",
                (rs) -> {
                    users.put(rs.getInt(1), new String[] { rs.getString(2), rs.getString(3) });
                });
        for (Batch.Row row : rows) {
            String[] user = users.get(row.userId);
            if (user == null) {
                throw new IllegalStateException("review " + row.id + " names user " + row.userId + ", who does not exist");
            }
            row.userName = user[0];
            row.country = user[1];
        }
    }

    /** Load: write the results, overwriting by review id, so loading a batch again is harmless. */
    void load(Batch batch) {
        List<Batch.Row> rows = new ArrayList<>(batch.rows());
        long batchNo = batch.checkpoint().batchNo();
        this.jdbc.batchUpdate("MERGE INTO review_result (review_id, user_name, country, sentiment, words, batch_no) "
                + "KEY (review_id) VALUES (?, ?, ?, ?, ?, ?)", rows, rows.size(), (PreparedStatement ps, Batch.Row r) -> {
                    ps.setLong(1, r.id);
                    ps.setString(2, r.userName);
                    ps.setString(3, r.country);
                    ps.setInt(4, r.sentiment);
                    ps.setInt(5, r.words);
                    ps.setLong(6, batchNo);
                });
    }

    /** Number of reviews in the source table. */
    long reviewCount() {
        Long n = this.jdbc.queryForObject("SELECT COUNT(*) FROM review", Long.class);
        return (n != null) ? n : 0;
    }
}
