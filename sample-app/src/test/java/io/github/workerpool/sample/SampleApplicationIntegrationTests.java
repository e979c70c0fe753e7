package io.github.workerpool.sample;

import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import io.github.workerpool.Pool;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.ApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample app over real HTTP: load endpoints move the pools' counts, the pools endpoint's
 * writes are guarded, and the ETL job runs to the end with its rows and checkpoint agreeing.
 */
class SampleApplicationIntegrationTests extends SampleAppTestSupport {

    private static final Duration PATIENCE = Duration.ofSeconds(60);

    @Autowired
    private JdbcTemplate jdbc;

    @Autowired
    private ApplicationContext context;

    // ------------------------------------------------------------------ pools and load

    @Test
    void poolsEndpointListsEveryConfiguredPoolWithoutLogin() {
        TestHttp.Response response = http().get("/actuator/pools");
        assertThat(response.status()).isEqualTo(200);
        Set<String> names = new TreeSet<>(response.json().get("pools").propertyNames());
        assertThat(names).contains("mail", "crawler", "etl", "reports", "http", "thumbnails", "etl-pipeline");
        JsonNode pipeline = response.json().get("pools").get("etl-pipeline");
        assertThat(pipeline.get("capacity").asInt()).as("the sum of the stages' concurrency").isEqualTo(4 + 8 + 2 + 1);
        assertThat(pipeline.get("closed").asBoolean()).isFalse();
        JsonNode mail = response.json().get("pools").get("mail");
        assertThat(mail.get("queueCapacity").asInt()).isEqualTo(40);
        assertThat(mail.get("config").get("maxBlockingTasks").asInt()).isEqualTo(4);
        assertThat(response.json().get("pools").get("crawler").get("config").get("nonblocking").asBoolean()).isTrue();
        assertThat(response.json().get("pools").get("crawler").get("config").get("virtualThreads").asBoolean())
                .isEqualTo(Runtime.version().feature() >= 21);
    }

    @Test
    void mailLoadEndpoint_submitsEveryCallToTheMailPool_andTheAcceptedOnesComplete() {
        TestHttp http = http();
        JsonNode before = http.pool("mail");
        TestHttp.Response started = http.post("/demo/mail?count=120&callers=8");
        assertThat(started.status()).isEqualTo(202);
        int run = started.json().get("id").asInt();

        JsonNode seen = await().atMost(PATIENCE).until(() -> run(http, run),
                (r) -> r.get("accepted").asInt() + r.get("rejected").asInt() + r.get("failed").asInt() == 120);
        int accepted = seen.get("accepted").asInt();
        assertThat(seen.get("failed").asInt()).isZero();
        await().atMost(PATIENCE).untilAsserted(() -> {
            JsonNode after = http.pool("mail");
            assertThat(delta(after, before, "submitted")).isEqualTo(120);
            assertThat(delta(after, before, "rejected")).isEqualTo(seen.get("rejected").asLong());
            assertThat(delta(after, before, "completed")).isEqualTo(accepted);
            assertThat(after.get("running").asInt() + after.get("queued").asInt()).isZero();
        });
    }

    @Test
    void plainAsyncAndQualifiedTaskExecutor_runOnTheDefaultPool() {
        TestHttp http = http();
        JsonNode before = http.pool("reports");
        JsonNode mailBefore = http.pool("mail");
        assertThat(http.post("/demo/reports?count=30").status()).isEqualTo(202);
        assertThat(http.post("/demo/export?count=20").status()).isEqualTo(202);
        await().atMost(PATIENCE).untilAsserted(() -> {
            JsonNode after = http.pool("reports");
            assertThat(delta(after, before, "submitted")).isEqualTo(50);
            assertThat(delta(after, before, "completed")).isEqualTo(50);
        });
        assertThat(delta(http.pool("mail"), mailBefore, "submitted")).isZero();
    }

    @Test
    void crawl_fansOutOnTheCrawlerPool() {
        TestHttp http = http();
        JsonNode before = http.pool("crawler");
        TestHttp.Response response = http.post("/demo/crawl?pages=100");
        assertThat(response.status()).isEqualTo(200);
        assertThat(response.json().get("succeeded").asInt()).isEqualTo(100);
        assertThat(response.json().get("sample").asString()).contains("crawler-");
        assertThat(delta(http.pool("crawler"), before, "submitted")).isEqualTo(100);
    }

    @Test
    void crawl_whenAPageFails_stopsTheGroupAndReportsTheFailure() {
        TestHttp.Response response = http().post("/demo/crawl?pages=200&failAt=30");
        assertThat(response.status()).isEqualTo(200);
        JsonNode report = response.json();
        assertThat(report.get("error").asString()).contains("/page/30").contains("503");
        assertThat(report.get("failed").asInt()).isGreaterThanOrEqualTo(1);
        assertThat(report.get("succeeded").asInt()).isLessThan(200);
        // Stopped: page 30 fails in the first of at least three waves of 64 workers, so the last
        // wave has not started and is cancelled (page 30's own failure alone kept succeeded < 200).
        assertThat(report.get("cancelled").asInt()).isPositive();
        assertThat(report.get("succeeded").asInt() + report.get("failed").asInt() + report.get("cancelled").asInt())
                .isEqualTo(200);
    }

    @Test
    void thumbnails_runOnTheFunctionPool() {
        TestHttp http = http();
        long before = http.get("/demo/thumbnails").json().get("completed").asLong();
        TestHttp.Response response = http.post("/demo/thumbnails?count=200");
        assertThat(response.status()).isEqualTo(200);
        assertThat(response.json().get("accepted").asInt()).isEqualTo(200);
        await().atMost(PATIENCE).untilAsserted(() ->
                assertThat(http.get("/demo/thumbnails").json().get("completed").asLong() - before).isEqualTo(200));
        // The FunctionPool is a bean the application builds: the endpoint and the meters find it too.
        JsonNode pool = http.get("/actuator/pools/thumbnails").json();
        assertThat(pool.get("completed").asLong()).isGreaterThanOrEqualTo(200);
        assertThat(pool.get("config").get("queueCapacity").asInt()).isEqualTo(2_000);
    }

    @Test
    void thePipelinesPool_isWatchedButSizedByThePipeline() {
        TestHttp.Response response = http().post("/actuator/pools/etl-pipeline/tune", "{\"capacity\": 3}", "ops",
                OPS_PASSWORD);
        assertThat(response.status()).isEqualTo(400);
        assertThat(response.body()).contains("belongs to pipeline 'etl-pipeline'");
        assertThat(http().get("/actuator/pools/etl-pipeline").json().get("capacity").asInt()).isEqualTo(15);
    }

    @Test
    void closingThePipelinesPoolBean_leavesThePipelinesPoolOpen() {
        // What the context does on shutdown after ahead-of-time processing, which drops the bean's
        // destroyMethod = "": the pipeline's own pool refused it, with a warning in the log.
        this.context.getBean("etl-pipeline", Pool.class).close();
        assertThat(http().get("/actuator/pools/etl-pipeline").json().get("closed").asBoolean()).isFalse();
    }

    @Test
    void loadEndpoint_withBadCount_is400() {
        TestHttp.Response response = http().post("/demo/mail?count=0");
        assertThat(response.status()).isEqualTo(400);
        assertThat(response.body()).contains("count must be between 1 and");
        // helper-117: a failure page outside the crawl was accepted, and the crawl did not fail.
        for (String failAt : new String[] { "-1", "301" }) {
            TestHttp.Response crawl = http().post("/demo/crawl?pages=300&failAt=" + failAt);
            assertThat(crawl.status()).isEqualTo(400);
            assertThat(crawl.body()).contains("failAt must be between 0 (no failure) and pages (300), but was " + failAt);
        }
    }

    // ------------------------------------------------------------------ security of the pools endpoint

    @Test
    void tune_withoutLogin_is401_andChangesNothing() {
        TestHttp http = http();
        int capacity = http.pool("crawler").get("capacity").asInt();
        assertThat(http.post("/actuator/pools/crawler/tune", "{\"capacity\": 7}", null, null).status()).isEqualTo(401);
        assertThat(http.post("/actuator/pools/crawler/tune", "{\"capacity\": 7}", "ops", "wrong").status()).isEqualTo(401);
        assertThat(http.pool("crawler").get("capacity").asInt()).isEqualTo(capacity);
    }

    @Test
    void tune_asUserWithoutOpsRole_is403() {
        TestHttp.Response response = http().post("/actuator/pools/crawler/tune", "{\"capacity\": 7}", "viewer",
                VIEWER_PASSWORD);
        assertThat(response.status()).isEqualTo(403);
    }

    @Test
    void tune_asOps_changesTheCapacityAndAnswersThePool() {
        TestHttp http = http();
        int capacity = http.pool("crawler").get("capacity").asInt();
        try {
            TestHttp.Response response = http.post("/actuator/pools/crawler/tune", "{\"capacity\": " + (capacity + 11) + "}",
                    "ops", OPS_PASSWORD);
            assertThat(response.status()).isEqualTo(200);
            assertThat(response.json().get("name").asString()).isEqualTo("crawler");
            assertThat(response.json().get("capacity").asInt()).isEqualTo(capacity + 11);
            assertThat(http.pool("crawler").get("capacity").asInt()).isEqualTo(capacity + 11);
        }
        finally {
            http.post("/actuator/pools/crawler/tune", "{\"capacity\": " + capacity + "}", "ops", OPS_PASSWORD);
        }
    }

    @Test
    void tune_asOps_withBadCapacity_is400WithAMessage() {
        TestHttp http = http();
        for (String body : List.of("{\"capacity\": 0}", "{\"capacity\": -5}", "{\"capacity\": \"lots\"}", "{}")) {
            TestHttp.Response response = http.post("/actuator/pools/crawler/tune", body, "ops", OPS_PASSWORD);
            assertThat(response.status()).as(body).isEqualTo(400);
            assertThat(response.body()).as(body).contains("capacity");
        }
        assertThat(http.post("/actuator/pools/nosuchpool/tune", "{\"capacity\": 5}", "ops", OPS_PASSWORD).status())
                .isEqualTo(404);
    }

    @Test
    void purge_needsOpsRole_andWorksWithoutBody() {
        TestHttp http = http();
        assertThat(http.post("/actuator/pools/mail/purge").status()).isEqualTo(401);
        assertThat(http.post("/actuator/pools/mail/purge", null, "viewer", VIEWER_PASSWORD).status()).isEqualTo(403);
        TestHttp.Response response = http.post("/actuator/pools/mail/purge", null, "ops", OPS_PASSWORD);
        assertThat(response.status()).isEqualTo(200);
        assertThat(response.json().get("name").asString()).isEqualTo("mail");
        assertThat(response.json().get("purged").asInt()).isGreaterThanOrEqualTo(0);
        assertThat(response.json().get("pool").get("idle").asInt()).isZero();
    }

    @Test
    void actuatorReadsAreOpen_andEverythingElseNeedsOps() {
        TestHttp http = http();
        assertThat(http.get("/actuator/health").status()).isEqualTo(200);
        assertThat(http.get("/actuator/metrics").status()).isEqualTo(200);
        assertThat(http.get("/actuator/metrics/executor.active").status()).isEqualTo(200);
        TestHttp.Response prometheus = http.get("/actuator/prometheus");
        assertThat(prometheus.status()).isEqualTo(200);
        assertThat(prometheus.body()).contains("executor_pool_max_threads{name=\"mail\"");
        assertThat(http.get("/actuator/env").status()).isEqualTo(401);
        assertThat(http.get("/dashboard").status()).isEqualTo(200);
        assertThat(http.get("/").body()).contains("workerpool");
    }

    @Test
    void aPostFromABrowserWithoutTheCsrfToken_is403() {
        TestHttp http = http();
        int capacity = http.pool("crawler").get("capacity").asInt();
        // What a forged request looks like: the browser adds Origin and the session cookie, but
        // the page cannot read the token to add it. From another site, the Origin refuses it first.
        TestHttp.Response session = http.post("/actuator/pools/crawler/purge", null, null, null,
                "Origin", "http://elsewhere.example", "Cookie", "JSESSIONID=0123456789ABCDEF");
        assertThat(session.status()).isEqualTo(403);
        assertThat(session.body()).contains("cross-origin request refused").contains("http://elsewhere.example");
        // From the service's own page, without the token (a stale page): the token's message.
        TestHttp.Response own = http.post("/actuator/pools/crawler/purge", null, null, null,
                "Origin", http.base(), "Cookie", "JSESSIONID=0123456789ABCDEF");
        assertThat(own.status()).isEqualTo(403);
        assertThat(own.body()).contains("CSRF token").contains("X-XSRF-TOKEN");
        TestHttp.Response cookie = http.post("/actuator/pools/crawler/tune", "{\"capacity\": 7}", null, null,
                "Cookie", "JSESSIONID=0123456789ABCDEF");
        assertThat(cookie.status()).isEqualTo(403);
        // The open demo endpoints too: a page elsewhere cannot use a browser to put load on a
        // service only that browser can reach.
        assertThat(http.post("/demo/mail?count=1", null, null, null, "Origin", "http://elsewhere.example").status())
                .isEqualTo(403);
        assertThat(http.post("/etl/stop", null, null, null, "Origin", "http://elsewhere.example").status())
                .isEqualTo(403);
        assertThat(http.pool("crawler").get("capacity").asInt()).isEqualTo(capacity);
    }

    @Test
    void aPostFromAPageOnAnotherPortOfTheSameHost_is403_evenWithAValidToken() {
        // Review helper-163: cookies are shared by every port of a host, so a page served on
        // another port (a dev server, any local app) can read or set XSRF-TOKEN, and send the
        // token masked in the _csrf parameter: no header, no preflight. Such a request was let in.
        TestHttp http = http();
        String token = "0123456789abcdef0123456789abcdef";
        byte[] raw = token.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        byte[] masked = new byte[2 * raw.length]; // Spring's XOR masking, with a mask of zeros
        System.arraycopy(raw, 0, masked, raw.length, raw.length);
        String param = java.util.Base64.getUrlEncoder().encodeToString(masked);
        TestHttp.Response forged = http.post("/demo/mail?count=1&_csrf=" + param, null, null, null,
                "Origin", "http://localhost:3000", "Cookie", "XSRF-TOKEN=" + token);
        assertThat(forged.status()).as(forged.toString()).isEqualTo(403);
        assertThat(forged.body()).contains("http://localhost:3000");
        // The same request from the service's own page is let in: the token is right.
        TestHttp.Response own = http.post("/demo/mail?count=1&_csrf=" + param, null, null, null,
                "Origin", http.base(), "Cookie", "XSRF-TOKEN=" + token);
        assertThat(own.status()).as(own.toString()).isBetween(200, 299);
        // A browser that says the request is not from the same origin is refused too.
        assertThat(http.post("/demo/mail?count=1&_csrf=" + param, null, null, null,
                "Sec-Fetch-Site", "same-site", "Cookie", "XSRF-TOKEN=" + token).status()).isEqualTo(403);
    }

    @Test
    void aClientWithItsOwnCredentials_needsNoToken_evenWithCookiesAndOrigin() {
        // Spring Boot Admin's proxy: basic credentials from the registration metadata, the cookies
        // the instance set on earlier answers, and the browser's Origin passed on.
        TestHttp http = http();
        TestHttp.Response purge = http.post("/actuator/pools/crawler/purge", null, "ops", OPS_PASSWORD,
                "Origin", "http://127.0.0.1:1", "Cookie", "XSRF-TOKEN=stale; JSESSIONID=0123456789ABCDEF");
        assertThat(purge.status()).as(purge.toString()).isEqualTo(200);
    }

    @Test
    void aPageThatNeedsALogin_sendsABrowserToTheLoginForm_andAsksCurlForBasicCredentials() {
        TestHttp http = http();
        TestHttp.Response curl = http.get("/actuator/env");
        assertThat(curl.status()).isEqualTo(401);
        assertThat(curl.header("WWW-Authenticate")).startsWith("Basic");
        TestHttp.Response browser = http.get("/actuator/env", "Accept", "text/html,application/xhtml+xml,*/*;q=0.8");
        assertThat(browser.status()).isEqualTo(302);
        assertThat(browser.header("Location")).endsWith("/login");
        // The dashboard's fetch(): a bare 401, so the browser shows no login dialog of its own.
        TestHttp.Response fetch = http.get("/actuator/env", "X-Requested-With", "XMLHttpRequest");
        assertThat(fetch.status()).isEqualTo(401);
        assertThat(fetch.header("WWW-Authenticate")).isNull();
    }

    @Test
    void theBrowsersLoginPage_andWhoAmI_areOpen() {
        TestHttp http = http();
        TestHttp.Response login = http.get("/login");
        assertThat(login.status()).isEqualTo(200);
        assertThat(login.body()).contains("name=\"username\"").contains("name=\"password\"").contains("name=\"_csrf\"");
        TestHttp.Response me = http.get("/me");
        assertThat(me.status()).isEqualTo(200);
        assertThat(me.json().get("name").isNull()).as(me.toString()).isTrue();
        assertThat(me.json().get("ops").asBoolean()).isFalse();
        assertThat(me.json().get("csrfHeader").asString()).isEqualTo("X-XSRF-TOKEN");
        assertThat(me.json().get("actuator").asString()).as("relative to the page").isEqualTo("actuator/");
    }

    @Test
    void uPlotIsServedFromItsWebJar_atVersionFreeUrls() {
        TestHttp http = http();
        TestHttp.Response script = http.get("/webjars/uplot/dist/uPlot.iife.min.js");
        assertThat(script.status()).isEqualTo(200);
        assertThat(script.body()).contains("uPlot");
        assertThat(http.get("/webjars/uplot/dist/uPlot.min.css").status()).isEqualTo(200);
        assertThat(http.get("/dashboard").body()).contains("\"webjars/uplot/dist/uPlot.iife.min.js\"")
                .contains("\"webjars/uplot/dist/uPlot.min.css\"");
    }

    // ------------------------------------------------------------------ ETL

    @Test
    void etlJob_runsToTheEnd_withRowsAndCheckpointAgreeing() {
        TestHttp http = http();
        TestHttp.Response started = http.post("/etl/start?restart=true");
        assertThat(started.status()).as(started.toString()).isEqualTo(202);
        JsonNode done = await().atMost(PATIENCE).until(() -> http.get("/etl/progress").json(),
                (p) -> !p.get("state").asString().equals("RUNNING"));
        assertThat(done.get("state").asString()).as(done.toString()).isEqualTo("DONE");
        assertThat(done.get("rowsDone").asLong()).isEqualTo(ROWS);
        assertThat(done.get("batchesDone").asLong()).isEqualTo(ROWS / BATCH);
        for (JsonNode stage : done.get("stages")) {
            assertThat(stage.get("done").asLong()).as(stage.toString()).isEqualTo(ROWS / BATCH);
        }
        EtlAudit.of(this.jdbc).assertComplete(ROWS, BATCH);
        assertThat(http.post("/etl/start").status()).as("start when done").isEqualTo(409);
        // Found by a review: the timers listened to the idle pipeline made at startup, never a run's.
        JsonNode timer = http.get("/actuator/metrics/executor?tag=name:etl-pipeline").json();
        assertThat(timer.get("measurements").get(0).get("statistic").asString()).isEqualTo("COUNT");
        assertThat(timer.get("measurements").get(0).get("value").asDouble()).as(timer.toString())
            .isGreaterThanOrEqualTo(ROWS / BATCH);
    }

    @Test
    void etlJob_stoppedWithTheContext_takesRunsAgainAtItsStart_andResumesTheInterruptedRun() {
        // Review helper-69: after context.stop() and context.start() the job answered 409 for good
        // and left its pipeline closed. Its lifecycle bean alone, as the context drives it: a
        // context.stop() here would stop the web server the other tests share.
        TestHttp http = http();
        org.springframework.context.SmartLifecycle lifecycle =
                this.context.getBean("etlJobLifecycle", org.springframework.context.SmartLifecycle.class);
        assertThat(http.post("/etl/start?restart=true").status()).isEqualTo(202);
        lifecycle.stop(); // waits for the driver: the run ends at a stage boundary
        try {
            JsonNode stopped = http.get("/etl/progress").json();
            assertThat(stopped.get("state").asString()).as(stopped.toString()).isEqualTo("STOPPED");
            assertThat(stopped.get("rowsDone").asLong()).as("interrupted, not done").isLessThan(ROWS);
            TestHttp.Response refused = http.post("/etl/start");
            assertThat(refused.status()).isEqualTo(409);
            assertThat(refused.body()).contains("shutting down");
        }
        finally {
            lifecycle.start(); // whatever failed above: the other tests share this context's job
        }
        assertThat(lifecycle.isRunning()).isTrue();
        JsonNode done = await().atMost(PATIENCE).until(() -> http.get("/etl/progress").json(),
                (p) -> p.get("state").asString().equals("DONE") || p.get("state").asString().equals("FAILED"));
        assertThat(done.get("state").asString()).as(done.toString()).isEqualTo("DONE");
        assertThat(done.get("rowsDone").asLong()).isEqualTo(ROWS);
        EtlAudit.of(this.jdbc).assertComplete(ROWS, BATCH);
        assertThat(http.get("/actuator/health").json().get("status").asString()).isEqualTo("UP");
    }

    @Test
    void aRequestForAHostNameTheServiceDoesNotKnow_isRefused() throws Exception {
        // Found by a review (helper-126): DNS rebinding (a page whose own name an attacker points at
        // 127.0.0.1) is same-origin with its requests, so the CSRF check passed: a page could start
        // runs and restart the ETL job. The Host header is what it cannot fake.
        for (String host : List.of("evil.example:8080", "127.0.0.1:" + this.port)) {
            try (java.net.Socket socket = new java.net.Socket("127.0.0.1", this.port)) {
                socket.setSoTimeout(10_000);
                socket.getOutputStream().write(("GET /etl/progress HTTP/1.1\r\nHost: " + host
                        + "\r\nConnection: close\r\n\r\n").getBytes(java.nio.charset.StandardCharsets.US_ASCII));
                String response = new String(socket.getInputStream().readAllBytes(),
                        java.nio.charset.StandardCharsets.UTF_8);
                if (host.startsWith("evil")) {
                    assertThat(response).startsWith("HTTP/1.1 400")
                        .contains("this service does not answer to host 'evil.example' (sample.security.allowed-hosts");
                }
                else {
                    assertThat(response).as("the name the tests use").startsWith("HTTP/1.1 200");
                }
            }
        }
    }

    private static JsonNode run(TestHttp http, int id) {
        for (JsonNode run : http.get("/demo/runs").json()) {
            if (run.get("id").asInt() == id) {
                return run;
            }
        }
        throw new AssertionError("no load run " + id);
    }

    private static long delta(JsonNode after, JsonNode before, String field) {
        return after.get(field).asLong() - before.get(field).asLong();
    }
}
