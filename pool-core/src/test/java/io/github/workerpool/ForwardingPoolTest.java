package io.github.workerpool;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

class ForwardingPoolTest {

    @RegisterExtension
    final Invariants invariants = new Invariants();

    private static final Duration WAIT = Duration.ofSeconds(5);

    /** A wrapper that overrides nothing: the README's AuditedPool without the audit. */
    private static final class Wrapper extends ForwardingPool {
        private final Pool pool;

        Wrapper(Pool pool) {
            this.pool = pool;
        }

        @Override
        protected Pool delegate() {
            return pool;
        }
    }

    @Test
    void listenersAddedThroughAWrapper_areToldOfTheWrapper_andCanBeRemovedThroughIt() throws Exception {
        WorkerPool pool = invariants.track(WorkerPool.builder().name(Invariants.uniqueName("fw")).capacity(1).build());
        Wrapper wrapper = new Wrapper(pool);
        TaskEnds listener = new TaskEnds();
        List<Pool> told = listener.told;
        wrapper.addListener(listener);
        wrapper.addListener(listener); // twice, as a WorkerPool allows: told twice per task
        pool.execute(() -> { });
        await().atMost(WAIT).until(() -> told.size() == 2);
        assertThat(told).allSatisfy(p -> assertThat(p).isSameAs(wrapper));

        wrapper.removeListener(listener); // its first addition
        pool.execute(() -> { });
        await().atMost(WAIT).until(() -> told.size() == 3);
        wrapper.removeListener(listener);
        wrapper.removeListener(listener); // not added any more: nothing to do
        pool.execute(() -> { });
        await().atMost(WAIT).until(() -> pool.stats().completed() == 3);
        await().atMost(WAIT).until(() -> pool.running() == 0);
        assertThat(told).as("removed both: told no more").hasSize(3);
    }
}
