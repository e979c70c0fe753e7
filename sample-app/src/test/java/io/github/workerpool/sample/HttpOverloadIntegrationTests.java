package io.github.workerpool.sample;

import java.time.Duration;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample's web server runs on the pool {@code http} (pools.web-server.pool): its requests are
 * served on {@code http-N} threads, and a burst larger than the pool admits ends in 200s and 503s
 * with Retry-After, never a failed connection.
 */
class HttpOverloadIntegrationTests extends SampleAppTestSupport {

    @Test
    void requestsRunOnThePoolHttp_whichIsAnOrdinaryPoolOfTheEndpoint() {
        TestHttp.Response slow = http().get("/demo/http/slow?ms=0");
        assertThat(slow.status()).isEqualTo(200);
        assertThat(slow.json().get("thread").asString()).matches("http-\\d+");
        JsonNode pool = http().pool("http");
        assertThat(pool.get("capacity").asInt()).isEqualTo(24);
        assertThat(pool.get("config").get("nonblocking").asBoolean()).isFalse();
    }

    @Test
    void overloadButtonsBurst_endsIn200sAnd503sWithRetryAfter_andNoFailedConnection() {
        TestHttp http = http();
        TestHttp.Response started = http.post("/demo/http/overload?requests=60&ms=1500");
        assertThat(started.status()).isEqualTo(202);
        AtomicReference<JsonNode> run = new AtomicReference<>();
        await().atMost(Duration.ofSeconds(40)).pollInterval(Duration.ofMillis(200)).until(() -> {
            TestHttp.Response response = http.get("/demo/http/overload");
            if (response.status() != 200) {
                return false; // the poll itself may get a 503 while the server is full
            }
            run.set(response.json());
            return response.json().get("done").asBoolean();
        });
        JsonNode outcomes = run.get().get("outcomes");
        assertThat(new TreeSet<>(outcomes.propertyNames())).as("outcomes").isEqualTo(Set.of("200", "503"));
        int ok = outcomes.get("200").asInt();
        int refused = outcomes.get("503").asInt();
        assertThat(ok + refused).isEqualTo(60);
        assertThat(refused).isGreaterThan(0);
        assertThat(run.get().get("retryAfter").get(0).asString()).isEqualTo("1");
        for (JsonNode thread : run.get().get("threads")) {
            assertThat(thread.asString()).matches("http-\\d+");
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> http.pool("http").get("running").asInt() <= 1);
        assertThat(http.pool("http").get("rejected").asLong()).as("connector tasks refused").isZero();
        TestHttp.Response refusals = http.get("/actuator/metrics/http.server.requests?tag=status:503");
        assertThat(refusals.status()).as("503s in http.server.requests").isEqualTo(200);
        assertThat(refusals.json().get("measurements").get(0).get("value").asDouble()).isGreaterThanOrEqualTo(refused);
    }

}
