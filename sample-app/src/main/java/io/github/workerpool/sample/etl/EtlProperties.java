package io.github.workerpool.sample.etl;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the sample's data and ETL job, bound from {@code sample.etl}.
 */
@ConfigurationProperties("sample.etl")
public class EtlProperties {

    /** Number of reviews generated into an empty database. */
    private int rows = 300_000;

    /** Number of users generated into an empty database. */
    private int users = 5_000;

    /** Reviews per batch. */
    private int batchSize = 100;

    /** Batches enriched at once (stage 1: join users). */
    private int enrichConcurrency = 4;

    /** Batches analysed at once (stage 2: the slow "NLP" call). */
    private int analyseConcurrency = 8;

    /** Batches loaded at once (stage 3: write results). */
    private int loadConcurrency = 2;

    /** Simulated latency of the analyse stage, per batch. */
    private Duration analyseTime = Duration.ofMillis(20);

    /** Whether a job that was running when the app stopped resumes at startup. */
    private boolean resumeOnStartup = true;

    /**
     * How long a shutdown waits for the batches in flight to reach their next stage boundary,
     * before the pools stop (the etl pool interrupts the analyse calls still running after its
     * own await period).
     */
    private Duration shutdownWait = Duration.ofSeconds(30);

    public Duration getShutdownWait() {
        return this.shutdownWait;
    }

    public void setShutdownWait(Duration shutdownWait) {
        if (shutdownWait == null || shutdownWait.isNegative()) {
            throw new IllegalArgumentException("sample.etl.shutdown-wait must not be negative, but was " + shutdownWait
                    + "; set it to how long a shutdown may wait for the ETL batches in flight, 30s by default");
        }
        this.shutdownWait = shutdownWait;
    }

    public int getRows() {
        return this.rows;
    }

    public void setRows(int rows) {
        this.rows = rows;
    }

    public int getUsers() {
        return this.users;
    }

    public void setUsers(int users) {
        this.users = atLeastOne("sample.etl.users", users); // each review names one: MOD(x, users)
    }

    public int getBatchSize() {
        return this.batchSize;
    }

    public void setBatchSize(int batchSize) {
        this.batchSize = atLeastOne("sample.etl.batch-size", batchSize);
    }

    public int getEnrichConcurrency() {
        return this.enrichConcurrency;
    }

    public void setEnrichConcurrency(int enrichConcurrency) {
        this.enrichConcurrency = atLeastOne("sample.etl.enrich-concurrency", enrichConcurrency);
    }

    public int getAnalyseConcurrency() {
        return this.analyseConcurrency;
    }

    public void setAnalyseConcurrency(int analyseConcurrency) {
        this.analyseConcurrency = atLeastOne("sample.etl.analyse-concurrency", analyseConcurrency);
    }

    public int getLoadConcurrency() {
        return this.loadConcurrency;
    }

    public void setLoadConcurrency(int loadConcurrency) {
        this.loadConcurrency = atLeastOne("sample.etl.load-concurrency", loadConcurrency);
    }

    public Duration getAnalyseTime() {
        return this.analyseTime;
    }

    public void setAnalyseTime(Duration analyseTime) {
        this.analyseTime = analyseTime;
    }

    public boolean isResumeOnStartup() {
        return this.resumeOnStartup;
    }

    public void setResumeOnStartup(boolean resumeOnStartup) {
        this.resumeOnStartup = resumeOnStartup;
    }

    /**
     * A batch size of 0 read nothing and recorded the job done; a concurrency of 0 is no stage.
     * Thrown from the setter, the binder names the property with the reason.
     */
    private static int atLeastOne(String property, int value) {
        if (value < 1) {
            throw new IllegalArgumentException(property + " is " + value + "; set it to 1 or more");
        }
        return value;
    }
}
