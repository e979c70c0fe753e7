package io.github.workerpool.spring.boot.autoconfigure;

import java.math.BigInteger;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;
import java.util.regex.Pattern;

import io.github.workerpool.PoolStats;
import io.github.workerpool.Pool;
import io.github.workerpool.PoolConfig;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;

/**
 * The {@code pools} actuator endpoint: every worker pool bean with its counts and configuration,
 * and the {@code tune} and {@code purge} actions. Reads are open by default; the actions need
 * {@code management.endpoint.pools.access=unrestricted}.
 */
@Endpoint(id = "pools", defaultAccess = Access.READ_ONLY)
public class PoolsEndpoint {

    private static final Pattern WHOLE_NUMBER = Pattern.compile("[-+]?\\d{1,100}");

    private static final BigInteger INT_MAX = BigInteger.valueOf(Integer.MAX_VALUE);

    private static final BigInteger MINUS_ONE = BigInteger.valueOf(-1);

    private final Supplier<Map<String, Pool>> pools;

    /**
     * Creates the endpoint.
     * @param pools supplies the pools to expose, by bean name, each time one is looked up
     */
    public PoolsEndpoint(Supplier<Map<String, Pool>> pools) {
        this.pools = pools;
    }

    /** Returns every pool. */
    @ReadOperation
    public PoolsDescriptor pools() {
        Map<String, PoolDescriptor> all = new LinkedHashMap<>();
        this.pools.get().forEach((name, pool) -> all.put(name, PoolDescriptor.of(pool)));
        return new PoolsDescriptor(all);
    }

    /**
     * Returns one pool.
     * @param name the pool's bean name
     * @return the pool, or null (a 404 over HTTP) if there is none of that name
     */
    @ReadOperation
    public @Nullable PoolDescriptor pool(@Selector String name) {
        Pool pool = this.pools.get().get(name);
        return (pool != null) ? PoolDescriptor.of(pool) : null;
    }

    /**
     * Runs an action on one pool: {@code tune} (with {@code capacity}) or {@code purge}.
     * @param name the pool's bean name
     * @param action {@code tune} or {@code purge}
     * @param capacity the new capacity for {@code tune}: at least 1, or -1 for unbounded
     * @return for tune the pool after the change; for purge a {@link PurgeDescriptor}; null if
     *         there is no pool of that name (nothing is created)
     * @throws InvalidEndpointRequestException if the action or the capacity is invalid; the pool
     *         is then unchanged
     */
    @WriteOperation
    public @Nullable Object action(@Selector String name, @Selector String action, @Nullable Object capacity) {
        Pool pool = this.pools.get().get(name);
        if (pool == null) {
            return null;
        }
        return switch (action) {
            case "tune" -> tune(pool, capacity);
            case "purge" -> purge(pool);
            default -> throw badRequest("Unknown action '" + action + "' for pool '" + name + "': use tune or purge");
        };
    }

    private PoolDescriptor tune(Pool pool, @Nullable Object capacity) {
        int value = capacity(pool, capacity);
        try {
            pool.tune(value);
        }
        catch (IllegalArgumentException | IllegalStateException ex) {
            throw badRequest("Cannot tune pool '" + pool.name() + "': " + ex.getMessage());
        }
        return PoolDescriptor.of(pool);
    }

    private static int capacity(Pool pool, @Nullable Object capacity) {
        String prefix = "Cannot tune pool '" + pool.name() + "': ";
        if (capacity == null) {
            throw badRequest(prefix + "capacity is missing; send {\"capacity\": n} with n >= 1, or -1 for unbounded");
        }
        BigInteger value = wholeNumber(capacity);
        if (value == null) {
            throw badRequest(prefix + "capacity must be a whole number, but was " + describe(capacity));
        }
        if (value.compareTo(INT_MAX) > 0) {
            throw badRequest(prefix + "capacity must be at most 2147483647, or -1 for unbounded, but was " + value);
        }
        if (value.signum() == 0 || value.compareTo(MINUS_ONE) < 0) {
            throw badRequest(prefix + "capacity must be at least 1, or -1 for unbounded, but was " + value);
        }
        return value.intValue();
    }

    /**
     * The capacity as a whole number of any size, so that a huge one is reported as too large
     * rather than as not a number; null if it is no whole number. Over HTTP every value arrives
     * as text; over JMX it may be a number.
     */
    private static @Nullable BigInteger wholeNumber(Object capacity) {
        if (capacity instanceof Integer || capacity instanceof Long || capacity instanceof Short
                || capacity instanceof Byte) {
            return BigInteger.valueOf(((Number) capacity).longValue());
        }
        if (capacity instanceof BigInteger big) {
            return big;
        }
        if (capacity instanceof String text && WHOLE_NUMBER.matcher(text.trim()).matches()) {
            return new BigInteger(text.trim());
        }
        return null;
    }

    /** A 400 over HTTP; the message is also the reason that Spring's error response shows. */
    private static InvalidEndpointRequestException badRequest(String message) {
        return new InvalidEndpointRequestException(message, message);
    }

    private static String describe(Object value) {
        return (value instanceof String) ? "\"" + value + "\"" : String.valueOf(value);
    }

    private PurgeDescriptor purge(Pool pool) {
        int purged = pool.purge();
        return new PurgeDescriptor(pool.name(), purged, PoolDescriptor.of(pool));
    }

    /**
     * Every pool, by bean name.
     * @param pools the pools
     */
    public record PoolsDescriptor(Map<String, PoolDescriptor> pools) implements OperationResponseBody {
    }

    /**
     * The result of a purge.
     * @param name the pool's name
     * @param purged how many idle workers were stopped
     * @param pool the pool after the purge
     */
    public record PurgeDescriptor(String name, int purged, PoolDescriptor pool) implements OperationResponseBody {
    }

    /**
     * One pool: its levels, totals and configuration.
     * @param name the pool's name
     * @param capacity most tasks that may run at once; -1 when unbounded
     * @param running tasks executing now
     * @param idle live workers waiting for work
     * @param free capacity minus running; -1 when unbounded
     * @param waiting callers waiting for a worker
     * @param queued tasks in the queue
     * @param queueCapacity most tasks the queue holds
     * @param submitted tasks submitted, rejected ones included
     * @param completed tasks that ended normally
     * @param failed tasks that ended by throwing
     * @param rejected tasks refused
     * @param cancelled tasks that never ran
     * @param closed whether the pool was shut down
     * @param config every option as configured
     */
    public record PoolDescriptor(String name, int capacity, int running, int idle, int free, int waiting, int queued,
            int queueCapacity, long submitted, long completed, long failed, long rejected, long cancelled,
            boolean closed, Map<String, Object> config) implements OperationResponseBody {

        static PoolDescriptor of(Pool pool) {
            PoolStats stats = pool.stats();
            PoolConfig config = pool.config();
            Map<String, Object> options = new LinkedHashMap<>();
            options.put("name", config.name());
            options.put("capacity", config.capacity());
            options.put("expiry", text(config.expiry()));
            options.put("disablePurge", config.disablePurge());
            options.put("preAlloc", config.preAlloc());
            options.put("queueCapacity", config.queueCapacity());
            options.put("nonblocking", config.nonblocking());
            options.put("maxBlockingTasks", config.maxBlockingTasks());
            options.put("blockingTimeout", text(config.blockingTimeout()));
            options.put("queueTimeout", text(config.queueTimeout()));
            options.put("runTimeout", text(config.runTimeout()));
            options.put("virtualThreads", config.virtualThreads());
            options.put("customThreadFactory", config.customThreadFactory());
            if (pool instanceof SpringPool springPool) {
                options.put("shutdownAwaitTerminationPeriod", text(springPool.awaitTerminationPeriod()));
            }
            return new PoolDescriptor(stats.name(), stats.capacity(), stats.running(), stats.idle(), stats.free(),
                    stats.waiting(), stats.queued(), config.queueCapacity(), stats.submitted(), stats.completed(),
                    stats.failed(), stats.rejected(), stats.cancelled(), pool.isClosed(), options);
        }

        private static String text(Duration duration) {
            return (duration != null) ? duration.toString() : null;
        }

    }

}
