package io.github.workerpool.sample.etl;


import io.github.workerpool.ForwardingPool;
import io.github.workerpool.Pool;
import io.github.workerpool.PoolListener;

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
        return new Current(job);
    }

    /** A pool that forwards every call to the pool that is current now. */
    private static final class Current extends ForwardingPool {

        private final EtlJob job;

        Current(EtlJob job) {
            this.job = job;
        }

        /** The current run's pool. */
        @Override
        protected Pool delegate() {
            return this.job.pipelinePool();
        }

        /**
         * On every run's pool: the meters' timers and the events listen from the bean's start,
         * and each run has a pool of its own (added to the first only, they timed nothing).
         */
        @Override
        public void addListener(PoolListener listener) {
            this.job.addPipelineListener(listener);
        }

        @Override
        public void removeListener(PoolListener listener) {
            this.job.removePipelineListener(listener);
        }

        /**
         * Nothing: the pipeline closes its pool. {@code destroyMethod = ""} says so to the context,
         * but ahead-of-time processing drops it, and the context then infers {@code close()} on
         * an {@code AutoCloseable} bean, which the pipeline's pool refuses with a warning.
         */
        @Override
        public void close() {
        }

    }

}
