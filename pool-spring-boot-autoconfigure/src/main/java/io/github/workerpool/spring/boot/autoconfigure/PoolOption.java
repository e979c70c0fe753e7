package io.github.workerpool.spring.boot.autoconfigure;

import java.math.BigInteger;
import java.time.Duration;
import java.util.Collection;
import java.util.Locale;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.regex.Pattern;

import io.github.workerpool.PoolConfig;
import io.github.workerpool.WorkerPool;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.convert.DurationStyle;

/**
 * The options of a pool from {@code pools.instances}, named once: the property
 * ({@code queue-capacity}), the endpoint field ({@code queueCapacity}, also the key in a pool's
 * {@code config}), whether it changes live, how to fix a bad value, the built-in default, and how
 * each is read from the bound properties, set on a builder, applied to a running pool's
 * {@link PoolConfig} and read back from it. Binding, validation messages, the endpoint, refresh
 * and the configuration metadata (checked by a test) all derive from this table.
 */
enum PoolOption {

    CAPACITY("capacity", Type.INT, true, null, "set it to a number >= 1, or -1 for an unbounded pool",
            PoolsProperties.Pool::getCapacity, (b, v) -> b.capacity((Integer) v),
            (c, v) -> c.withCapacity((Integer) v), PoolConfig::capacity),

    EXPIRY("expiry", Type.DURATION, true, Duration.ofSeconds(60),
            "set it to a positive duration such as 60s; to keep idle workers forever set disable-purge: true",
            PoolsProperties.Pool::getExpiry, (b, v) -> b.expiry((Duration) v),
            (c, v) -> c.withExpiry((Duration) v), PoolConfig::expiry),

    DISABLE_PURGE("disable-purge", Type.BOOLEAN, true, false, "set true or false",
            PoolsProperties.Pool::getDisablePurge, (b, v) -> b.disablePurge((Boolean) v),
            (c, v) -> c.withDisablePurge((Boolean) v), PoolConfig::disablePurge),

    PRE_ALLOC("pre-alloc", Type.BOOLEAN, false, false, "set true or false",
            PoolsProperties.Pool::getPreAlloc, (b, v) -> b.preAlloc((Boolean) v), null, PoolConfig::preAlloc),

    QUEUE_CAPACITY("queue-capacity", Type.INT, true, 0,
            "set it to 0 (hand tasks straight to workers) or more; a running pool keeps its kind of queue "
                    + "(0, bounded, or 2147483647 for unbounded)",
            PoolsProperties.Pool::getQueueCapacity, (b, v) -> b.queueCapacity((Integer) v),
            (c, v) -> c.withQueueCapacity((Integer) v), PoolConfig::queueCapacity),

    NONBLOCKING("nonblocking", Type.BOOLEAN, true, false, "set true or false",
            PoolsProperties.Pool::getNonblocking, (b, v) -> b.nonblocking((Boolean) v),
            (c, v) -> c.withNonblocking((Boolean) v), PoolConfig::nonblocking),

    MAX_BLOCKING_TASKS("max-blocking-tasks", Type.INT, true, 0, "set it to 0 (no limit) or more",
            PoolsProperties.Pool::getMaxBlockingTasks, (b, v) -> b.maxBlockingTasks((Integer) v),
            (c, v) -> c.withMaxBlockingTasks((Integer) v), PoolConfig::maxBlockingTasks),

    BLOCKING_TIMEOUT("blocking-timeout", Type.DURATION, true, null,
            "set it to a duration of 0 or more, or leave it out to wait as long as it takes",
            PoolsProperties.Pool::getBlockingTimeout, (b, v) -> b.blockingTimeout((Duration) v),
            (c, v) -> c.withBlockingTimeout((Duration) v), PoolConfig::blockingTimeout),

    QUEUE_TIMEOUT("queue-timeout", Type.DURATION, true, null,
            "set it to a positive duration such as 500ms, or leave it out to check nothing",
            PoolsProperties.Pool::getQueueTimeout, (b, v) -> b.queueTimeout((Duration) v),
            (c, v) -> c.withQueueTimeout((Duration) v), PoolConfig::queueTimeout),

    RUN_TIMEOUT("run-timeout", Type.DURATION, true, null,
            "set it to a positive duration such as 30s, or leave it out to check nothing",
            PoolsProperties.Pool::getRunTimeout, (b, v) -> b.runTimeout((Duration) v),
            (c, v) -> c.withRunTimeout((Duration) v), PoolConfig::runTimeout),

    VIRTUAL_THREADS("virtual-threads", Type.BOOLEAN, false, null, "set true or false",
            PoolsProperties.Pool::getVirtualThreads, (b, v) -> b.virtualThreads((Boolean) v), null,
            PoolConfig::virtualThreads);

    /** The value types of options, as properties and as endpoint fields. */
    enum Type {
        INT, BOOLEAN, DURATION
    }

    /** Endpoint value that clears a duration (no limit, or not checked). */
    static final String NONE = "none";

    private static final Pattern WHOLE_NUMBER = Pattern.compile("[-+]?\\d{1,100}");

    private static final BigInteger INT_MIN = BigInteger.valueOf(Integer.MIN_VALUE);

    private static final BigInteger INT_MAX = BigInteger.valueOf(Integer.MAX_VALUE);

    private final String property;

    private final String field;

    private final Type type;

    private final boolean live;

    private final @Nullable Object defaultValue;

    private final String fix;

    private final Function<PoolsProperties.Pool, Object> getter;

    private final BiFunction<WorkerPool.Builder, Object, WorkerPool.Builder> setter;

    private final @Nullable BiFunction<PoolConfig, Object, PoolConfig> change;

    private final Function<PoolConfig, Object> reader;

    @SuppressWarnings("unchecked")
    <T> PoolOption(String property, Type type, boolean live, @Nullable Object defaultValue, String fix,
            Function<PoolsProperties.Pool, T> getter, BiFunction<WorkerPool.Builder, Object, WorkerPool.Builder> setter,
            @Nullable BiFunction<PoolConfig, Object, PoolConfig> change, Function<PoolConfig, T> reader) {
        this.property = property;
        this.field = camelCase(property);
        this.type = type;
        this.live = live;
        this.defaultValue = defaultValue;
        this.fix = fix;
        this.getter = (Function<PoolsProperties.Pool, Object>) getter;
        this.setter = setter;
        this.change = change;
        this.reader = (Function<PoolConfig, Object>) reader;
    }

    /** The option's name under {@code pools.defaults} and {@code pools.instances.<name>}. */
    String property() {
        return this.property;
    }

    /** The option's name as an endpoint field and a key of a pool's {@code config}. */
    String field() {
        return this.field;
    }

    Type type() {
        return this.type;
    }

    /** Whether a running pool can change it. */
    boolean live() {
        return this.live;
    }

    /**
     * The pool's own default, used when neither the instance nor pools.defaults sets it; null for
     * none, or (virtual-threads) one that depends on spring.threads.virtual.enabled and the JVM.
     */
    @Nullable Object defaultValue() {
        return this.defaultValue;
    }

    /** How to fix a bad value, as a phrase that follows "Update property: ". */
    String fix() {
        return this.fix;
    }

    /** The bound value, or null if the properties leave it out. */
    @Nullable Object get(PoolsProperties.Pool properties) {
        return this.getter.apply(properties);
    }

    /** Sets the value on a builder; throws as the builder does. */
    void applyTo(WorkerPool.Builder builder, Object value) {
        this.setter.apply(builder, value);
    }

    /** The options with this one changed; throws as PoolConfig does, or if the option is not live. */
    PoolConfig applyTo(PoolConfig config, @Nullable Object value) {
        if (this.change == null) {
            throw new IllegalArgumentException(this.field + " of pool '" + config.name()
                    + "' is fixed when the pool is built; it takes a restart to change");
        }
        return this.change.apply(config, value);
    }

    /** The value in a pool's options. */
    @Nullable Object read(PoolConfig config) {
        return this.reader.apply(config);
    }

    /** The value as the endpoint shows it: durations as ISO-8601 text. */
    @Nullable Object display(PoolConfig config) {
        Object value = read(config);
        return (value instanceof Duration duration) ? duration.toString() : value;
    }

    /**
     * Reads an endpoint field's value: whole numbers as numbers or text, booleans as
     * {@code true}/{@code false}, durations as Boot writes them ({@code "2s"}, {@code "PT2S"}) or
     * {@code "none"} for no limit.
     * @throws IllegalArgumentException naming the field and what it expected
     */
    @Nullable Object parse(Object raw) {
        if (raw instanceof Map<?, ?> || raw instanceof Collection<?> || (raw != null && raw.getClass().isArray())) {
            throw new IllegalArgumentException(this.field + " must be " + expected() + ", but was "
                    + ((raw instanceof Map<?, ?>) ? "an object" : "an array"));
        }
        String text = String.valueOf(raw).trim();
        switch (this.type) {
            case INT -> {
                BigInteger value = (raw instanceof Integer || raw instanceof Long || raw instanceof Short
                        || raw instanceof Byte) ? BigInteger.valueOf(((Number) raw).longValue())
                        : (raw instanceof BigInteger big) ? big
                        : (raw instanceof String && WHOLE_NUMBER.matcher(text).matches()) ? new BigInteger(text) : null;
                if (value == null) {
                    throw new IllegalArgumentException(this.field + " must be " + expected() + ", but was "
                            + describe(raw));
                }
                if (value.compareTo(INT_MAX) > 0) {
                    throw new IllegalArgumentException(this.field + " must be at most 2147483647, but was " + value);
                }
                if (value.compareTo(INT_MIN) < 0) {
                    // Below any int: the option's own lower bound, with the value as sent.
                    try {
                        applyTo(WorkerPool.builder(), Integer.MIN_VALUE);
                    }
                    catch (IllegalArgumentException ex) {
                        throw new IllegalArgumentException(
                                ex.getMessage().replace(String.valueOf(Integer.MIN_VALUE), value.toString()));
                    }
                }
                return value.intValue();
            }
            case BOOLEAN -> {
                if (raw instanceof Boolean b) {
                    return b;
                }
                String lower = text.toLowerCase(Locale.ROOT);
                if (raw instanceof String && (lower.equals("true") || lower.equals("false"))) {
                    return Boolean.valueOf(lower);
                }
                throw new IllegalArgumentException(this.field + " must be " + expected() + ", but was " + describe(raw));
            }
            default -> {
                if (raw instanceof Duration duration) {
                    return duration;
                }
                if (!(raw instanceof String) || text.isEmpty()) {
                    throw new IllegalArgumentException(this.field + " must be " + expected() + ", but was "
                            + describe(raw));
                }
                if (text.equalsIgnoreCase(NONE)) {
                    return null;
                }
                try {
                    return DurationStyle.detectAndParse(text);
                }
                catch (RuntimeException ex) {
                    throw new IllegalArgumentException(this.field + " must be " + expected() + ", but was "
                            + describe(raw));
                }
            }
        }
    }

    /** What a value of this option looks like, for messages. */
    String expected() {
        return switch (this.type) {
            case INT -> "a whole number";
            case BOOLEAN -> "true or false";
            // expiry has no "none": keeping idle workers for ever is disable-purge.
            case DURATION -> "a duration such as \"500ms\", \"2s\" or \"PT2S\""
                    + ((this == EXPIRY) ? "" : ", or \"" + NONE + "\"");
        };
    }

    /** The option a property or endpoint name stands for, in any of the names' forms; null if none. */
    static @Nullable PoolOption named(String name) {
        String uniform = name.replace("-", "").replace("_", "").toLowerCase(Locale.ROOT);
        for (PoolOption option : values()) {
            if (option.property.replace("-", "").equals(uniform)) {
                return option;
            }
        }
        return null;
    }

    private static String describe(Object value) {
        return (value instanceof String) ? "\"" + value + "\"" : String.valueOf(value);
    }

    private static String camelCase(String property) {
        StringBuilder out = new StringBuilder();
        boolean upper = false;
        for (char ch : property.toCharArray()) {
            if (ch == '-' || ch == '.') {
                upper = true;
            }
            else {
                out.append(upper ? Character.toUpperCase(ch) : ch);
                upper = false;
            }
        }
        return out.toString();
    }

}
