package io.github.workerpool.spring.boot.autoconfigure.event;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

import io.github.workerpool.Pool;
import io.github.workerpool.PoolConfig;
import io.github.workerpool.PoolStats;
import io.github.workerpool.PoolListener;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.aop.scope.ScopedProxyUtils;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.config.DestructionAwareBeanPostProcessor;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationContextAware;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ApplicationEventPublisherAware;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.SmartLifecycle;

/**
 * Publishes the {@link PoolEvent}s of every worker pool bean: rejections and timeouts as a
 * {@link PoolListener} sees them, saturations and closings as a periodic check sees them, each
 * kind rate-limited per pool.
 */
final class PoolEventPublisher
        implements DestructionAwareBeanPostProcessor, SmartLifecycle, ApplicationEventPublisherAware, BeanFactoryAware,
        ApplicationContextAware {

    /*
     * Two sides, so that neither a worker nor a caller ever pays for an event.
     *
     * Occurrences. Each pool bean gets a Watch, a PoolListener added when the bean is initialized
     * and removed before it is destroyed. On the thread involved it counts rejections, queue
     * timeouts and run timeouts: a rejection is a LongAdder increment and a volatile write; a
     * timeout also keeps the longest time the listener was given, under the Slot's monitor so
     * that an event's count and its longest time cover the same occurrences (timeouts are rare
     * next to tasks; rejections, which can storm, take no lock). No clock read, no allocation, no
     * publishing. It counts only while the publisher runs (between start() and stop()).
     *
     * The check. One daemon thread, "pool-events", runs check() every check-interval while the
     * publisher runs. It reads the clock once, then for each pool isClosed(), capacity() and
     * running(), and waiting() and queued() only when every worker is busy (queued() costs more
     * for an unbounded queue, which is never full, so it is not read for one). It follows two
     * states per pool:
     *   - saturation: not seen -> seen at the first check that finds it (saturatedSince) ->
     *     recorded once a check finds it still saturated saturation-after later (one
     *     occurrence) -> back to not seen at the first check that finds it unsaturated;
     *   - closed: an occurrence when a check finds closed a pool the previous check found open.
     * Then, per kind, if occurrences are pending and the last event of that kind for that pool is
     * min-interval old (or there was none), it drains them (sumThenReset: an occurrence counted
     * during the drain goes to the next event, none is lost) into one event that says how many it
     * stands for, with the pool's stats() read once for all the events of that check. All this
     * happens under lock (one check at a time; the states are only touched there); the events
     * are published after the lock is let go, so a listener may do anything, even make a pool
     * bean. Listeners run on the check thread, and a storm costs them one event per pool, kind
     * and min-interval. Saturation is sampled: "continuously" means at every check.
     *
     * Lifecycle. A SmartLifecycle in the last phase (Integer.MAX_VALUE, SmartLifecycle's
     * default): it starts after, and stops before, every lower phase, among them the web server's
     * and the pools' own (-1024), which releases them at context stop or close. start() takes as open or closed whatever each pool is, so
     * only a closing seen while it runs is an event. stop() clears running under lock, so no
     * check reads a pool after it; then it waits (at most STOP_WAIT, and not when a listener on
     * the check thread stops the context) for the check thread to publish what it found before
     * and end. So the pools closed by the context's stop or close send no event; nor, once the
     * context is closing (isClosed(), set before its ContextClosedEvent), does a pool that an
     * application's listener or lifecycle bean in this phase releases first. A listener that
     * throws is logged; the checks go on. The post-processor methods take no lock: watches is a
     * concurrent map, and a Watch's states are set in its constructor and then touched only by
     * check() and start(), under lock.
     */

    /** Longest stop() waits for the check thread to publish what it found and end. */
    static final Duration STOP_WAIT = Duration.ofSeconds(10);

    private static final Log logger = LogFactory.getLog(PoolEventPublisher.class);

    private static final long CHECK_FAILURE_LOG_NANOS = TimeUnit.MINUTES.toNanos(1);

    private final long checkIntervalNanos;

    private final long minIntervalNanos;

    private final long saturationAfterNanos;

    private final LongSupplier nanoClock;

    private final Map<String, Watch> watches = new ConcurrentHashMap<>();

    private final Object lock = new Object();

    private volatile boolean running;

    private ScheduledExecutorService checker;

    private volatile Thread checkerThread;

    private ApplicationEventPublisher publisher;

    private BeanFactory beanFactory; // null when made outside a context (tests): every pool is watched

    /** Its context, to tell a pool closed by the context's close from one closed while it runs; null outside one. */
    private ConfigurableApplicationContext context;

    PoolEventPublisher(PoolEventsProperties properties) {
        this(properties, System::nanoTime);
    }

    /** With a clock of its own, for tests. */
    PoolEventPublisher(PoolEventsProperties properties, LongSupplier nanoClock) {
        properties.check();
        // A duration past long nanoseconds (292 years) means never; it is not an overflow.
        this.checkIntervalNanos = nanos(properties.getCheckInterval());
        this.minIntervalNanos = nanos(properties.getMinInterval());
        this.saturationAfterNanos = nanos(properties.getSaturationAfter());
        this.nanoClock = nanoClock;
    }

    private static long nanos(Duration duration) {
        try {
            return duration.toNanos();
        }
        catch (ArithmeticException ex) {
            return Long.MAX_VALUE;
        }
    }

    @Override
    public void setApplicationEventPublisher(ApplicationEventPublisher publisher) {
        this.publisher = publisher;
    }

    @Override
    public void setApplicationContext(ApplicationContext applicationContext) {
        this.context = (applicationContext instanceof ConfigurableApplicationContext configurable) ? configurable : null;
    }

    /**
     * Whether the context is closing: from before its ContextClosedEvent on, so a pool that an
     * application's ContextClosedEvent listener or lifecycle bean releases (in this publisher's
     * phase, before it stops) is no closing while the application runs.
     */
    private boolean contextClosing() {
        ConfigurableApplicationContext c = this.context;
        return c != null && c.isClosed();
    }

    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        this.beanFactory = beanFactory;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) throws BeansException {
        if (bean instanceof Pool pool && PoolEventsMeterBinder.singleton(this.beanFactory, beanName)) {
            Watch watch = new Watch(beanName, pool);
            pool.addListener(watch);
            Watch previous = this.watches.put(beanName, watch);
            if (previous != null) {
                previous.pool.removeListener(previous);
            }
        }
        else if (bean instanceof Pool target && ScopedProxyUtils.isScopedTarget(beanName)) {
            // A new instance behind a scoped pool bean (@RefreshScope, say): the watch listens to
            // each, or its events would stop at the first one's end. The first, made by the
            // addListener above through the proxy, comes before the watch is recorded.
            Watch watch = this.watches.get(ScopedProxyUtils.getOriginalBeanName(beanName));
            if (watch != null) {
                target.addListener(watch);
            }
        }
        return bean;
    }

    @Override
    public void postProcessBeforeDestruction(Object bean, String beanName) throws BeansException {
        if (bean instanceof Pool pool) {
            // By name: the bean destroyed is the raw one, while the one watched may be what a
            // post-processor made of it (an AOP proxy), as the meters find theirs (helper-162).
            Watch watch = this.watches.get(beanName);
            if (watch != null && this.watches.remove(beanName, watch)) {
                try {
                    watch.pool.removeListener(watch);
                }
                catch (RuntimeException ex) {
                    // The watch is gone already; a pool that cannot be reached tells it nothing more.
                    logger.debug("Pool '" + beanName + "': its events listener not removed from it", ex);
                }
            }
        }
    }

    @Override
    public boolean requiresDestruction(Object bean) {
        return bean instanceof Pool;
    }

    @Override
    public void start() {
        synchronized (this.lock) {
            if (this.running) {
                return;
            }
            this.watches.values().forEach(Watch::reset);
            this.running = true;
            this.checker = Executors.newSingleThreadScheduledExecutor((task) -> {
                Thread thread = new Thread(task, "pool-events");
                thread.setDaemon(true);
                this.checkerThread = thread;
                return thread;
            });
            this.checker.scheduleWithFixedDelay(this::check, this.checkIntervalNanos, this.checkIntervalNanos,
                    TimeUnit.NANOSECONDS);
        }
    }

    @Override
    public void stop() {
        ScheduledExecutorService stopped;
        synchronized (this.lock) {
            this.running = false;
            stopped = this.checker;
            this.checker = null;
        }
        if (stopped == null) {
            return;
        }
        stopped.shutdown();
        if (Thread.currentThread() != this.checkerThread) {
            try {
                if (!stopped.awaitTermination(STOP_WAIT.toNanos(), TimeUnit.NANOSECONDS)) {
                    logger.warn("Pool events: a listener still runs " + STOP_WAIT.toSeconds()
                            + "s after the application began to stop");
                }
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public boolean isRunning() {
        return this.running;
    }

    /**
     * Not stopped by the context's {@code pause()}: the pools are not (SpringPool), and the events
     * of what they refuse meanwhile would be lost (a restart forgets what came while stopped).
     */
    @Override
    public boolean isPauseable() {
        return false;
    }

    @Override
    public int getPhase() {
        return Integer.MAX_VALUE;
    }

    /** Checks every pool and publishes the events that are due; see the notes. */
    void check() {
        List<PoolEvent> due = new ArrayList<>();
        synchronized (this.lock) {
            if (!this.running) {
                return;
            }
            long now = this.nanoClock.getAsLong();
            for (Watch watch : this.watches.values()) {
                try {
                    watch.check(now, due);
                }
                catch (RuntimeException | Error ex) {
                    rethrowIfOutOfMemory(ex);
                    // A pool that cannot be read fails every check (each second): once a minute.
                    if (!watch.checkFailureLogged || now - watch.checkFailureLoggedAt >= CHECK_FAILURE_LOG_NANOS) {
                        watch.checkFailureLogged = true;
                        watch.checkFailureLoggedAt = now;
                        logger.warn("Pool events of '" + watch.name + "' not checked (logged at most once a minute)", ex);
                    }
                }
            }
        }
        due.forEach(this::publish);
    }

    private static void rethrowIfOutOfMemory(Throwable ex) {
        if (ex instanceof OutOfMemoryError oom) {
            throw oom;
        }
    }

    private void publish(PoolEvent event) {
        try {
            this.publisher.publishEvent(event);
        }
        catch (RuntimeException | Error ex) {
            // An Error too (an assertion, a class missing, a recursion too deep): one escaping the
            // scheduled check would end every later check, silently. Not a lack of memory.
            rethrowIfOutOfMemory(ex);
            logger.warn("A listener failed on " + event, ex);
        }
    }

    /** One pool: its listener, its states and its pending occurrences. */
    private final class Watch implements PoolListener {

        final String name;

        final Pool pool;

        final Slot rejections = new Slot();

        final Slot queueTimeouts = new Slot();

        final Slot runTimeouts = new Slot();

        final Slot saturations = new Slot();

        final Slot closings = new Slot();

        volatile RejectedExecutionException lastRejection;

        /** Guarded by the publisher's lock, as are the fields that follow. */
        private boolean closed;

        private boolean checkFailureLogged;

        private long checkFailureLoggedAt;

        private boolean saturationSeen;

        private long saturatedSince;

        private boolean saturationRecorded;

        Watch(String name, Pool pool) {
            this.name = name;
            this.pool = pool;
            this.closed = pool.isClosed();
        }

        @Override
        public void taskRejected(Pool p, RejectedExecutionException rejection) {
            if (PoolEventPublisher.this.running) {
                this.lastRejection = rejection;
                this.rejections.increment();
            }
        }

        @Override
        public void queueTimedOut(Pool p, long queuedNanos) {
            if (PoolEventPublisher.this.running) {
                this.queueTimeouts.record(queuedNanos);
            }
        }

        @Override
        public void runTimedOut(Pool p, long runNanos) {
            if (PoolEventPublisher.this.running) {
                this.runTimeouts.record(runNanos);
            }
        }

        /** Forgets what happened while the publisher was stopped; under the lock. */
        void reset() {
            try {
                this.closed = this.pool.isClosed();
            }
            catch (RuntimeException ex) {
                // A pool that cannot be read must not fail the application's start (nor leave
                // events off for every pool): taken as open; its checks warn once a minute.
                this.closed = false;
            }
            this.saturationSeen = false;
            this.saturationRecorded = false;
            for (Slot slot : new Slot[] { this.rejections, this.queueTimeouts, this.runTimeouts, this.saturations,
                    this.closings }) {
                slot.reset();
            }
        }

        /** One check of this pool at {@code now}, adding the events that are due to {@code due}; under the lock. */
        void check(long now, List<PoolEvent> due) {
            boolean closedNow = this.pool.isClosed();
            if (closedNow && !this.closed && !contextClosing()) {
                this.closings.increment();
            }
            this.closed = closedNow;
            if (!closedNow && saturated()) {
                if (!this.saturationSeen) {
                    this.saturationSeen = true;
                    this.saturatedSince = now;
                }
                long saturatedFor = now - this.saturatedSince;
                if (!this.saturationRecorded && saturatedFor >= PoolEventPublisher.this.saturationAfterNanos) {
                    this.saturationRecorded = true;
                    this.saturations.record(saturatedFor);
                }
            }
            else {
                this.saturationSeen = false;
                this.saturationRecorded = false;
            }
            boolean timeoutsDue = this.queueTimeouts.isDue(now) || this.runTimeouts.isDue(now);
            if (!timeoutsDue && !this.closings.isDue(now) && !this.saturations.isDue(now) && !this.rejections.isDue(now)) {
                return;
            }
            // Read before anything is drained: a read that throws leaves every occurrence pending
            // for the next check (drained first, they were lost: helper-162). Occurrences only
            // come, never go, so each slot found due here is still due below.
            PoolStats stats = this.pool.stats();
            PoolConfig config = null;
            RuntimeException configFailure = null;
            if (timeoutsDue) {
                try {
                    config = this.pool.config();
                }
                catch (RuntimeException ex) {
                    configFailure = ex; // the timeouts wait for a check that can read it; the rest go now
                }
            }
            long n = this.closings.due(now);
            if (n > 0) {
                due.add(new PoolClosedEvent(this.pool, this.name, n, stats));
            }
            n = this.saturations.due(now);
            if (n > 0) {
                due.add(new PoolSaturationEvent(this.pool, this.name, n, stats,
                        Duration.ofNanos(this.saturations.longestNanos)));
            }
            n = this.rejections.due(now);
            if (n > 0) {
                due.add(new PoolRejectionEvent(this.pool, this.name, n, stats, this.lastRejection));
            }
            if (configFailure != null) {
                throw configFailure; // logged by check(), at most once a minute
            }
            if (config == null) {
                return;
            }
            n = this.queueTimeouts.due(now);
            if (n > 0) {
                due.add(new PoolQueueTimeoutEvent(this.pool, this.name, n, stats,
                        Duration.ofNanos(this.queueTimeouts.longestNanos), config.queueTimeout()));
            }
            n = this.runTimeouts.due(now);
            if (n > 0) {
                due.add(new PoolRunTimeoutEvent(this.pool, this.name, n, stats,
                        Duration.ofNanos(this.runTimeouts.longestNanos), config.runTimeout()));
            }
        }

        /** Every worker of a bounded pool busy, and callers waiting or the queue full. */
        private boolean saturated() {
            int capacity = this.pool.capacity();
            if (capacity < 0 || this.pool.running() < capacity) {
                return false;
            }
            if (this.pool.waiting() > 0) {
                return true;
            }
            int queueCapacity = this.pool.queueCapacity(); // a MultiPool's: all its queues, as queued() counts
            return queueCapacity > 0 && queueCapacity < Integer.MAX_VALUE && this.pool.queued() >= queueCapacity;
        }

    }

    /** The pending occurrences of one kind for one pool, and when its last event was published. */
    private final class Slot {

        private final LongAdder pending = new LongAdder();

        /** The longest time among the pending occurrences, for the kinds that have one; guarded by this. */
        private long longestPending;

        /** The longest time among the occurrences of the last drain; guarded by the publisher's lock. */
        long longestNanos;

        /** Guarded by the publisher's lock, as is published. */
        private long publishedAt;

        private boolean published;

        /** Counts an occurrence that has no time. */
        void increment() {
            this.pending.increment();
        }

        /** Counts an occurrence and its time. */
        synchronized void record(long nanos) {
            this.longestPending = Math.max(this.longestPending, nanos);
            this.pending.increment();
        }

        synchronized void reset() {
            this.pending.reset();
            this.longestPending = 0;
        }

        /** Whether occurrences are pending and the last event of this kind is min-interval old (or none was published). */
        boolean isDue(long now) {
            return this.pending.sum() != 0
                    && !(this.published && now - this.publishedAt < PoolEventPublisher.this.minIntervalNanos);
        }

        /**
         * Drains and returns the pending occurrences if an event is due at {@code now}, else 0;
         * longestNanos is then the longest time among them.
         */
        long due(long now) {
            if (!isDue(now)) {
                return 0;
            }
            long n;
            synchronized (this) {
                // sumThenReset: an increment racing with it is counted now or in the next drain, never lost.
                n = this.pending.sumThenReset();
                this.longestNanos = this.longestPending;
                this.longestPending = 0;
            }
            if (n > 0) {
                this.published = true;
                this.publishedAt = now;
            }
            return n;
        }

    }

}
