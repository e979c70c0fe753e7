package io.github.workerpool.spring.boot.autoconfigure.web;

/**
 * Jetty on the pool {@code http} against Jetty's own QueuedThreadPool with the same threads for
 * requests: the harness is pool-spring-boot-autoconfigure's {@link WebServerPoolBenchmarkHarness}
 * (from its test jar). The measured run:
 * <pre>
 * ./mvnw -pl pool-web-jetty-tests -am test -Dtest=JettyWebServerPoolBenchmarkTests \
 *     -Dsurefire.failIfNoSpecifiedTests=false -Dweb.benchmark.seconds=15
 * </pre>
 * Jetty's QueuedThreadPool runs its acceptors and selectors on its own threads, so its
 * threads.max is {@value #THREADS} plus those; with the pool they run on threads of their own.
 */
class JettyWebServerPoolBenchmarkTests extends WebServerPoolBenchmarkHarness {

    @Override
    String server() {
        return "jetty";
    }

    /** Jetty's threads.max counts its acceptors and selectors (Jetty's defaults for them) besides the request threads. */
    @Override
    int ownThreadsMax() {
        int cpus = Runtime.getRuntime().availableProcessors();
        return THREADS + Math.max(1, Math.min(4, cpus / 8)) + Math.max(1, Math.min(4, cpus / 2));
    }

    @Override
    String ownPoolLabel() {
        return "Jetty's QueuedThreadPool (" + THREADS + " for requests)";
    }

}
