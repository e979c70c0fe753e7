package io.github.workerpool.spring.boot.autoconfigure;

import io.github.workerpool.Pool;
import io.github.workerpool.adaptive.AdaptiveCapacity;
import io.github.workerpool.adaptive.Algorithm;
import org.jspecify.annotations.Nullable;

import org.springframework.util.ClassUtils;

/**
 * The adaptive capacity of a pool from {@code pools.instances}, when io.github.workerpool:pool-adaptive
 * is on the classpath (the starter brings it; the auto-configuration has it as optional). Only
 * {@link Attached} names its classes, so this class loads without them.
 *
 * <p>A manual tune of the capacity while adaptive sizing is on turns it off and keeps the tune,
 * which becomes the configured capacity; switching it off puts the configured capacity back (see
 * {@link AdaptiveCapacity}).
 */
final class AdaptiveSupport {

    static final String ADAPTIVE_CLASS = "io.github.workerpool.adaptive.AdaptiveCapacity";

    static final String DEPENDENCY = "io.github.workerpool:pool-adaptive";

    private AdaptiveSupport() {
    }

    /** Whether pool-adaptive is on the classpath. */
    static boolean isPresent(@Nullable ClassLoader classLoader) {
        return ClassUtils.isPresent(ADAPTIVE_CLASS, classLoader);
    }

    /**
     * Attaches adaptive sizing to a pool, switched on or off as the settings say.
     * @return its control, or null if the pool cannot change its capacity (pre-alloc)
     */
    static @Nullable Control attach(Pool pool, PoolSettings.AdaptiveSettings settings) {
        if (pool.config().preAlloc()) {
            return null;
        }
        return new Attached(pool, settings, settings.enabled());
    }

    /** What the endpoint and refresh do with a pool's adaptive sizing. */
    interface Control {

        boolean enabled();

        PoolSettings.AdaptiveSettings settings();

        /** The capacity it set last. */
        int limit();

        /** The capacity switching it off restores. */
        int configuredCapacity();

        /** Sets the capacity switching it off restores; while off, tunes the pool to it. */
        void configuredCapacity(int capacity);

        void enable();

        void disable();

        /**
         * Switches it on or off with a new configured capacity (null: keeps it). Switched on with
         * one, it starts afresh from it, clamped to the bounds; the pool is never tuned to it
         * outside them on the way.
         */
        void switchTo(boolean on, @Nullable Integer configured);

        /**
         * Applies new settings and a new configured capacity (null: keeps it): the same bounds,
         * algorithm and drop-on switch it on or off as {@link #switchTo}; others make a new one
         * that starts from the old one's limit if that was on and no new capacity came, else
         * from the configured capacity, clamped to the new bounds either way.
         * @return the control to use from now on
         */
        Control apply(PoolSettings.AdaptiveSettings settings, @Nullable Integer configured);
    }

    private static final class Attached implements Control {

        private final AdaptiveCapacity adaptive;

        private final PoolSettings.AdaptiveSettings settings;

        Attached(Pool pool, PoolSettings.AdaptiveSettings settings, boolean enable) {
            this.settings = settings;
            AdaptiveCapacity.Builder builder = AdaptiveCapacity.builder().algorithm(Algorithm.of(settings.algorithm()))
                .minCapacity(settings.minCapacity()).maxCapacity(settings.maxCapacity())
                .enabled(enable);
            if (!settings.dropOn().isEmpty()) {
                builder.dropOn(settings::isDrop);
            }
            this.adaptive = builder.attach(pool);
        }

        @Override
        public boolean enabled() {
            return this.adaptive.isEnabled();
        }

        @Override
        public PoolSettings.AdaptiveSettings settings() {
            return this.settings;
        }

        @Override
        public int limit() {
            return this.adaptive.limit();
        }

        @Override
        public int configuredCapacity() {
            return this.adaptive.configuredCapacity();
        }

        @Override
        public void configuredCapacity(int capacity) {
            this.adaptive.configuredCapacity(capacity);
        }

        @Override
        public void enable() {
            this.adaptive.enable();
        }

        @Override
        public void disable() {
            this.adaptive.disable();
        }

        @Override
        public void switchTo(boolean on, @Nullable Integer configured) {
            if (configured == null) {
                if (on) {
                    this.adaptive.enable();
                }
                else {
                    this.adaptive.disable();
                }
                return;
            }
            if (!on) {
                this.adaptive.configuredCapacity(configured); // while on, only what disable() puts back
                this.adaptive.disable();
                return;
            }
            this.adaptive.enable(configured); // straight to it clamped (see AdaptiveCapacity.enable(int))
        }

        @Override
        public Control apply(PoolSettings.AdaptiveSettings next, @Nullable Integer configured) {
            if (next.sameLimiter(this.settings)) {
                switchTo(next.enabled(), configured);
                return this;
            }
            int capacity = (configured != null) ? configured : this.adaptive.configuredCapacity();
            // A running one hands its limit over unless a new capacity came too (the operator's
            // word): helper-141, raising max-capacity restarted a pool sized up to 64 at its
            // configured 30, under the load that had sized it up.
            boolean fromLimit = configured == null && next.enabled() && this.adaptive.isEnabled();
            int start = fromLimit ? this.adaptive.limit() : capacity;
            // Closing this one puts back its configured capacity: handed over clamped to the new
            // bounds instead, the pool does not run above the new max until the new one starts.
            this.adaptive.configuredCapacity(next.enabled() ? clamp(next, start) : capacity);
            this.adaptive.close();
            Attached fresh = new Attached(this.adaptive.pool(), next, false);
            if (fromLimit) {
                fresh.adaptive.enable(); // from the pool's capacity: the old limit, clamped
                fresh.adaptive.configuredCapacity(capacity); // what disable() puts back
            }
            else if (next.enabled()) {
                fresh.adaptive.enable(capacity);
            }
            return fresh;
        }

        /** A capacity within the bounds, as AdaptiveCapacity starts from it (unbounded: the max). */
        private static int clamp(PoolSettings.AdaptiveSettings settings, int capacity) {
            return (capacity < 0) ? settings.maxCapacity()
                    : Math.max(settings.minCapacity(), Math.min(settings.maxCapacity(), capacity));
        }
    }
}
