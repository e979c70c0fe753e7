package io.github.workerpool.spring.boot.autoconfigure;

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
        super(((value != null) ? "Invalid value '" + value + "'" : "Missing value") + " for property '" + property
                + "': " + reason, cause);
        this.property = property;
        this.value = value;
        this.action = action;
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
