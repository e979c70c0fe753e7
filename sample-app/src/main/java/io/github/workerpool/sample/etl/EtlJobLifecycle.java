package io.github.workerpool.sample.etl;

import org.springframework.context.SmartLifecycle;
import org.springframework.stereotype.Component;

/**
 * Shuts the ETL job down when the application context closes, in the default lifecycle phase:
 * before the pools, which stop taking tasks in a later phase of their own, so the batches in
 * flight can still hand the etl pool their work and finish their stage.
 */
@Component
class EtlJobLifecycle implements SmartLifecycle {

    private final EtlJob job;

    private volatile boolean running;

    EtlJobLifecycle(EtlJob job) {
        this.job = job;
    }

    @Override
    public void start() {
        this.job.reopen(); // after context.stop(): runs are taken again
        this.running = true;
    }

    /** Not stopped by a pause (the TestContext framework's between cached contexts), as the pools are not. */
    @Override
    public boolean isPauseable() {
        return false;
    }

    @Override
    public void stop() {
        this.running = false;
        try {
            this.job.shutDown();
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public boolean isRunning() {
        return this.running;
    }

}
