package io.github.workerpool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;

/** The {@link PoolContract} over every mode of a pool. */
class WorkerPoolContractTest {

    @Nested
    class HandOff extends PoolContract {
        @Override
        WorkerPool.Builder mode(WorkerPool.Builder builder) {
            return builder;
        }
    }

    @Nested
    class BoundedQueue extends PoolContract {
        @Override
        WorkerPool.Builder mode(WorkerPool.Builder builder) {
            return builder.queueCapacity(16);
        }

        @Override
        boolean callerWaitsWhenBusy() {
            return false;
        }
    }

    @Nested
    class UnboundedQueue extends PoolContract {
        @Override
        WorkerPool.Builder mode(WorkerPool.Builder builder) {
            return builder.queueCapacity(Integer.MAX_VALUE);
        }

        @Override
        boolean callerWaitsWhenBusy() {
            return false;
        }
    }

    @Nested
    class PreAlloc extends PoolContract {
        @Override
        WorkerPool.Builder mode(WorkerPool.Builder builder) {
            return builder.preAlloc(true);
        }
    }

    @Nested
    class Nonblocking extends PoolContract {
        @Override
        WorkerPool.Builder mode(WorkerPool.Builder builder) {
            return builder.nonblocking(true);
        }

        @Override
        boolean callerWaitsWhenBusy() {
            return false;
        }

        @Override
        boolean rejectsWhenBusy() {
            return true;
        }
    }

    @Nested
    class VirtualHandOff extends PoolContract {
        @BeforeEach
        void needsVirtualThreads() {
            requireVirtualThreads();
        }

        @Override
        WorkerPool.Builder mode(WorkerPool.Builder builder) {
            return builder.virtualThreads(true);
        }
    }

    @Nested
    class VirtualQueue extends PoolContract {
        @BeforeEach
        void needsVirtualThreads() {
            requireVirtualThreads();
        }

        @Override
        WorkerPool.Builder mode(WorkerPool.Builder builder) {
            return builder.virtualThreads(true).queueCapacity(16);
        }

        @Override
        boolean callerWaitsWhenBusy() {
            return false;
        }
    }

    /** Skips on Java 17, unless CI demands virtual threads ({@code -Dworkerpool.requireVirtualThreads=true}). */
    static void requireVirtualThreads() {
        boolean supported = Threads.virtualThreadsSupported();
        if (Boolean.getBoolean("workerpool.requireVirtualThreads")) {
            assertThat(supported).as("virtual threads required on Java " + Runtime.version()).isTrue();
        }
        assumeTrue(supported, "virtual threads need Java 21+");
    }
}
