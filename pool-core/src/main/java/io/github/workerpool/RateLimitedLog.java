package io.github.workerpool;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

/**
 * A warning logged at most once per period, with the count of those left out since the last
 * one: a failure that repeats per task (a listener or thread factory that always throws) must
 * not flood the log.
 */
final class RateLimitedLog {

    private static final System.Logger LOG = System.getLogger(WorkerPool.class.getName());
    private static final long PERIOD_NANOS = TimeUnit.MINUTES.toNanos(1);

    private final AtomicLong next = new AtomicLong(System.nanoTime());
    private final AtomicLong suppressed = new AtomicLong();

    void warn(Supplier<String> message, Throwable cause) {
        long now = System.nanoTime();
        long due = next.get();
        if (now - due < 0 || !next.compareAndSet(due, now + PERIOD_NANOS)) {
            suppressed.incrementAndGet();
            return;
        }
        long left = suppressed.getAndSet(0);
        String text;
        try {
            text = message.get();
        } catch (RuntimeException | Error e) { // say, a listener's toString() that throws: never past the caller's catch
            text = "(the message could not be made: " + e.getClass().getName() + ")";
        }
        log(System.Logger.Level.WARNING, text
                + (left > 0 ? " (" + left + " more like it in the last minute were not logged)" : ""), cause);
    }

    /**
     * Logs from the pool's catch blocks, which must not throw: a logging backend that does (a
     * Log4j2 appender with ignoreExceptions=false on a full disk, a failing JUL handler) would
     * leave a task uncounted or unrun and its worker dead. Such a failure is dropped: there is
     * nowhere left to report it.
     */
    static void log(System.Logger.Level level, String message, Throwable cause) {
        try {
            LOG.log(level, message, cause);
        } catch (Throwable logFailure) {
            // dropped, as above
        }
    }
}
