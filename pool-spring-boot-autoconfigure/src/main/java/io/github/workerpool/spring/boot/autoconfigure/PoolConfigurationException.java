package io.github.workerpool.spring.boot.autoconfigure;

import java.time.Duration;
import java.time.temporal.ChronoUnit;

/**
 * Thrown at startup when a {@code pools.*} property has a value no pool can be built with;
 * {@link PoolConfigurationFailureAnalyzer} turns it into a startup report.
 */
public class PoolConfigurationException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String property;

    private final transient Object value;

    private final String action;

    /**
     * Creates an exception for one bad property.
     * @param property the full property name, such as {@code pools.instances.mail.capacity}
     * @param value the bad value (may be null when a required property is missing)
     * @param reason what is wrong with it
     * @param action how to fix it
     */
    public PoolConfigurationException(String property, Object value, String reason, String action) {
        this(property, value, reason, action, null);
    }

    /**
     * Creates an exception for one bad property, with the failure that revealed it.
     * @param property the full property name, such as {@code pools.instances.mail.capacity}
     * @param value the bad value (may be null when a required property is missing)
     * @param reason what is wrong with it
     * @param action how to fix it
     * @param cause the failure that revealed it, such as a binding failure; may be null
     */
    public PoolConfigurationException(String property, Object value, String reason, String action, Throwable cause) {
        super(((value != null) ? "Invalid value '" + shown(value) + "'" : "Missing value") + " for property '" + property
                + "': " + reason, cause);
        this.property = property;
        this.value = value;
        this.action = action;
    }

    /**
     * A value as the user writes it in {@code application.yml}: a duration as {@code -2s} (in its
     * largest exact unit), not the ISO-8601 {@code PT-2S} the bound {@link Duration} prints.
     * Public for the starter's {@code web} package (the web server pool's messages); not meant
     * for applications.
     *
     * @param value a bound property value, or null
     * @return the value as {@code application.yml} would write it
     */
    public static String shown(Object value) {
        if (value instanceof Duration duration) {
            return simple(duration);
        }
        return String.valueOf(value);
    }

    /**
     * A message of the pool's with each duration among {@code values} as {@link #shown} writes it
     * ("-1s", not the "PT-1S" the pool's message prints).
     */
    static String withDurationsShown(String message, Iterable<?> values) {
        String shown = message;
        for (Object value : values) {
            if (value instanceof Duration duration) {
                shown = shown.replace(duration.toString(), shown(duration));
            }
        }
        return shown;
    }

    private static final ChronoUnit[] UNITS = { ChronoUnit.DAYS, ChronoUnit.HOURS, ChronoUnit.MINUTES,
            ChronoUnit.SECONDS, ChronoUnit.MILLIS, ChronoUnit.MICROS, ChronoUnit.NANOS };

    private static final String[] SUFFIXES = { "d", "h", "m", "s", "ms", "us", "ns" };

    private static String simple(Duration duration) {
        if (duration.isZero()) {
            return "0s";
        }
        for (int i = 0; i < UNITS.length; i++) {
            Duration unit = UNITS[i].getDuration();
            try {
                long amount = duration.dividedBy(unit);
                if (unit.multipliedBy(amount).equals(duration)) {
                    return amount + SUFFIXES[i];
                }
            }
            catch (ArithmeticException ex) {
                // too many of this unit for a long: a smaller unit will not fit either
                break;
            }
        }
        return duration.toString();
    }

    /** Returns the full name of the bad property. */
    public String getProperty() {
        return this.property;
    }

    /** Returns the bad value; null if a required property is missing. */
    public Object getValue() {
        return this.value;
    }

    /** Returns how to fix the configuration. */
    public String getAction() {
        return this.action;
    }

}
