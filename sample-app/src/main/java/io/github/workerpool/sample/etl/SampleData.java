package io.github.workerpool.sample.etl;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.InitializingBean;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.stereotype.Component;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Fills an empty database with generated users and reviews (schema.sql creates the tables).
 */
@Component
class SampleData implements InitializingBean {

    private static final Logger logger = LoggerFactory.getLogger(SampleData.class);

    private final JdbcTemplate jdbc;

    private final TransactionTemplate tx;

    private final EtlProperties properties;

    SampleData(JdbcTemplate jdbc, TransactionTemplate tx, EtlProperties properties) {
        this.jdbc = jdbc;
        this.tx = tx;
        this.properties = properties;
    }

    @Override
    public void afterPropertiesSet() {
        long reviews = count("review");
        if (reviews > 0) {
            logger.info("Database has {} reviews and {} users", reviews, count("app_user"));
            return;
        }
        long start = System.nanoTime();
        this.tx.executeWithoutResult((status) -> {
            // Generated in SQL: a few hundred thousand rows in a second or two, no round trips.
            this.jdbc.update("""
                    INSERT INTO app_user (id, name, country)
                    SELECT X, 'user-' || X,
                           CASE MOD(X, 6) WHEN 0 THEN 'DE' WHEN 1 THEN 'FR' WHEN 2 THEN 'CN'
                                          WHEN 3 THEN 'BR' WHEN 4 THEN 'US' ELSE 'IN' END
                    FROM SYSTEM_RANGE(1, ?)""", this.properties.getUsers());
            this.jdbc.update("""
                    INSERT INTO review (id, user_id, stars, body)
                    SELECT X, MOD(X * 7919, ?) + 1, MOD(X * 31, 5) + 1,
                           CASE MOD(X, 7)
                               WHEN 0 THEN 'great product fast delivery would buy again'
                               WHEN 1 THEN 'awful quality broke after a week'
                               WHEN 2 THEN 'good value but slow shipping'
                               WHEN 3 THEN 'excellent support friendly and fast'
                               WHEN 4 THEN 'bad packaging item arrived broken'
                               WHEN 5 THEN 'ok nothing special'
                               ELSE 'love it great colour good size' END || ' #' || X
                    FROM SYSTEM_RANGE(1, ?)""", this.properties.getUsers(), this.properties.getRows());
        });
        logger.info("Generated {} reviews and {} users in {} ms", this.properties.getRows(),
                this.properties.getUsers(), (System.nanoTime() - start) / 1_000_000);
    }

    private long count(String table) {
        Long n = this.jdbc.queryForObject("SELECT COUNT(*) FROM " + table, Long.class);
        return (n != null) ? n : 0;
    }
}
