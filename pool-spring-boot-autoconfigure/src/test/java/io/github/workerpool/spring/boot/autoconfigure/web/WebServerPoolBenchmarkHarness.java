package io.github.workerpool.spring.boot.autoconfigure.web;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.junit.jupiter.api.Test;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.servlet.context.ServletWebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A web server on the pool {@code http} (pools.web-server.pool) against the server's own thread
 * pool with the same threads for requests, on 127.0.0.1: an open-loop load of {@value #WORK_MS} ms
 * requests at 50% and 120% of what the threads can serve; requests/s of 200s (over the time from
 * the first request to the last answer) and their p99 latency, measured from each request's
 * scheduled start (so a server that falls behind is not flattered). A subclass per server says
 * how to configure the server's own pool ({@link WebServerPoolBenchmarkTests} for Tomcat,
 * pool-web-jetty-tests' JettyWebServerPoolBenchmarkTests for Jetty, which takes this class from
 * this module's test jar).
 *
 * <p>In the normal build each case runs for a second, a smoke test. The measured run (Tomcat; for
 * Jetty {@code -pl pool-web-jetty-tests -Dtest=JettyWebServerPoolBenchmarkTests}):
 * <pre>
 * ./mvnw -pl pool-spring-boot-autoconfigure -am test -Dtest=WebServerPoolBenchmarkTests \
 *     -Dsurefire.failIfNoSpecifiedTests=false -Dweb.benchmark.seconds=15
 * </pre>
 * writes its table to {@code target/web-server-benchmark.md}.
 */
abstract class WebServerPoolBenchmarkHarness {

    static final int THREADS = 16;

    static final int WORK_MS = 50;

    static final int MAX_CONNECTIONS = 2000;

    /** Requests/s that THREADS threads serve when each request holds its thread WORK_MS. */
    static final int CAPACITY_PER_SECOND = THREADS * 1000 / WORK_MS;

    private static final String[] COMMON = { "server.address=127.0.0.1", "server.port=0", "spring.jmx.enabled=false",
            "logging.level.io.github.workerpool.spring.boot.autoconfigure.web.AdmissionFilter=error" };

    /** The server's name in its properties ({@code server.<name>.*}) and in the table: {@code tomcat}, {@code jetty}. */
    abstract String server();

    /** The server's own {@code server.<name>.threads.max} that gives requests {@link #THREADS} threads. */
    abstract int ownThreadsMax();

    /** The server's own thread pool, as the table names it. */
    abstract String ownPoolLabel();

    private final HttpClient client = HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(5))
        .build();

    @Test
    void poolAgainstTheServersOwnThreadPoolAtHalfAndOverCapacity() throws Exception {
        Duration measure = Duration.ofSeconds(Long.getLong("web.benchmark.seconds", 1));
        Duration warmup = Duration.ofSeconds(Math.min(3, measure.toSeconds()));
        List<String> rows = new ArrayList<>();
        rows.add("| server | offered | offered req/s | 200/s | 503/s | failed | p50 of 200s | p99 of 200s | max of 200s "
                + "| p99 of 503s |");
        rows.add("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
        for (String server : List.of(server(), "pool")) {
            for (double load : new double[] { 0.5, 1.2 }) {
                try (ConfigurableApplicationContext context = start(server)) {
                    URI uri = URI.create("http://127.0.0.1:"
                            + ((ServletWebServerApplicationContext) context).getWebServer().getPort() + "/work?ms="
                            + WORK_MS);
                    int rate = (int) Math.round(CAPACITY_PER_SECOND * load);
                    run(uri, CAPACITY_PER_SECOND / 2, warmup);
                    Result result = run(uri, rate, measure);
                    rows.add(result.row(server.equals("pool") ? "pool `http` (capacity " + THREADS + ", 2 reserved)"
                            : ownPoolLabel(), load));
                    System.out.println(rows.get(rows.size() - 1));
                    assertThat(result.failed).as("requests that failed or timed out").isZero();
                    assertThat(result.statuses.keySet()).as("statuses")
                        .isSubsetOf(server.equals("pool") ? List.of(200, 503) : List.of(200));
                }
            }
        }
        String table = String.join("\n", rows) + "\n";
        System.out.println(table);
        Path out = Path.of("target", "web-server-benchmark.md");
        Files.createDirectories(out.getParent());
        Files.writeString(out, "threads " + THREADS + ", " + WORK_MS + " ms per request, capacity "
                + CAPACITY_PER_SECOND + " req/s, " + measure.toSeconds() + " s per case\n\n" + table);
    }

    private ConfigurableApplicationContext start(String server) {
        List<String> properties = new ArrayList<>(Arrays.asList(COMMON));
        properties.add("server." + server() + ".max-connections=" + MAX_CONNECTIONS);
        if (server.equals("pool")) {
            properties.addAll(List.of("pools.instances.http.capacity=" + THREADS,
                    "pools.instances.http.queue-capacity=" + MAX_CONNECTIONS, "pools.web-server.pool=http"));
        }
        else {
            properties.add("server." + server() + ".threads.max=" + ownThreadsMax());
        }
        return new SpringApplicationBuilder(WebServerPoolTestApplication.class).properties(properties.toArray(String[]::new))
            .run();
    }

    /** Sends {@code rate} requests a second for {@code duration}, open loop, and waits for every answer. */
    private Result run(URI uri, int rate, Duration duration) throws Exception {
        long interval = TimeUnit.SECONDS.toNanos(1) / rate;
        long count = duration.toNanos() / interval;
        List<CompletableFuture<long[]>> sent = new ArrayList<>();
        long start = System.nanoTime();
        for (long i = 0; i < count; i++) {
            long scheduled = start + i * interval;
            long wait = scheduled - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
            }
            HttpRequest request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).GET().build();
            sent.add(this.client.sendAsync(request, HttpResponse.BodyHandlers.discarding())
                .handle((response, failure) -> {
                    long now = System.nanoTime();
                    return new long[] { (failure != null) ? -1 : response.statusCode(), now - scheduled, now - start };
                }));
        }
        Result result = new Result(rate);
        for (CompletableFuture<long[]> future : sent) {
            result.add(future.get(60, TimeUnit.SECONDS));
        }
        return result;
    }

    /** The answers of one case. */
    private static final class Result {

        final int rate;

        final Map<Integer, Integer> statuses = new TreeMap<>();

        final List<Long> okNanos = new ArrayList<>();

        final List<Long> refusedNanos = new ArrayList<>();

        /** From the first request sent to the last answer. */
        long spanNanos;

        int failed;

        Result(int rate) {
            this.rate = rate;
        }

        void add(long[] answer) {
            this.spanNanos = Math.max(this.spanNanos, answer[2]);
            if (answer[0] < 0) {
                this.failed++;
                return;
            }
            this.statuses.merge((int) answer[0], 1, Integer::sum);
            if (answer[0] == 200) {
                this.okNanos.add(answer[1]);
            }
            else if (answer[0] == 503) {
                this.refusedNanos.add(answer[1]);
            }
        }

        /** 200s and 503s a second over the time from the first request to the last answer. */
        String row(String label, double load) {
            double seconds = this.spanNanos / 1e9;
            long[] ok = sorted(this.okNanos);
            long[] refused = sorted(this.refusedNanos);
            return String.format("| %s | %d%% | %d | %.0f | %.0f | %d | %s | %s | %s | %s |",
                    label, Math.round(load * 100), this.rate, this.statuses.getOrDefault(200, 0) / seconds,
                    this.statuses.getOrDefault(503, 0) / seconds, this.failed, millis(ok, 0.50), millis(ok, 0.99),
                    millis(ok, 1.0), millis(refused, 0.99));
        }

        private static long[] sorted(List<Long> nanos) {
            return nanos.stream().mapToLong(Long::longValue).sorted().toArray();
        }

        private static String millis(long[] sorted, double quantile) {
            if (sorted.length == 0) {
                return "-";
            }
            int index = (int) Math.min(sorted.length - 1, Math.ceil(quantile * sorted.length) - 1);
            return String.format("%.0f ms", sorted[Math.max(0, index)] / 1e6);
        }

    }

}
