package io.github.workerpool.spring.boot.autoconfigure;

import java.util.Map;
import java.util.function.Supplier;
import java.util.stream.Stream;

import io.github.workerpool.PoolStats;
import io.github.workerpool.Pool;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * The {@code pools} health contributor: one indicator per pool, UP while it runs, DOWN once it
 * was shut down while the application runs, or while it cannot be read (with the error); details
 * are its capacity, running, waiting and queued.
 */
class PoolsHealthContributor implements CompositeHealthContributor {

    private final Supplier<Map<String, Pool>> pools;

    PoolsHealthContributor(Supplier<Map<String, Pool>> pools) {
        this.pools = pools;
    }

    @Override
    public @Nullable HealthContributor getContributor(String name) {
        Pool pool = this.pools.get().get(name);
        return (pool != null) ? indicator(pool) : null;
    }

    @Override
    public Stream<Entry> stream() {
        return this.pools.get().entrySet().stream().map((e) -> new Entry(e.getKey(), indicator(e.getValue())));
    }

    private static HealthIndicator indicator(Pool pool) {
        return () -> {
            PoolStats stats;
            boolean closed;
            try {
                stats = pool.stats();
                closed = pool.isClosed(); // in the try too (helper-174): a scoped pool's target may go between the two
            }
            catch (RuntimeException ex) {
                // As Boot's AbstractHealthIndicator answers a failing check: DOWN with the error. Thrown
                // through, it made /actuator/health a 500 for the whole application.
                return Health.down(ex).build();
            }
            Health.Builder builder = closed ? Health.down().withDetail("closed", true) : Health.up();
            return builder.withDetail("capacity", stats.capacity())
                .withDetail("running", stats.running())
                .withDetail("waiting", stats.waiting())
                .withDetail("queued", stats.queued())
                .build();
        };
    }

}
