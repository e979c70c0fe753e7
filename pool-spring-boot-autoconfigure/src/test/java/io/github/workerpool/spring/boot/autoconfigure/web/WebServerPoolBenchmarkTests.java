package io.github.workerpool.spring.boot.autoconfigure.web;

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
    int ownThreadsMax() {
        return THREADS;
    }

    @Override
    String ownPoolLabel() {
        return "Tomcat's executor (threads.max " + THREADS + ")";
    }

}
