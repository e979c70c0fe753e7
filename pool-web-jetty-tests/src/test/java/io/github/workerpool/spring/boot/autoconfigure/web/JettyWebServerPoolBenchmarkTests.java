package io.github.workerpool.spring.boot.autoconfigure.web;

import java.util.ArrayList;
import java.util.List;

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

    @Override
    List<String> serverProperties(boolean ownPool) {
        List<String> properties = new ArrayList<>(List.of("server.jetty.max-connections=" + MAX_CONNECTIONS));
        if (ownPool) {
            // Jetty's own threads.max counts its acceptors and selectors (Jetty's defaults for
            // them); its default queue is unbounded, as Tomcat's executor's.
            int cpus = Runtime.getRuntime().availableProcessors();
            int connectorThreads = Math.max(1, Math.min(4, cpus / 8)) + Math.max(1, Math.min(4, cpus / 2));
            properties.add("server.jetty.threads.max=" + (THREADS + connectorThreads));
        }
        return properties;
    }

    @Override
    String ownPoolLabel() {
        return "Jetty's QueuedThreadPool (" + THREADS + " for requests)";
    }

}
