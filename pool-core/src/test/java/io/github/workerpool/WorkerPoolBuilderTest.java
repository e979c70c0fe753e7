package io.github.workerpool;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Every builder option: defaults, and a clear error naming the option for each bad value. */
class WorkerPoolBuilderTest extends PoolTestSupport {

    @Test
    void build_withoutCapacity_isIllegalState_sayingHowToFixIt() {
        assertThatThrownBy(() -> WorkerPool.builder().name("x").build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("capacity is required")
                .hasMessageContaining("-1");
    }

    @Test
    void capacity_zeroOrBelowMinusOne_isRejected_namingTheValue() {
        for (int bad : new int[] {0, -2, -100, Integer.MIN_VALUE}) {
            assertThatThrownBy(() -> WorkerPool.builder().capacity(bad))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("capacity")
                    .hasMessageContaining(String.valueOf(bad));
        }
    }

    @Test
    void expiry_zeroNegativeOrNull_isRejected() {
        assertThatThrownBy(() -> WorkerPool.builder().expiry(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("expiry").hasMessageContaining("PT0S");
        assertThatThrownBy(() -> WorkerPool.builder().expiry(Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("expiry").hasMessageContaining("disablePurge");
        assertThatThrownBy(() -> WorkerPool.builder().expiry(null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("expiry");
    }

    @Test
    void queueCapacity_negative_isRejected() {
        assertThatThrownBy(() -> WorkerPool.builder().queueCapacity(-1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("queueCapacity").hasMessageContaining("-1");
    }

    @Test
    void maxBlockingTasks_negative_isRejected() {
        assertThatThrownBy(() -> WorkerPool.builder().maxBlockingTasks(-3))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxBlockingTasks").hasMessageContaining("-3");
    }

    @Test
    void blockingTimeout_negative_isRejected_nullMeansNoLimit() {
        assertThatThrownBy(() -> WorkerPool.builder().blockingTimeout(Duration.ofMillis(-5)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("blockingTimeout");
        WorkerPool pool = pool(WorkerPool.builder().capacity(1).blockingTimeout(null));
        assertThat(pool.config().blockingTimeout()).isNull();
    }

    @Test
    void name_blankOrNull_isRejected() {
        assertThatThrownBy(() -> WorkerPool.builder().name(" "))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("name");
        assertThatThrownBy(() -> WorkerPool.builder().name(null))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("name");
    }

    @Test
    void preAlloc_withUnboundedCapacity_isRejected() {
        assertThatThrownBy(() -> WorkerPool.builder().name("p").capacity(-1).preAlloc(true).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("preAlloc")
                .hasMessageContaining("capacity is -1");
    }

    @Test
    void preAlloc_withACapacityTheHeapCannotHold_isRejected_notAnOutOfMemoryError() {
        assertThatThrownBy(() -> WorkerPool.builder().name("huge").capacity(Integer.MAX_VALUE).preAlloc(true).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("preAlloc")
                .hasMessageContaining(String.valueOf(Integer.MAX_VALUE));
    }

    @Test
    void virtualThreads_withThreadFactory_isRejected() {
        assertThatThrownBy(() -> WorkerPool.builder().capacity(1).virtualThreads(true)
                .threadFactory(Thread::new).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("virtualThreads")
                .hasMessageContaining("threadFactory");
    }

    @Test
    void virtualThreads_onJava17_failsClearly() {
        assumeThat(Runtime.version().feature()).as("only on Java < 21").isLessThan(21);
        assertThatThrownBy(() -> WorkerPool.builder().name("v").capacity(1).virtualThreads(true).build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("Java 21");
    }

    @Test
    void nullCallbacks_areRejected() {
        assertThatThrownBy(() -> WorkerPool.builder().threadFactory(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> WorkerPool.builder().panicHandler(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> WorkerPool.builder().taskDecorator(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void intOptions_sweep_acceptValidValues_andNameTheOptionForEveryBadOne() {
        int[] values = {Integer.MIN_VALUE, -1000, -2, -1, 0, 1, 2, 1000, Integer.MAX_VALUE};
        java.util.Map<String, java.util.function.IntPredicate> valid = new java.util.LinkedHashMap<>();
        valid.put("capacity", v -> v >= 1 || v == -1);
        valid.put("queueCapacity", v -> v >= 0);
        valid.put("maxBlockingTasks", v -> v >= 0);
        java.util.Map<String, java.util.function.BiConsumer<WorkerPool.Builder, Integer>> setters = java.util.Map.of(
                "capacity", WorkerPool.Builder::capacity,
                "queueCapacity", WorkerPool.Builder::queueCapacity,
                "maxBlockingTasks", WorkerPool.Builder::maxBlockingTasks);
        int tried = 0;
        for (var option : valid.entrySet()) {
            for (int v : values) {
                WorkerPool.Builder b = WorkerPool.builder();
                tried++;
                if (option.getValue().test(v)) {
                    setters.get(option.getKey()).accept(b, v);
                } else {
                    assertThatThrownBy(() -> setters.get(option.getKey()).accept(b, v))
                            .as("%s(%d)", option.getKey(), v)
                            .isInstanceOf(IllegalArgumentException.class)
                            .hasMessageContaining(option.getKey())
                            .hasMessageContaining(String.valueOf(v));
                }
            }
        }
        assertThat(tried).isEqualTo(27);
    }

    @Test
    void durationOptions_sweep() {
        Duration[] bad = {Duration.ZERO, Duration.ofNanos(-1), Duration.ofDays(-365)};
        for (Duration d : bad) {
            assertThatThrownBy(() -> WorkerPool.builder().expiry(d))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("expiry");
        }
        assertThatThrownBy(() -> WorkerPool.builder().blockingTimeout(Duration.ofNanos(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("blockingTimeout");
        // Extremes that are valid must build and work.
        WorkerPool pool = pool(WorkerPool.builder().capacity(1).expiry(Duration.ofNanos(1))
                .blockingTimeout(Duration.ZERO).nonblocking(false));
        pool.execute(() -> { });
        WorkerPool huge = pool(WorkerPool.builder().capacity(Integer.MAX_VALUE).expiry(Duration.ofSeconds(Long.MAX_VALUE))
                .blockingTimeout(Duration.ofSeconds(Long.MAX_VALUE)));
        huge.execute(() -> { });
        WorkerPool full = pool(WorkerPool.builder().capacity(1).blockingTimeout(Duration.ofSeconds(Long.MAX_VALUE)));
        CountDownLatch gate = gate();
        full.execute(() -> hold(gate));
        Thread waiter = start("waiter", () -> full.execute(() -> { }));
        awaitUntil("an overflowing timeout waits like no limit", () -> full.waiting() == 1);
        open(gate);
        awaitUntil("waiter let in", () -> !waiter.isAlive());
    }

    @Test
    void defaults_areAsDocumented() {
        WorkerPool pool = pool(WorkerPool.builder().capacity(3));
        PoolConfig c = pool.config();
        assertThat(c.name()).isEqualTo("pool");
        assertThat(c.expiry()).isEqualTo(Duration.ofSeconds(60));
        assertThat(c.disablePurge()).isFalse();
        assertThat(c.preAlloc()).isFalse();
        assertThat(c.queueCapacity()).isZero();
        assertThat(c.nonblocking()).isFalse();
        assertThat(c.maxBlockingTasks()).isZero();
        assertThat(c.blockingTimeout()).isNull();
        assertThat(c.virtualThreads()).isFalse();
        assertThat(c.customThreadFactory()).isFalse();
    }

    @Test
    void threadFactory_isUsedForWorkers() throws Exception {
        WorkerPool pool = pool(WorkerPool.builder().capacity(1).threadFactory(r -> new Thread(r, "custom")));
        assertThat(pool.submit(() -> Thread.currentThread().getName()).get(10, TimeUnit.SECONDS)).isEqualTo("custom");
        assertThat(pool.config().customThreadFactory()).isTrue();
    }

    @Test
    void threadFactoryReturningNull_rejectsTheTask_andThePoolStaysUsable() {
        WorkerPool pool = pool(WorkerPool.builder().name("nf").capacity(1).threadFactory(r -> null));
        assertThatThrownBy(() -> pool.execute(() -> { }))
                .isInstanceOf(PoolOverloadException.class)
                .hasMessageContaining("nf")
                .hasMessageContaining("thread factory");
        assertThat(pool.running()).isZero();
        assertThat(pool.stats().rejected()).isEqualTo(1);
    }

    @Test
    void platformWorkers_areNonDaemon() throws Exception {
        WorkerPool pool = pool(WorkerPool.builder().capacity(1));
        assertThat(pool.submit(() -> Thread.currentThread().isDaemon()).get(10, TimeUnit.SECONDS)).isFalse();
    }
}
