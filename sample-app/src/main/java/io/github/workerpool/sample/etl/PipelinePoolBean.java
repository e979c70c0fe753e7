package io.github.workerpool.sample.etl;

import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

import io.github.workerpool.Pool;
import io.github.workerpool.PoolConfig;
import io.github.workerpool.PoolListener;
import io.github.workerpool.PoolStats;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The ETL pipeline's pool as a bean, {@code etl-pipeline}, so that the starter shows it in
 * {@code /actuator/pools}, the meters and the dashboard. Each run of the job has a pipeline of its
 * own, so the bean stands for the current one. The pipeline sizes its pool (the sum of the
 * stages' concurrency): a tune of it is refused with the reason.
 */
@Configuration(proxyBeanMethods = false)
class PipelinePoolBean {

    @Bean(name = "etl-pipeline", destroyMethod = "")
    Pool etlPipelinePool(EtlJob job) {
        return new Current(job::pipelinePool);
    }

    /** A pool that forwards every call to the pool that is current now. */
    private record Current(Supplier<Pool> pool) implements Pool {

        @Override
        public String name() {
            return this.pool.get().name();
        }

        @Override
        public int capacity() {
            return this.pool.get().capacity();
        }

        @Override
        public int running() {
            return this.pool.get().running();
        }

        @Override
        public int idle() {
            return this.pool.get().idle();
        }

        @Override
        public int free() {
            return this.pool.get().free();
        }

        @Override
        public int waiting() {
            return this.pool.get().waiting();
        }

        @Override
        public int queued() {
            return this.pool.get().queued();
        }

        @Override
        public PoolStats stats() {
            return this.pool.get().stats();
        }

        @Override
        public PoolConfig config() {
            return this.pool.get().config();
        }

        @Override
        public void tune(int capacity) {
            this.pool.get().tune(capacity);
        }

        @Override
        public PoolConfig reconfigure(UnaryOperator<PoolConfig> change) {
            return this.pool.get().reconfigure(change);
        }

        @Override
        public int purge() {
            return this.pool.get().purge();
        }

        /** Listeners stay with the pool of the run they were added in; the meters read figures only. */
        @Override
        public void addListener(PoolListener listener) {
            this.pool.get().addListener(listener);
        }

        @Override
        public void removeListener(PoolListener listener) {
            this.pool.get().removeListener(listener);
        }

        @Override
        public void release() {
            this.pool.get().release();
        }

        @Override
        public List<?> releaseNow() {
            return this.pool.get().releaseNow();
        }

        @Override
        public boolean releaseTimeout(Duration timeout) throws InterruptedException {
            return this.pool.get().releaseTimeout(timeout);
        }

        @Override
        public boolean awaitTermination(Duration timeout) throws InterruptedException {
            return this.pool.get().awaitTermination(timeout);
        }

        @Override
        public void reboot() {
            this.pool.get().reboot();
        }

        @Override
        public boolean isClosed() {
            return this.pool.get().isClosed();
        }

        @Override
        public boolean isTerminated() {
            return this.pool.get().isTerminated();
        }

        @Override
        public void close() {
            this.pool.get().close();
        }

    }

}
