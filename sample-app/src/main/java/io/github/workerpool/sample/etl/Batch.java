package io.github.workerpool.sample.etl;

import java.util.List;

/**
 * One batch of reviews on its way through the ETL pipeline. As in seed 002, every stage works on
 * the same rows in place; the pipeline's ordering makes that safe (one stage at a time per batch).
 *
 * @param checkpoint the checkpoint this batch's last stage saves
 * @param rows       the reviews, in id order
 */
public record Batch(EtlCheckpoint checkpoint, List<Row> rows) {

    /** One review and what the stages add to it. */
    public static final class Row {
        final long id;
        final int userId;
        final int stars;
        final String body;
        String userName;   // stage 1, enrich
        String country;    // stage 1, enrich
        int sentiment;     // stage 2, analyse
        int words;         // stage 2, analyse

        Row(long id, int userId, int stars, String body) {
            this.id = id;
            this.userId = userId;
            this.stars = stars;
            this.body = body;
        }

        /** Returns the review's id. */
        public long id() {
            return this.id;
        }

        /** Returns the review's text. */
        public String body() {
            return this.body;
        }

        /**
         * Sets what the NLP service found.
         * @param sentiment positive minus negative words
         * @param words     word count
         */
        public void scored(int sentiment, int words) {
            this.sentiment = sentiment;
            this.words = words;
        }
    }
}
