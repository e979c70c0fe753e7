package io.github.workerpool.spring.boot.autoconfigure;

import java.security.Principal;
import java.time.Duration;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

import io.github.workerpool.MultiPool;
import io.github.workerpool.Pool;
import io.github.workerpool.PoolConfig;
import io.github.workerpool.PoolStats;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.audit.listener.AuditApplicationEvent;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.context.ApplicationEventPublisher;

/**
 * The {@code pools} actuator endpoint: every worker pool bean with its counts and configuration,
 * and the {@code tune} and {@code purge} actions. Reads are open by default; the actions need
 * {@code management.endpoint.pools.access=unrestricted}.
 */
@Endpoint(id = "pools", defaultAccess = Access.READ_ONLY)
public class PoolsEndpoint {

    private static final Log logger = LogFactory.getLog(PoolsEndpoint.class);

    /** The audit event type of a tune. */
    static final String TUNED = "POOL_TUNED";

    /** The audit event type of a purge. */
    static final String PURGED = "POOL_PURGED";

    private final Supplier<Map<String, Pool>> pools;

    private final @Nullable ApplicationEventPublisher events;

    /**
     * Creates the endpoint.
     * @param pools supplies the pools to expose, by bean name, each time one is looked up
     */
    public PoolsEndpoint(Supplier<Map<String, Pool>> pools) {
        this(pools, null);
    }

    /**
     * Creates the endpoint that audits its writes.
     * @param pools supplies the pools to expose, by bean name, each time one is looked up
     * @param events where each write is published as an {@link AuditApplicationEvent}; null for none
     */
    public PoolsEndpoint(Supplier<Map<String, Pool>> pools, @Nullable ApplicationEventPublisher events) {
        this.pools = pools;
        this.events = events;
    }

    /** What may refuse {@code {"adaptive": true}}; the auto-configuration sets the web server pool's rule. */
    private WebServerGuard webServerGuard = WebServerGuard.NONE;

    void webServerGuard(WebServerGuard guard) {
        this.webServerGuard = guard;
    }

    /** Returns every pool; one that cannot be read is listed apart, with why. */
    @ReadOperation
    public PoolsDescriptor pools() {
        Map<String, PoolDescriptor> all = new LinkedHashMap<>();
        Map<String, String> unreadable = new LinkedHashMap<>();
        this.pools.get().forEach((name, pool) -> {
            try {
                all.put(name, PoolDescriptor.of(name, pool));
            }
            catch (RuntimeException ex) {
                // One pool that cannot be read (a refresh-scoped bean that could not be rebuilt) made
                // the whole answer a 500: every pool vanished from the view. Not logged here (the view
                // polls every few seconds); its meters warn once a minute.
                unreadable.put(name, String.valueOf(ex));
            }
        });
        return new PoolsDescriptor(all, unreadable);
    }

    /**
     * Returns one pool.
     * @param name the pool's bean name
     * @return the pool, or null (a 404 over HTTP) if there is none of that name
     */
    @ReadOperation
    public @Nullable PoolDescriptor pool(@Selector String name) {
        Pool pool = this.pools.get().get(name);
        return (pool != null) ? PoolDescriptor.of(name, pool) : null;
    }

    /**
     * Runs an action on one pool: {@code tune}, with any live options (by their {@code config}
     * names), or {@code purge}. A tune changes every given option at once; if one is invalid,
     * none changes. Durations are written as Spring Boot writes them ({@code "2s"},
     * {@code "PT2S"}), or {@code "none"} for no limit.
     * @param name the pool's bean name
     * @param action {@code tune} or {@code purge}
     * @param capacity most tasks that may run at once
     * @param queueCapacity tasks held while every worker is busy
     * @param expiry idle worker lifetime
     * @param disablePurge whether idle workers never expire
     * @param nonblocking whether a full pool rejects at once
     * @param maxBlockingTasks most callers that may wait
     * @param blockingTimeout longest a caller waits
     * @param queueTimeout submit-to-start time beyond which a task is reported
     * @param runTimeout run time beyond which a task is reported
     * @param preAlloc refused: fixed when the pool is built
     * @param virtualThreads refused: fixed when the pool is built
     * @param adaptive true or false: switches adaptive capacity on or off (see the README); with
     *        {@code capacity}, that capacity is the one adaptive sizing starts from and switching it off
     *        restores; a {@code capacity} alone on an adaptive pool switches it off and keeps the capacity
     * @param securityContext who asks, for the audit
     * @return for tune the pool after the change; for purge a {@link PurgeDescriptor}; null if
     *         there is no pool of that name (nothing is created)
     * @throws InvalidEndpointRequestException if the action or a value is invalid; the pool is
     *         then unchanged
     */
    @WriteOperation
    public @Nullable Object action(@Selector String name, @Selector String action, @Nullable Object capacity,
            @Nullable Object queueCapacity, @Nullable Object expiry, @Nullable Object disablePurge,
            @Nullable Object nonblocking, @Nullable Object maxBlockingTasks, @Nullable Object blockingTimeout,
            @Nullable Object queueTimeout, @Nullable Object runTimeout, @Nullable Object preAlloc,
            @Nullable Object virtualThreads, @Nullable Object adaptive, @Nullable SecurityContext securityContext) {
        Map<PoolOption, Object> fields = new EnumMap<>(PoolOption.class);
        put(fields, PoolOption.CAPACITY, capacity);
        put(fields, PoolOption.QUEUE_CAPACITY, queueCapacity);
        put(fields, PoolOption.EXPIRY, expiry);
        put(fields, PoolOption.DISABLE_PURGE, disablePurge);
        put(fields, PoolOption.NONBLOCKING, nonblocking);
        put(fields, PoolOption.MAX_BLOCKING_TASKS, maxBlockingTasks);
        put(fields, PoolOption.BLOCKING_TIMEOUT, blockingTimeout);
        put(fields, PoolOption.QUEUE_TIMEOUT, queueTimeout);
        put(fields, PoolOption.RUN_TIMEOUT, runTimeout);
        put(fields, PoolOption.PRE_ALLOC, preAlloc);
        put(fields, PoolOption.VIRTUAL_THREADS, virtualThreads);
        return action(name, action, fields, adaptive, principal(securityContext));
    }

    /** Runs an action with the given fields (those of the request that are not null). */
    @Nullable Object action(String name, String action, Map<PoolOption, Object> fields, String principal) {
        return action(name, action, fields, null, principal);
    }

    /** Runs an action with the given fields and the {@code adaptive} field (null if not sent). */
    @Nullable Object action(String name, String action, Map<PoolOption, Object> fields, @Nullable Object adaptive,
            String principal) {
        Pool pool = this.pools.get().get(name);
        if (pool == null) {
            return null;
        }
        return switch (action) {
            case "tune" -> {
                reachable(name, pool);
                Tuned tuned;
                if (pool instanceof SpringPool springPool) {
                    synchronized (springPool.changes()) { // one refresh or endpoint tune at a time (see SpringPool)
                        tuned = tune(name, pool, fields, adaptive);
                    }
                }
                else {
                    tuned = tune(name, pool, fields, adaptive);
                }
                // Told after the lock: an audit listener may take its time, and a refresh waits for the lock.
                audit(principal, TUNED, name, Map.of("old", tuned.oldValues(), "new", tuned.newValues()));
                logger.info("Pool '" + name + "' tuned by " + principal + ": "
                        + changes(tuned.oldValues(), tuned.newValues()));
                yield PoolDescriptor.of(name, pool);
            }
            case "purge" -> {
                // Also refused before actuator by the web filters; this is JMX's (and any caller's) check.
                if (!fields.isEmpty() || adaptive != null) {
                    String sent = !fields.isEmpty() ? fields.keySet().iterator().next().field() : "adaptive";
                    throw badRequest("Cannot purge pool '" + name + "': " + TuneBody.purgeTakesNoOptions(sent));
                }
                reachable(name, pool);
                yield purge(name, pool, principal);
            }
            default -> throw badRequest("Unknown action '" + action + "' for pool '" + name + "': use tune or purge");
        };
    }

    /**
     * Reads the pool's options before an action changes anything: a refresh-scoped pool whose
     * target could not be rebuilt throws from every method, and is then refused as unreachable,
     * nothing changed (an answer the HTTP side makes a 503).
     */
    private static void reachable(String name, Pool pool) {
        try {
            pool.config();
        }
        catch (RuntimeException ex) {
            throw new PoolUnreachableException(name, ex);
        }
    }

    /** A pool an action could not reach: nothing was changed. */
    static final class PoolUnreachableException extends RuntimeException {

        PoolUnreachableException(String name, RuntimeException cause) {
            super("Pool '" + name + "' could not be reached, nothing was changed: " + cause, cause);
        }

    }

    private static void put(Map<PoolOption, Object> fields, PoolOption option, @Nullable Object value) {
        if (value != null) {
            fields.put(option, value);
        }
    }

    /** A tune's changes: each field's value before and after. */
    private record Tuned(Map<String, Object> oldValues, Map<String, Object> newValues) {
    }

    /**
     * Startup refuses drop-on under gradient2 only on a pool that starts adaptive (a default's
     * drop-on reaches pools that do not): one switched on here would ignore it without a word.
     */
    private static void warnIfDropOnUnused(String name, PoolSettings.AdaptiveSettings settings) {
        if (settings.algorithm().equals("gradient2") && !settings.dropOn().isEmpty()) {
            logger.warn("Pool '" + name + "': adaptive sizing switched on with gradient2 ("
                    + settings.algorithmProperty() + "), which never backs off on a failure, so its drop-on "
                    + settings.dropOnNames() + " is not used; set " + settings.algorithmProperty()
                    + " to aimd or vegas for drop-on to count");
        }
    }

    private Tuned tune(String name, Pool pool, Map<PoolOption, Object> fields, @Nullable Object adaptiveField) {
        String prefix = "Cannot tune pool '" + name + "': ";
        if (fields.isEmpty() && adaptiveField == null) {
            throw badRequest(prefix + "nothing to change; send one or more of " + liveFields()
                    + ", adaptive, such as {\"capacity\": 50}");
        }
        Map<PoolOption, Object> values = new EnumMap<>(PoolOption.class);
        for (Map.Entry<PoolOption, Object> field : fields.entrySet()) {
            PoolOption option = field.getKey();
            if (!option.live()) {
                throw badRequest(prefix + option.field() + " is fixed when the pool is built; it takes a restart to "
                        + "change. Live options: " + liveFields());
            }
            try {
                values.put(option, option.parse(field.getValue()));
            }
            catch (IllegalArgumentException ex) {
                throw badRequest(prefix + ex.getMessage());
            }
        }
        if (values.get(PoolOption.CAPACITY) instanceof Integer capacity && pool.config().preAlloc()
                && capacity == pool.config().capacity()) {
            // Refused even to the capacity it has, as the pool's tune refuses it (helper-168: a 200
            // and an audited "capacity 2 -> 2" for a tune of what cannot be tuned); another
            // capacity is refused by reconfigure below, in the pool's words. Not by calling tune:
            // a wrapper that audits its calls would record a refused one (helper-176).
            throw badRequest(prefix + "pool '" + name + "' was built with preAlloc(true): its capacity " + capacity
                    + " cannot be tuned, even to itself; set " + PoolSettings.property(name, "pre-alloc")
                    + " to false (or build it without preAlloc) and restart to tune it");
        }
        AdaptiveSupport.Control adaptive = (pool instanceof SpringPool springPool) ? springPool.adaptive() : null;
        Boolean adaptiveValue = null;
        if (adaptiveField != null) {
            adaptiveValue = adaptiveValue(adaptiveField, prefix);
            if (adaptive == null) {
                throw badRequest(prefix + "it has no adaptive capacity: " + (pool.config().preAlloc()
                        ? "it was built with preAlloc, which fixes its capacity"
                        : (pool instanceof SpringPool) ? "add the " + AdaptiveSupport.DEPENDENCY + " dependency"
                        : "only pools from pools.instances have one here (build an AdaptiveCapacity for your own)"));
            }
        }
        if (adaptive != null && Boolean.TRUE.equals(adaptiveValue) && !adaptive.enabled()) {
            String refusal = this.webServerGuard.adaptiveRefusal(name, adaptive.settings().minCapacity());
            if (refusal != null) {
                throw badRequest(prefix + refusal);
            }
        }
        boolean wasAdaptive = adaptive != null && adaptive.enabled();
        // With adaptive sizing involved, a capacity is the configured capacity, applied after the rest.
        Integer capacity = (adaptive != null && (adaptiveValue != null || wasAdaptive))
                ? (Integer) values.remove(PoolOption.CAPACITY) : null;
        PoolConfig before = pool.config();
        if (adaptive != null && adaptive.settings().algorithm().equals("aimd")) {
            // As at startup: AIMD backs off only on a run past runTimeout; without one it only grows.
            boolean onAfter = (adaptiveValue != null) ? adaptiveValue : (capacity == null && wasAdaptive);
            Object runTimeoutAfter = values.containsKey(PoolOption.RUN_TIMEOUT) ? values.get(PoolOption.RUN_TIMEOUT)
                    : before.runTimeout();
            if (onAfter && runTimeoutAfter == null) {
                throw badRequest(prefix + "its adaptive sizing is aimd, which backs off only when a task runs longer "
                        + "than runTimeout, so without one the capacity would only grow; keep a runTimeout, or send "
                        + "\"adaptive\": false with it");
            }
        }
        if (capacity != null) {
            try {
                before.withCapacity(capacity);
            }
            catch (IllegalArgumentException ex) {
                throw badRequest(prefix + ex.getMessage());
            }
        }
        // The web server's rules judge the options the pool ends with. With adaptive sizing taking
        // part its capacity is applied after the rest: bounded (up to its max) while it is on, the
        // configured one once it is off.
        Integer finalCapacity = (adaptive != null && (adaptiveValue != null || capacity != null))
                ? (Boolean.TRUE.equals(adaptiveValue) ? Integer.valueOf(adaptive.settings().maxCapacity())
                        : (capacity != null) ? capacity : Integer.valueOf(adaptive.configuredCapacity()))
                : null;
        UnaryOperator<PoolConfig> ending = (next) -> (finalCapacity != null) ? next.withCapacity(finalCapacity) : next;
        if (values.isEmpty()) {
            String refusal = this.webServerGuard.configRefusal(name, ending.apply(before));
            if (refusal != null) {
                throw badRequest(prefix + refusal);
            }
        }
        PoolConfig after;
        // The options the change was made to: reconfigure runs the function again on another
        // caller's result if one came in between, and the last run is the one that took effect (a
        // pool the application made is not serialized with other tunes here, as SpringPool is:
        // two concurrent tunes both audited the value read before either, found by a review).
        AtomicReference<PoolConfig> changed = new AtomicReference<>(before);
        try {
            after = values.isEmpty() ? before : pool.reconfigure((config) -> {
                changed.set(config);
                PoolConfig next = config;
                for (Map.Entry<PoolOption, Object> value : values.entrySet()) {
                    next = value.getKey().applyTo(next, value.getValue());
                }
                String refusal = this.webServerGuard.configRefusal(name, ending.apply(next));
                if (refusal != null) {
                    throw new IllegalArgumentException(refusal); // before anything changes
                }
                return next;
            });
        }
        catch (IllegalArgumentException | IllegalStateException ex) {
            throw badRequest(prefix + asSent(String.valueOf(ex.getMessage()), name, values.values()));
        }
        if (adaptive != null && (adaptiveValue != null || capacity != null)) {
            // A capacity with adaptive true restarts the sizing from it (clamped); without, or
            // with false, the pool keeps that capacity and adaptive sizing is off.
            adaptive.switchTo(Boolean.TRUE.equals(adaptiveValue), capacity);
            after = pool.config();
        }
        Map<String, Object> oldValues = new LinkedHashMap<>();
        Map<String, Object> newValues = new LinkedHashMap<>();
        if (capacity != null) {
            oldValues.put(PoolOption.CAPACITY.field(), PoolOption.CAPACITY.display(before));
            newValues.put(PoolOption.CAPACITY.field(), PoolOption.CAPACITY.display(after));
        }
        for (PoolOption option : values.keySet()) {
            oldValues.put(option.field(), option.display(changed.get()));
            newValues.put(option.field(), option.display(after));
        }
        if (adaptive != null && (adaptiveValue != null || capacity != null)) {
            oldValues.put("adaptive", wasAdaptive);
            newValues.put("adaptive", adaptive.enabled());
        }
        if (adaptive != null && !wasAdaptive && adaptive.enabled()) {
            warnIfDropOnUnused(name, adaptive.settings()); // once switched on (helper-173: not for a refused tune)
        }
        return new Tuned(oldValues, newValues);
    }

    /**
     * The pool's message as a request writes values ("-1s", not the builder's "PT-1S"; "none", not
     * null), with the fix a caller of the endpoint has: its fields, or the pool's properties and a
     * restart, not the builder's calls (helper-143).
     */
    private static String asSent(String message, String pool, java.util.Collection<Object> values) {
        String sent = message.replace("or null for none", "or \"none\"")
            // expiry "none" reaches the pool as null
            .replace("expiry must be a positive duration, but was null;", "expiry must be a positive duration, but was \"none\";")
            .replace("to keep idle workers forever use disablePurge(true)", "to keep idle workers forever send {\"disablePurge\": true}")
            .replace(" must not be negative, but was", " must be 0 or more, or \"none\" for no limit, but was")
            .replace("change it within its kind, or build a new pool", "change it within its kind, or set "
                    + PoolSettings.property(pool, "queue-capacity") + " (or the code that builds the pool) and restart")
            .replace("build it without preAlloc to tune it", "set " + PoolSettings.property(pool, "pre-alloc")
                    + " to false (or build it without preAlloc) and restart to tune it");
        return PoolConfigurationException.withDurationsShown(sent, values);
    }

    private static boolean adaptiveValue(Object raw, String prefix) {
        if (raw instanceof Boolean b) {
            return b;
        }
        if (raw instanceof String text && (text.trim().equalsIgnoreCase("true") || text.trim().equalsIgnoreCase("false"))) {
            return Boolean.parseBoolean(text.trim());
        }
        throw badRequest(prefix + "adaptive must be true or false, but was "
                + ((raw instanceof String) ? "\"" + raw + "\"" : String.valueOf(raw)));
    }

    private static String changes(Map<String, Object> oldValues, Map<String, Object> newValues) {
        StringBuilder out = new StringBuilder();
        for (Map.Entry<String, Object> old : oldValues.entrySet()) {
            out.append((out.length() > 0) ? ", " : "").append(old.getKey()).append(' ').append(old.getValue())
                .append(" -> ").append(newValues.get(old.getKey()));
        }
        return out.toString();
    }

    /**
     * Publishes the audit event of a change already made. A listener that throws (an audit store
     * that is down) is logged at ERROR with the change: answered as a 500, the change looked
     * refused (PRODUCT.md: an error changes nothing) and invited a retry.
     */
    private void audit(String principal, String type, String pool, Map<String, Object> data) {
        if (this.events != null) {
            Map<String, Object> all = new LinkedHashMap<>();
            all.put("pool", pool);
            all.putAll(data);
            try {
                this.events.publishEvent(new AuditApplicationEvent(principal, type, all));
            }
            catch (RuntimeException ex) {
                logger.error("Pool '" + pool + "': " + type + " by " + principal + " was applied, but its audit event "
                        + "failed: " + all, ex);
            }
        }
    }

    private static String principal(@Nullable SecurityContext securityContext) {
        Principal principal = (securityContext != null) ? securityContext.getPrincipal() : null;
        return (principal != null) ? principal.getName() : "anonymous";
    }

    static String liveFields() {
        StringBuilder out = new StringBuilder();
        for (PoolOption option : PoolOption.values()) {
            if (option.live()) {
                out.append((out.length() > 0) ? ", " : "").append(option.field());
            }
        }
        return out.toString();
    }

    /** A 400 over HTTP; the message is also the reason that Spring's error response shows. */
    private static InvalidEndpointRequestException badRequest(String message) {
        return new InvalidEndpointRequestException(message, message);
    }

    private PurgeDescriptor purge(String name, Pool pool, String principal) {
        int purged = pool.purge();
        audit(principal, PURGED, name, Map.of("purged", purged));
        logger.info("Pool '" + name + "' purged by " + principal + ": " + purged + " idle worker(s) stopped");
        return new PurgeDescriptor(name, purged, PoolDescriptor.of(name, pool));
    }

    /**
     * Every pool, by bean name.
     * @param pools the pools that could be read
     * @param unreadable the pools whose figures could not be read, each with the exception it threw;
     *        empty normally
     */
    public record PoolsDescriptor(Map<String, PoolDescriptor> pools, Map<String, String> unreadable)
            implements OperationResponseBody {

        /**
         * Every pool, all of them readable.
         * @param pools the pools
         */
        public PoolsDescriptor(Map<String, PoolDescriptor> pools) {
            this(pools, Map.of());
        }

    }

    /**
     * A pool's adaptive capacity.
     * @param enabled whether the capacity follows the tasks' run time now
     * @param algorithm gradient2, aimd or vegas
     * @param minCapacity least capacity it sets
     * @param maxCapacity most capacity it sets
     * @param limit the capacity it set last (the pool's capacity while enabled); null while off
     * @param configuredCapacity the capacity switching it off restores
     * @param dropOn the exception classes that mean overload ({@code adaptive.drop-on}), by name
     */
    public record AdaptiveDescriptor(boolean enabled, String algorithm, int minCapacity, int maxCapacity,
            @Nullable Integer limit, int configuredCapacity, List<String> dropOn) {

        static AdaptiveDescriptor of(AdaptiveSupport.Control control) {
            boolean enabled = control.enabled();
            PoolSettings.AdaptiveSettings settings = control.settings();
            return new AdaptiveDescriptor(enabled, settings.algorithm(), settings.minCapacity(), settings.maxCapacity(),
                    enabled ? control.limit() : null, control.configuredCapacity(),
                    settings.dropOnNames());
        }

    }

    /**
     * The result of a purge.
     * @param name the pool's bean name
     * @param purged how many idle workers were stopped
     * @param pool the pool after the purge
     */
    public record PurgeDescriptor(String name, int purged, PoolDescriptor pool) implements OperationResponseBody {
    }

    /**
     * One pool: its levels, totals and configuration.
     * @param name the pool's bean name, also the tag {@code name} of its meters
     * @param capacity most tasks that may run at once; -1 when unbounded
     * @param running tasks executing now
     * @param idle live workers waiting for work
     * @param free capacity minus running; -1 when unbounded
     * @param waiting callers waiting for a worker
     * @param queued tasks in the queue
     * @param queueCapacity most tasks the queue holds (a MultiPool's: all its pools' queues)
     * @param submitted tasks submitted, rejected ones included
     * @param completed tasks that ended normally
     * @param failed tasks that ended by throwing
     * @param rejected tasks refused
     * @param cancelled tasks cancelled: those that never ran, and those whose future was cancelled
     *        while they ran (invokeAny's losers among them)
     * @param queueTimeouts tasks that started later than the queue timeout
     * @param runTimeouts tasks that ran longer than the run timeout
     * @param closed whether the pool was shut down
     * @param config every option as configured (a MultiPool's: each of its pools', and {@code pools}, how many)
     * @param adaptive its adaptive capacity; null if it has none
     */
    public record PoolDescriptor(String name, int capacity, int running, int idle, int free, int waiting, int queued,
            int queueCapacity, long submitted, long completed, long failed, long rejected, long cancelled,
            long queueTimeouts, long runTimeouts, boolean closed, Map<String, Object> config,
            @Nullable AdaptiveDescriptor adaptive) implements OperationResponseBody {

        static PoolDescriptor of(String name, Pool pool) {
            PoolStats stats = pool.stats();
            PoolConfig config = pool.config();
            Map<String, Object> options = new LinkedHashMap<>();
            options.put("name", config.name());
            for (PoolOption option : PoolOption.values()) {
                options.put(option.field(), option.display(config));
            }
            options.put("customThreadFactory", config.customThreadFactory());
            if (pool instanceof MultiPool multi) {
                // Its options are each sub-pool's (a tune of capacity 8 gives each pool 8), its
                // figures their sums: said, so that a reader (SBA's view) does not take one for the other.
                options.put("pools", multi.size());
            }
            if (pool instanceof SpringPool springPool) {
                options.put("shutdownAwaitTerminationPeriod", text(springPool.awaitTerminationPeriod()));
            }
            return new PoolDescriptor(name, stats.capacity(), stats.running(), stats.idle(), stats.free(),
                    stats.waiting(), stats.queued(), pool.queueCapacity(), stats.submitted(), stats.completed(),
                    stats.failed(), stats.rejected(), stats.cancelled(), stats.queueTimeouts(), stats.runTimeouts(),
                    pool.isClosed(), options, (pool instanceof SpringPool springPool && springPool.adaptive() != null)
                            ? AdaptiveDescriptor.of(springPool.adaptive()) : null);
        }

        private static String text(Duration duration) {
            return (duration != null) ? duration.toString() : null;
        }

    }

}
