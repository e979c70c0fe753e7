package io.github.workerpool.sample.etl;

/**
 * How far the ETL job got: the last batch whose every stage succeeded.
 *
 * @param batchNo  that batch's number, from 1; 0 before the first batch
 * @param firstId  the batch's first review id
 * @param lastId   the batch's last review id; the job resumes after it
 * @param rowCount reviews in the batch
 */
public record EtlCheckpoint(long batchNo, long firstId, long lastId, int rowCount) {

    /** The checkpoint of a job that has not started. */
    static final EtlCheckpoint START = new EtlCheckpoint(0, 0, 0, 0);
}
