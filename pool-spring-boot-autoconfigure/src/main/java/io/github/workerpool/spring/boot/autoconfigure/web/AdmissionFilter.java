package io.github.workerpool.spring.boot.autoconfigure.web;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import io.github.workerpool.adaptive.AdaptiveCapacity;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.util.ClassUtils;

/**
 * Admits a request into the application while fewer than the web server pool's
 * {@linkplain WebServerPool#admissionLimit() limit} are in it, and answers the others at once
 * with a 503 and {@code Retry-After}; the overload is logged at most once a minute, and so is a
 * live change of the pool that breaks a rule startup enforced.
 */
final class AdmissionFilter implements Filter {

    /*
     * In flight: from the moment a request is admitted until it is done, which for an async
     * request is its AsyncContext's completion, error or timeout, not the return of its first
     * dispatch (it still holds the application's resources). The filter runs for REQUEST and
     * ERROR dispatches (not ASYNC ones: an async request is counted until it completes). The
     * error page of a request that failed (sendError, an exception) runs after its REQUEST
     * dispatch returned, on the same thread: it is counted again while it runs, without a limit
     * (the request was admitted, and its error page is its answer), or a slow one took a thread
     * the count called free. The error page of an async request runs before it completes, still
     * counted.
     *
     * The count is raised before it is compared with the limit: two requests that arrive together at the last
     * slot cannot both get in, and at worst one of them gets a 503 while the other is leaving.
     *
     * Requests under the exempt path (the actuator's) are let in and not counted while fewer than
     * reservedThreads - 1 of them are in, so the pool can be watched and tuned while the
     * application is full: they run on the reserved threads, and at least one of those is left to
     * answer the 503s (two slow health checks, waiting for the database the application waits for,
     * held both of the default reserve, and every new request then waited in the pool's queue).
     * One beyond that counts as the application's: let in while there is room, else a 503.
     */

    static final long LOG_INTERVAL_NANOS = TimeUnit.MINUTES.toNanos(1);

    /** Set on a request answered with a 503. */
    static final String REFUSED_ATTRIBUTE = AdmissionFilter.class.getName() + ".refused";

    /** The count an admitted request that failed left when its dispatch returned: its error page is counted there. */
    private static final String FAILED_ATTRIBUTE = AdmissionFilter.class.getName() + ".failed";

    /** The count an admitted request was in (RefusedUploadValve counts it again while it reads the rest of its body). */
    static final String COUNT_ATTRIBUTE = AdmissionFilter.class.getName() + ".count";

    /*
     * Adaptive sizing (pools.instances.<name>.adaptive) takes each task of the pool as a sample of
     * its run time. A request answered with a 503 is such a task too, done in a few hundred
     * microseconds: counted, a burst of them reads as the pool keeping up and raises the limit
     * while the admitted requests slow down. So a refused request, and an actuator request, leave
     * their task out (AdaptiveCapacity.ignoreCurrentTask), when pool-adaptive is there.
     */
    private static final Runnable NOT_A_SAMPLE = ClassUtils.isPresent(
            "io.github.workerpool.adaptive.AdaptiveCapacity", AdmissionFilter.class.getClassLoader())
                    ? AdaptiveSamples.hook() : () -> { };

    private static final Log logger = LogFactory.getLog(AdmissionFilter.class);

    private final WebServerPool pool;

    private final String retryAfter;

    private final String exemptPath;

    /** Boot's additional health paths served here (/livez, /readyz): exempt like the actuator. */
    private final List<String> probePaths;

    /** How to tune the pool live, for the overload message ("POST /actuator/pools/http/tune {}", {} for the body); null: no endpoint. */
    private final String tune;

    private final LongSupplier clock;

    private final AtomicInteger inFlight = new AtomicInteger();

    /** Exempt requests in now, counted apart from the application's. */
    private final AtomicInteger exemptInFlight = new AtomicInteger();

    private final LongAdder refusedSinceLog = new LongAdder();

    /** Every request refused with a 503 (the meter pool.requests.refused). */
    private final LongAdder refused = new LongAdder();

    /** Whether 503s were answered since the last message (set after counting one, cleared before the sum). */
    private volatile boolean refusedUnlogged;

    /** When the next overload may be logged; the first one is logged at once. */
    private final AtomicLong nextLogNanos;

    /** When the pool's options are next checked against the rules of WebServerPool's notes. */
    private final AtomicLong nextRuleCheckNanos;

    /**
     * @param exemptPath requests under this path are admitted uncounted while fewer than reservedThreads - 1 are in; null for none
     * @param tune the request that tunes the pool, for the overload message; null without the endpoint
     * @param clock nanoTime, or a test's
     */
    AdmissionFilter(WebServerPool pool, Duration retryAfter, String exemptPath, String tune, LongSupplier clock) {
        this(pool, retryAfter, exemptPath, List.of(), tune, clock);
    }

    /**
     * @param probePaths Boot's additional health paths on this server, exempt as the actuator is
     */
    AdmissionFilter(WebServerPool pool, Duration retryAfter, String exemptPath, List<String> probePaths, String tune,
            LongSupplier clock) {
        this.pool = pool;
        this.probePaths = List.copyOf(probePaths);
        long seconds = retryAfter.getSeconds() + ((retryAfter.getNano() > 0) ? 1 : 0);
        this.retryAfter = Long.toString(seconds);
        this.exemptPath = exemptPath;
        this.tune = tune;
        this.clock = clock;
        this.nextLogNanos = new AtomicLong(clock.getAsLong());
        this.nextRuleCheckNanos = new AtomicLong(clock.getAsLong());
    }

    /** Requests in the application now. */
    int inFlight() {
        return this.inFlight.get();
    }

    /** Requests refused with a 503 since the start. */
    long refused() {
        return this.refused.sum();
    }

    /** Exempt (actuator) requests in now, apart from the application's. */
    int exemptInFlight() {
        return this.exemptInFlight.get();
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        if (request.getDispatcherType() == DispatcherType.ERROR) {
            errorPage(request, response, chain);
            return;
        }
        long now = this.clock.getAsLong();
        checkRules(now);
        if (!(request instanceof HttpServletRequest http)) {
            chain.doFilter(request, response);
            return;
        }
        if (exempt(http)) {
            NOT_A_SAMPLE.run(); // the actuator's time says nothing about the application's
            if (this.exemptInFlight.incrementAndGet() < this.pool.reservedThreads()) {
                admitted(request, response, chain, this.exemptInFlight, now);
                return;
            }
            this.exemptInFlight.decrementAndGet(); // beyond the reserve's share: counted as the application's
        }
        int limit = this.pool.admissionLimit();
        int inFlight = this.inFlight.incrementAndGet();
        if (inFlight > limit) {
            this.inFlight.decrementAndGet();
            refuse(request, (HttpServletResponse) response, limit, now);
            return;
        }
        admitted(request, response, chain, this.inFlight, now);
    }

    /** Runs an admitted request, counted in {@code count} until it is done (an async one: until it completes). */
    private void admitted(ServletRequest request, ServletResponse response, FilterChain chain, AtomicInteger count,
            long now) throws IOException, ServletException {
        boolean async = false;
        boolean done = false;
        request.setAttribute(COUNT_ATTRIBUTE, count);
        try {
            logRefusedSinceIfDue(now);
            chain.doFilter(request, response);
            if (request.isAsyncStarted()) {
                request.getAsyncContext().addListener(new Release(count));
                async = true;
            }
            done = true;
        }
        finally {
            if (!async) {
                count.decrementAndGet();
                if (!done || (response instanceof HttpServletResponse http && http.getStatus() >= 400)) {
                    request.setAttribute(FAILED_ATTRIBUTE, count); // an error page may follow
                }
            }
        }
    }

    /** Runs the error page of an admitted request that failed counted in the count it left. */
    private static void errorPage(ServletRequest request, ServletResponse response, FilterChain chain)
            throws IOException, ServletException {
        if (!(request.getAttribute(FAILED_ATTRIBUTE) instanceof AtomicInteger count)) {
            chain.doFilter(request, response); // counted still (an async request), or never admitted
            return;
        }
        request.removeAttribute(FAILED_ATTRIBUTE);
        count.incrementAndGet();
        try {
            chain.doFilter(request, response);
        }
        finally {
            count.decrementAndGet();
        }
    }

    private boolean exempt(HttpServletRequest request) {
        if (this.exemptPath == null && this.probePaths.isEmpty()) {
            return false;
        }
        // The container's decoded and normalized path, not the raw URI: /actuator/../x is /x.
        String path = request.getServletPath() + ((request.getPathInfo() != null) ? request.getPathInfo() : "");
        if (this.exemptPath != null && (path.equals(this.exemptPath) || path.startsWith(this.exemptPath + "/"))) {
            return true;
        }
        // helper-149: a liveness probe refused with a 503 while the pool is full gets a busy,
        // healthy instance restarted, and the overload spreads to the rest of the fleet.
        for (String probe : this.probePaths) {
            if (path.equals(probe) || path.startsWith(probe + "/")) {
                return true;
            }
        }
        return false;
    }

    private void refuse(ServletRequest request, HttpServletResponse response, int limit, long now) throws IOException {
        NOT_A_SAMPLE.run();
        request.setAttribute(REFUSED_ATTRIBUTE, Boolean.TRUE); // Tomcat then reads none of its body (RefusedUploadValve)
        response.setStatus(HttpServletResponse.SC_SERVICE_UNAVAILABLE);
        response.setHeader("Retry-After", this.retryAfter);
        // Tomcat closes the connection of a 503 by itself, Jetty keeps it: closing it frees the
        // connection's slot (max-connections) for a client that retries, on both. HTTP/1 only:
        // HTTP/2 forbids the header (a client takes the response as malformed), and its other
        // streams are not this request's to close.
        String protocol = request.getProtocol();
        boolean http1 = protocol == null || protocol.startsWith("HTTP/1");
        if (http1) {
            response.setHeader("Connection", "close");
            response.setContentType("text/plain;charset=UTF-8");
            byte[] body = ("The server is at its limit of " + limit + " requests at once; retry after " + this.retryAfter
                    + " s.\n").getBytes(StandardCharsets.UTF_8);
            response.setContentLength(body.length);
            response.getOutputStream().write(body);
        }
        else {
            // No body on HTTP/2: a body is flow-controlled, and a client that opens no window kept
            // the reserved thread writing it until the server's write timeout (20 s on Tomcat), so
            // a few such clients took the whole reserve. Headers alone (END_STREAM) are not.
            response.setContentLength(0);
        }
        this.refused.increment();
        this.refusedSinceLog.increment();
        this.refusedUnlogged = true;
        logOverload(now, limit);
    }

    /**
     * Logs the 503s answered since the last message once the minute has passed, at the first
     * request admitted after it (a refused one tells them with itself): the end of a burst is
     * told then, not at the next overload, hours later. One volatile read per request while
     * nothing waits to be told.
     */
    private void logRefusedSinceIfDue(long now) {
        if (this.refusedUnlogged && now - this.nextLogNanos.get() >= 0) {
            if (this.refusedSinceLog.sum() == 0) {
                // Told already: the flag was set again by a refusal the last message counted. Not
                // logging now must not take the minute, or the next burst's first 503 would wait.
                this.refusedUnlogged = false;
                return;
            }
            logOverload(now, this.pool.admissionLimit());
        }
    }

    private void logOverload(long now, int limit) {
        if (!takeTheMinute(this.nextLogNanos, now)) {
            return;
        }
        this.refusedUnlogged = false; // before the sum: a refusal counted after it sets it again
        long refused = this.refusedSinceLog.sumThenReset();
        int capacity = this.pool.pool().capacity();
        int reserved = this.pool.reservedThreads();
        logger.warn("Web server overloaded: answered 503 to " + refused + " request(s) since the last such message"
                + " (at most one a minute); pool '" + this.pool.name() + "' admits " + limit
                + " requests at once (capacity " + capacity + " minus " + reserved + " of "
                + WebServerPool.RESERVED_PROPERTY + ((capacity - reserved < 1) ? ", and at least one" : "")
                + "). " + raise(capacity) + ".");
    }

    /**
     * What to raise. Under adaptive sizing its ceiling: a refreshed capacity only sets where
     * switching it off returns, and a tune of the capacity switches it off.
     */
    private String raise(int capacity) {
        if (this.pool.sizedAdaptively()) {
            // Read from startup's settings: the endpoint may have switched it off since, so both.
            return "Raise " + this.pool.option("adaptive.max-capacity") + " while adaptive sizing sets the capacity (a"
                    + " tune of the capacity switches it off), or " + this.pool.option("capacity") + " once it is off";
        }
        return "Raise " + this.pool.option("capacity") + tuneHint(capacity);
    }

    /** ", or tune it live: POST ..." for the overload message; "" without the endpoint. */
    private String tuneHint(int capacity) {
        if (this.tune == null) {
            return "";
        }
        if (this.exemptPath != null && this.pool.reservedThreads() < 2) {
            // With one reserved thread an actuator request on this server counts as the
            // application's: a tune sent while it is full is refused like the rest (one sent to a
            // management port of its own runs on that server's threads).
            return " (to tune it live while it is full, set " + WebServerPool.RESERVED_PROPERTY + " to 2 or more)";
        }
        return ", or tune it live: " + this.tune.replace("{}", "{\"capacity\": " + Math.max(capacity * 2, capacity + 1) + "}");
    }

    /**
     * Warns, at most once a minute, while a live change of the pool (a tune, a config refresh)
     * breaks a rule that startup enforced, such as a nonblocking pool that refuses Tomcat's tasks.
     */
    private void checkRules(long now) {
        if (!takeTheMinute(this.nextRuleCheckNanos, now)) {
            return;
        }
        String broken = this.pool.brokenRule();
        if (broken != null) {
            logger.warn("Web server pool changed while running (checked at most once a minute): " + broken);
        }
    }

    /**
     * Whether {@code now} is at or past {@code next} and this caller moved it a minute on: one
     * caller a minute, however many requests come at once.
     */
    private static boolean takeTheMinute(AtomicLong next, long now) {
        long due = next.get();
        return now - due >= 0 && next.compareAndSet(due, now + LOG_INTERVAL_NANOS);
    }

    /** Loaded only with pool-adaptive on the class path. */
    private static final class AdaptiveSamples {

        /** Nothing with a pool-adaptive older than this module (every 503 would throw NoSuchMethodError). */
        static Runnable hook() {
            return ClassUtils.hasMethod(AdaptiveCapacity.class, "ignoreCurrentTask")
                    ? AdaptiveCapacity::ignoreCurrentTask : () -> { };
        }

    }

    /** Ends the admission of an async request when it is done. */
    private static final class Release implements AsyncListener {

        private final AtomicBoolean released = new AtomicBoolean();

        private final AtomicInteger count;

        Release(AtomicInteger count) {
            this.count = count;
        }

        @Override
        public void onComplete(AsyncEvent event) {
            release();
        }

        @Override
        public void onTimeout(AsyncEvent event) {
            // onComplete follows once the timeout is handled
        }

        @Override
        public void onError(AsyncEvent event) {
            // onComplete follows once the error is handled
        }

        @Override
        public void onStartAsync(AsyncEvent event) {
            // an async restart: this listener is not carried over, so add it again
            event.getAsyncContext().addListener(this);
        }

        private void release() {
            if (this.released.compareAndSet(false, true)) {
                this.count.decrementAndGet();
            }
        }

    }

}
