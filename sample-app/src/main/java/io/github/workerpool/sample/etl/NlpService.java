package io.github.workerpool.sample.etl;

import java.util.List;
import java.util.Set;

/**
 * The "NLP service" of seed 002's ETL job (stage 3 there): scores reviews. A remote service in
 * real life; here a word count with a configurable latency ({@code sample.etl.analyse-time}).
 */
public interface NlpService {

    /**
     * Scores each row: its sentiment (positive minus negative words) and its word count.
     * @param rows the rows to score, in place
     * @throws Exception if the service fails; the pipeline then stops
     */
    void analyse(List<Batch.Row> rows) throws Exception;

    /** The default implementation: a fixed latency per call and a tiny word list. */
    final class Simulated implements NlpService {

        private static final Set<String> POSITIVE = Set.of("great", "good", "excellent", "love", "friendly", "fast");

        private static final Set<String> NEGATIVE = Set.of("awful", "bad", "broke", "broken", "slow");

        private final long latencyNanos;

        /**
         * Creates the service.
         * @param latency time each call takes, as a remote call would
         */
        public Simulated(java.time.Duration latency) {
            this.latencyNanos = latency.toNanos();
        }

        @Override
        public void analyse(List<Batch.Row> rows) throws InterruptedException {
            if (this.latencyNanos > 0) {
                Thread.sleep(this.latencyNanos / 1_000_000, (int) (this.latencyNanos % 1_000_000)); // the remote call
            }
            for (Batch.Row row : rows) {
                int sentiment = 0;
                String[] words = row.body().split(" ");
                for (String word : words) {
                    if (POSITIVE.contains(word)) {
                        sentiment++;
                    }
                    else if (NEGATIVE.contains(word)) {
                        sentiment--;
                    }
                }
                row.scored(sentiment, words.length);
            }
        }
    }
}
