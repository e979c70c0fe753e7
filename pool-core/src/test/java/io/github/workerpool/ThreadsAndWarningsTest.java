package io.github.workerpool;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The threads the library makes (workers, the purger) and what it logs about failures: found by a
 * review of pool-core's small parts.
 */
class ThreadsAndWarningsTest {

    @RegisterExtension
    final Invariants invariants = new Invariants();

    private static final Duration WAIT = Duration.ofSeconds(10);

    private final Logger logger = Logger.getLogger(WorkerPool.class.getName());

    private final List<String> logged = new CopyOnWriteArrayList<>();

    private final Handler handler = new Handler() {
        @Override
        public void publish(LogRecord record) {
            logged.add(record.getMessage());
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    @BeforeEach
    void listen() {
        logger.addHandler(handler);
    }

    @AfterEach
    void stopListening() {
        logger.removeHandler(handler);
    }

    @Test
    void thePurgerThreadCanEnd_andTakesNothingFromTheThreadThatMadeIt() throws Exception {
        // It never ended, and kept the context class loader of the thread that built the first
        // pool (a web application's, which then could not be unloaded after an undeploy).
        assertThat(Purger.executor().allowsCoreThreadTimeOut()).isTrue();
        InheritableThreadLocal<String> context = new InheritableThreadLocal<>();
        ClassLoader marker = new ClassLoader(null) { };
        AtomicReference<Thread> made = new AtomicReference<>();
        AtomicReference<String> seen = new AtomicReference<>("unread");
        Thread maker = new Thread(() -> {
            context.set("alice");
            made.set(Purger.executor().getThreadFactory().newThread(() -> seen.set(context.get())));
        });
        maker.setContextClassLoader(marker);
        maker.start();
        maker.join(WAIT.toMillis());
        assertThat(made.get().getContextClassLoader()).isSameAs(Purger.class.getClassLoader());
        made.get().start();
        made.get().join(WAIT.toMillis());
        assertThat(seen.get()).isNull();
    }

    @Test
    void aPlatformWorker_takesNeitherThePriorityNorTheThreadLocalsOfTheThreadThatMadeIt() throws Exception {
        WorkerPool pool = invariants.track(WorkerPool.builder().name(Invariants.uniqueName("made")).capacity(1).build());
        InheritableThreadLocal<String> context = new InheritableThreadLocal<>();
        AtomicReference<Object[]> seen = new AtomicReference<>();
        Thread submitter = new Thread(() -> {
            context.set("alice");
            try {
                seen.set(pool.submit(() -> new Object[] { context.get(), Thread.currentThread().getPriority() }).get());
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
        submitter.setPriority(Thread.MIN_PRIORITY);
        submitter.start();
        submitter.join(WAIT.toMillis());
        assertThat(seen.get()).containsExactly(null, Thread.NORM_PRIORITY);
    }

    @Test
    void aWorker_hasTheContextClassLoaderOfTheThreadThatBuiltThePool_notTheSubmitters() throws Exception {
        // Found by the review of the previous fix: without inherited thread locals, Java 19+ gives a
        // thread the system class loader (blind to an executable jar's classes).
        for (boolean virtual : new boolean[] { false, true }) {
            if (virtual && !Threads.virtualThreadsSupported()) {
                continue;
            }
            ClassLoader builtWith = new ClassLoader(getClass().getClassLoader()) { };
            ClassLoader submittedWith = new ClassLoader(getClass().getClassLoader()) { };
            AtomicReference<WorkerPool> pool = new AtomicReference<>();
            Thread builder = new Thread(() -> pool.set(invariants.track(WorkerPool.builder()
                    .name(Invariants.uniqueName("loader")).capacity(1).virtualThreads(virtual).build())));
            builder.setContextClassLoader(builtWith);
            builder.start();
            builder.join(WAIT.toMillis());
            AtomicReference<ClassLoader> seen = new AtomicReference<>();
            Thread submitter = new Thread(() -> {
                try {
                    seen.set(pool.get().submit(() -> Thread.currentThread().getContextClassLoader()).get());
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            });
            submitter.setContextClassLoader(submittedWith);
            submitter.start();
            submitter.join(WAIT.toMillis());
            assertThat(seen.get()).as("virtual: %s", virtual).isSameAs(builtWith);
        }
    }

    @Test
    void eachListenerThatThrows_isNamedOnItsOwn() throws Exception {
        // Found by the same review: one limiter for all of a pool's listeners, and the starter adds
        // its own (meters, events, adaptive sizing): one that threw on every task hid the others.
        WorkerPool pool = invariants.track(WorkerPool.builder().name(Invariants.uniqueName("two")).capacity(1).build());
        for (String name : new String[] { "first-listener", "second-listener" }) {
            pool.addListener(new PoolListener() {
                @Override
                public void taskStarted(Pool p, long queuedNanos) {
                    throw new IllegalStateException(name + " down");
                }

                @Override
                public String toString() {
                    return name;
                }
            });
        }
        CountDownLatch ran = new CountDownLatch(1);
        pool.execute(ran::countDown);
        assertThat(ran.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        assertThat(logged).anyMatch((m) -> m.contains("listener first-listener of pool"))
            .anyMatch((m) -> m.contains("listener second-listener of pool"));
    }

    @Test
    void aVirtualWorker_takesNoThreadLocalsOfTheThreadThatMadeIt() throws Exception {
        Assumptions.assumeTrue(Threads.virtualThreadsSupported(), "virtual threads need Java 21");
        InheritableThreadLocal<String> context = new InheritableThreadLocal<>();
        context.set("alice");
        try {
            AtomicReference<String> seen = new AtomicReference<>("unread");
            Thread made = Threads.virtual("v").newThread(() -> seen.set(context.get()));
            made.start();
            made.join(WAIT.toMillis());
            assertThat(seen.get()).isNull();
        } finally {
            context.remove();
        }
    }

    @Test
    void aListenerThatThrowsOnEveryTask_doesNotHideAThreadFactorysFailure() throws Exception {
        // One limiter for every warning of a pool: the listener's took each minute's line.
        AtomicInteger made = new AtomicInteger();
        ThreadFactory oneThenFails = (r) -> {
            if (made.incrementAndGet() > 1) {
                throw new IllegalStateException("no more threads");
            }
            return new Thread(r);
        };
        WorkerPool pool = invariants.track(WorkerPool.builder().name(Invariants.uniqueName("warned")).capacity(2)
                .nonblocking(true).threadFactory(oneThenFails).build());
        pool.addListener(new PoolListener() {
            @Override
            public void taskStarted(Pool p, long queuedNanos) {
                throw new IllegalStateException("listener down");
            }
        });
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        try {
            pool.execute(() -> {
                started.countDown();
                Latches.pass(release);
            });
            assertThat(started.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
            try {
                pool.execute(() -> { });
            } catch (RejectedExecutionException refused) {
                // no second worker: refused or not, the factory's failure is the point
            }
            assertThat(logged).anyMatch((m) -> m.contains("threw from taskStarted"))
                .anyMatch((m) -> m.contains("could not create a worker thread"));
        } finally {
            release.countDown();
        }
    }

    @Test
    void aListenerAddedThroughAForwardingPool_isNamedInTheWarning() throws Exception {
        WorkerPool pool = invariants.track(WorkerPool.builder().name(Invariants.uniqueName("fwd")).capacity(1).build());
        Pool forwarding = new ForwardingPool() {
            @Override
            protected Pool delegate() {
                return pool;
            }
        };
        forwarding.addListener(new PoolListener() {
            @Override
            public void taskStarted(Pool p, long queuedNanos) {
                throw new IllegalStateException("audit down");
            }

            @Override
            public String toString() {
                return "audit-listener";
            }
        });
        CountDownLatch ran = new CountDownLatch(1);
        pool.execute(ran::countDown);
        assertThat(ran.await(WAIT.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
        assertThat(logged).anyMatch((m) -> m.contains("listener audit-listener of pool"));
    }
}
