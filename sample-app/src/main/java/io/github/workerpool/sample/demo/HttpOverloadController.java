package io.github.workerpool.sample.demo;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

import org.springframework.boot.web.server.context.WebServerInitializedEvent;
import org.springframework.context.event.EventListener;
import org.springframework.core.env.Environment;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.util.StringUtils;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * The web server's own pool, {@code http} ({@code pools.web-server.pool}), under load:
 * {@code GET /demo/http/slow?ms=1000} holds a request thread for a while and answers with its
 * name; {@code POST /demo/http/overload?requests=80&ms=1000} sends that many such requests at once
 * to this server over loopback (more than the pool admits) and {@code GET /demo/http/overload}
 * shows how they ended: 200s served on {@code http-N} threads, and 503s with {@code Retry-After}.
 */
@RestController
@RequestMapping("/demo/http")
class HttpOverloadController {

    private final HttpClient client = HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(5))
        .build();

    private final Environment environment;

    private final AtomicReference<Overload> last = new AtomicReference<>();

    private volatile int port = -1;

    HttpOverloadController(Environment environment) {
        this.environment = environment;
    }

    @EventListener
    void onWebServer(WebServerInitializedEvent event) {
        if (event.getApplicationContext().getServerNamespace() == null) {
            this.port = event.getWebServer().getPort();
        }
    }

    @GetMapping("/slow")
    Map<String, Object> slow(@RequestParam(defaultValue = "1000") int ms) throws InterruptedException {
        check("ms", ms, 0, 5000);
        Thread.sleep(ms);
        return Map.of("thread", Thread.currentThread().getName(), "ms", ms);
    }

    /** Starts a burst, unless one is running; answers at once. */
    @PostMapping("/overload")
    ResponseEntity<Map<String, Object>> overload(@RequestParam(defaultValue = "80") int requests,
            @RequestParam(defaultValue = "1000") int ms) {
        check("requests", requests, 1, 500);
        check("ms", ms, 0, 5000);
        if (this.port < 0) {
            throw new IllegalStateException("the web server has not started yet");
        }
        // Built before the burst counts as running: an address it cannot make a request of is a
        // 400, and the next burst may start (it was left running, and every later one a 409).
        HttpRequest request = HttpRequest.newBuilder(selfUri(ms)).timeout(Duration.ofMillis(ms + 10_000L)).GET().build();
        Overload overload = new Overload(requests, ms);
        Overload previous = this.last.get();
        if (previous != null && !previous.done()) {
            return ResponseEntity.status(HttpStatus.CONFLICT).body(previous.view());
        }
        if (!this.last.compareAndSet(previous, overload)) {
            return ResponseEntity.status(HttpStatus.CONFLICT).body(this.last.get().view());
        }
        List<CompletableFuture<Void>> sent = new ArrayList<>();
        try {
            for (int i = 0; i < requests; i++) {
                sent.add(this.client.sendAsync(request, HttpResponse.BodyHandlers.ofString())
                    .handle((response, failure) -> {
                        overload.record(response, failure);
                        return null;
                    }));
            }
        }
        finally {
            // Ends when the requests sent so far end, even if sending the rest threw.
            CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new))
                .whenComplete((ok, failure) -> overload.finish());
        }
        return ResponseEntity.status(HttpStatus.ACCEPTED).body(overload.view());
    }

    /**
     * This application's own slow endpoint, at the address it listens on (loopback if it listens
     * on every address; an IPv6 literal in brackets) and under its servlet context path.
     */
    private URI selfUri(int ms) {
        String address = this.environment.getProperty("server.address", "").trim();
        String host = switch (address) {
            case "", "0.0.0.0", "::", "[::]", "0:0:0:0:0:0:0:0" -> "127.0.0.1";
            default -> (address.contains(":") && !address.startsWith("[")) ? "[" + address + "]" : address;
        };
        String contextPath = this.environment.getProperty("server.servlet.context-path", "").trim();
        return URI.create("http://" + host + ":" + this.port + StringUtils.trimTrailingCharacter(contextPath, '/')
                + "/demo/http/slow?ms=" + ms);
    }

    /** The last burst, or 404 before the first. */
    @GetMapping("/overload")
    ResponseEntity<Map<String, Object>> lastOverload() {
        Overload overload = this.last.get();
        return (overload != null) ? ResponseEntity.ok(overload.view()) : ResponseEntity.notFound().build();
    }

    @ExceptionHandler({ IllegalArgumentException.class, IllegalStateException.class })
    ResponseEntity<Map<String, String>> badRequest(RuntimeException ex) {
        return ResponseEntity.badRequest().body(Map.of("error", ex.getMessage()));
    }

    private static void check(String name, int value, int min, int max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(name + " must be between " + min + " and " + max + ", but was " + value);
        }
    }

    /** One burst and how its requests ended. */
    private static final class Overload {

        private final int requests;

        private final int ms;

        private final long startNanos = System.nanoTime();

        private final Map<String, Integer> outcomes = new TreeMap<>();

        private final Set<String> threads = new TreeSet<>();

        private final Set<String> retryAfter = new TreeSet<>();

        private long elapsedMillis = -1;

        Overload(int requests, int ms) {
            this.requests = requests;
            this.ms = ms;
        }

        synchronized void record(HttpResponse<String> response, Throwable failure) {
            String outcome;
            if (failure != null) {
                Throwable cause = (failure.getCause() != null) ? failure.getCause() : failure;
                outcome = cause.getClass().getSimpleName();
            }
            else {
                outcome = Integer.toString(response.statusCode());
                if (response.statusCode() == 200) {
                    int at = response.body().indexOf("\"thread\":\"");
                    if (at >= 0) {
                        int from = at + 10;
                        this.threads.add(response.body().substring(from, response.body().indexOf('"', from)));
                    }
                }
                response.headers().firstValue("Retry-After").ifPresent(this.retryAfter::add);
            }
            this.outcomes.merge(outcome, 1, Integer::sum);
        }

        synchronized void finish() {
            this.elapsedMillis = (System.nanoTime() - this.startNanos) / 1_000_000;
        }

        synchronized boolean done() {
            return this.elapsedMillis >= 0;
        }

        synchronized Map<String, Object> view() {
            int answered = this.outcomes.values().stream().mapToInt(Integer::intValue).sum();
            return Map.of("requests", this.requests, "ms", this.ms, "answered", answered, "done", done(),
                    "elapsedMillis", this.elapsedMillis, "outcomes", new TreeMap<>(this.outcomes), "threads",
                    new ArrayList<>(this.threads), "retryAfter", new ArrayList<>(this.retryAfter));
        }

    }

}
