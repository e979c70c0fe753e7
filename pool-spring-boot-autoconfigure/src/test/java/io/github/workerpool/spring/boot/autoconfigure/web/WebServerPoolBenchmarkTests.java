package io.github.workerpool.spring.boot.autoconfigure.web;

import java.util.List;

/**
 * Tomcat on the pool {@code http} against Tomcat's own executor with the same thread limit: the
 * harness and its measured run are in {@link WebServerPoolBenchmarkHarness}.
 */
class WebServerPoolBenchmarkTests extends WebServerPoolBenchmarkHarness {

    @Override
    String server() {
        return "tomcat";
    }

    @Override
    List<String> serverProperties(boolean ownPool) {
        return ownPool ? List.of("server.tomcat.max-connections=" + MAX_CONNECTIONS, "server.tomcat.threads.max=" + THREADS)
                : List.of("server.tomcat.max-connections=" + MAX_CONNECTIONS);
    }

    @Override
    String ownPoolLabel() {
        return "Tomcat's executor (threads.max " + THREADS + ")";
    }

}
