package io.github.workerpool.sample.etl;

import java.util.function.Supplier;

import io.github.workerpool.ForwardingPool;
import io.github.workerpool.Pool;

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
    private static final class Current extends ForwardingPool {

        private final Supplier<Pool> pool;

        Current(Supplier<Pool> pool) {
            this.pool = pool;
        }

        /** The current run's pool; listeners added to it stay with that run (the meters read figures only). */
        @Override
        protected Pool delegate() {
            return this.pool.get();
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
