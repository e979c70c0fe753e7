package io.github.workerpool.fleet;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

import io.github.workerpool.Pool;
import io.github.workerpool.PoolConfig;
import org.awaitility.Awaitility;

/** Waits for pools to show a new configuration, and tells how long each took. */
final class Retuning {

    /**
     * How long a change may take to reach the replicas before the test fails: a bound for a
     * change that never comes, not a speed target (they take 36-350 ms here, which report()
     * prints; a refresh queued behind others on a loaded 2-vCPU machine may take seconds).
     */
    static final Duration PATIENCE = Duration.ofSeconds(20);

    private Retuning() {
    }

    /**
     * Waits, at most {@code atMost} after {@code sinceNanos}, until every pool's configuration
     * matches; returns, per pool in order, the time from {@code sinceNanos} until it was first
     * seen to match (to within the 5 ms poll).
     */
    static List<Duration> await(long sinceNanos, Duration atMost, List<Pool> pools, Predicate<PoolConfig> retuned) {
        long[] seen = new long[pools.size()];
        long left = atMost.toNanos() - (System.nanoTime() - sinceNanos);
        Awaitility.await().atMost(Duration.ofNanos(Math.max(left, 1_000_000)))
            .pollDelay(Duration.ZERO)
            .pollInterval(Duration.ofMillis(5))
            .until(() -> {
                boolean all = true;
                for (int i = 0; i < pools.size(); i++) {
                    if (seen[i] == 0 && retuned.test(pools.get(i).config())) {
                        seen[i] = System.nanoTime();
                    }
                    all &= seen[i] != 0;
                }
                return all;
            });
        List<Duration> took = new ArrayList<>();
        for (long at : seen) {
            took.add(Duration.ofNanos(at - sinceNanos));
        }
        return took;
    }

    /** Prints the times for the build's log, as {@code [fleet] what: 120 ms, 130 ms}. */
    static void report(String what, List<Duration> took) {
        StringBuilder out = new StringBuilder("[fleet] ").append(what).append(':');
        for (Duration each : took) {
            out.append(' ').append(each.toMillis()).append(" ms");
        }
        System.out.println(out);
    }

}
