package io.github.workerpool.spring.boot.autoconfigure.e2e;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.github.workerpool.Pool;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The {@code pools} endpoint and the meters over real HTTP, with write access granted.
 */
@SpringBootTest(classes = PoolsTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = { "server.address=127.0.0.1", "spring.web.error.include-message=always",
                "management.endpoints.web.exposure.include=pools,health,metrics",
                "management.endpoint.pools.access=unrestricted", "management.endpoint.health.show-details=always",
                "pools.defaults.disable-purge=true", "pools.instances.mail.capacity=4",
                "pools.instances.tuned.capacity=3", "pools.instances.fixed.capacity=2", "pools.instances.live.capacity=2",
                "pools.instances.fixed.pre-alloc=true" })
class PoolsEndpointIntegrationTests {

    @LocalServerPort
    int port;

    @Autowired
    @Qualifier("mail")
    Pool mail;

    @Autowired
    @Qualifier("mail")
    java.util.concurrent.ExecutorService mailExecutor;

    @Autowired
    @Qualifier("tuned")
    Pool tuned;

    @Autowired
    @Qualifier("live")
    Pool live;

    HttpJson http;

    @BeforeEach
    void client() {
        this.http = new HttpJson(this.port);
    }

    @Test
    void listShowsEveryPoolWithCountsAndConfig() throws Exception {
        HttpJson.Response response = this.http.get("/actuator/pools");
        assertThat(response.status()).isEqualTo(200);
        Map<String, Object> pools = response.json("$.pools");
        assertThat(pools).containsOnlyKeys("mail", "tuned", "fixed", "live");
        assertThat((Integer) response.json("$.pools.fixed.capacity")).isEqualTo(2);
        assertThat((Boolean) response.json("$.pools.fixed.config.preAlloc")).isTrue();
        assertThat((Boolean) response.json("$.pools.mail.config.disablePurge")).isTrue();
    }

    @Test
    void getShowsOnePoolWithEveryField() throws Exception {
        HttpJson.Response response = this.http.get("/actuator/pools/mail");
        assertThat(response.status()).isEqualTo(200);
        Map<String, Object> pool = response.json("$");
        assertThat(pool).containsKeys("name", "capacity", "running", "idle", "free", "waiting", "queued",
                "queueCapacity", "submitted", "completed", "failed", "rejected", "cancelled", "closed", "config");
        assertThat(pool).containsEntry("name", "mail").containsEntry("capacity", 4).containsEntry("closed", false);
    }

    @Test
    void unknownPoolIsNotFoundAndNeverCreated() throws Exception {
        for (HttpJson.Response response : new HttpJson.Response[] { this.http.get("/actuator/pools/mial"),
                this.http.post("/actuator/pools/mial/tune", "{\"capacity\": 5}"),
                this.http.post("/actuator/pools/mial/purge", null) }) {
            assertThat(response.status()).isEqualTo(404);
            assertThat((String) response.json("$.message")).isEqualTo("No pool named 'mial'");
        }
        Map<String, Object> pools = this.http.get("/actuator/pools").json("$.pools");
        assertThat(pools).containsOnlyKeys("mail", "tuned", "fixed", "live");
    }

    @Test
    void tuneChangesCapacityAndTheMeterFollows() throws Exception {
        assertThat(meter("executor.pool.max", "tuned")).isEqualTo(3.0);
        // A query parameter that is no option passes (a proxy's or a token's); only a misspelt option is refused.
        HttpJson.Response response = this.http.post("/actuator/pools/tuned/tune?trace=1", "{\"capacity\": 8}");
        assertThat(response.status()).isEqualTo(200);
        assertThat((Integer) response.json("$.capacity")).isEqualTo(8);
        assertThat((String) response.json("$.name")).isEqualTo("tuned");
        assertThat(this.tuned.capacity()).isEqualTo(8);
        // The meters share one snapshot of the pool per scrape, at most 100 ms old.
        await().atMost(Duration.ofSeconds(10)).until(() -> meter("executor.pool.max", "tuned") == 8.0);
    }

    @Test
    void purgeWithoutBodyStopsIdleWorkers() throws Exception {
        this.mailExecutor.submit(() -> { }).get(10, TimeUnit.SECONDS);
        await().atMost(Duration.ofSeconds(10)).until(() -> this.mail.idle() >= 1);
        int idle = this.mail.idle();
        HttpJson.Response response = this.http.post("/actuator/pools/mail/purge", null);
        assertThat(response.status()).isEqualTo(200);
        assertThat((Integer) response.json("$.purged")).isEqualTo(idle);
        assertThat((String) response.json("$.name")).isEqualTo("mail");
        assertThat((Integer) response.json("$.pool.idle")).isZero();
    }

    @Test
    void tuneChangesSeveralLiveOptionsAtOnceAndConfigShowsThem() throws Exception {
        HttpJson.Response response = this.http.post("/actuator/pools/live/tune",
                "{\"capacity\": 6, \"nonblocking\": true, \"maxBlockingTasks\": 3, \"blockingTimeout\": \"2s\", "
                        + "\"queueTimeout\": \"PT1S\", \"runTimeout\": \"5s\", \"expiry\": \"30s\"}");
        assertThat(response.status()).as(response.body()).isEqualTo(200);
        assertThat((Integer) response.json("$.config.capacity")).isEqualTo(6);
        assertThat((Boolean) response.json("$.config.nonblocking")).isTrue();
        assertThat((Integer) response.json("$.config.maxBlockingTasks")).isEqualTo(3);
        assertThat((String) response.json("$.config.blockingTimeout")).isEqualTo("PT2S");
        assertThat((String) response.json("$.config.queueTimeout")).isEqualTo("PT1S");
        assertThat((String) response.json("$.config.runTimeout")).isEqualTo("PT5S");
        assertThat((String) response.json("$.config.expiry")).isEqualTo("PT30S");
        assertThat(this.live.config().blockingTimeout()).isEqualTo(Duration.ofSeconds(2));
        response = this.http.post("/actuator/pools/live/tune", "{\"blockingTimeout\": \"none\", \"nonblocking\": false}");
        assertThat(response.status()).as(response.body()).isEqualTo(200);
        assertThat(response.body()).doesNotContain("blockingTimeout"); // null: no limit
        assertThat(this.live.config().blockingTimeout()).isNull();
        assertThat(this.live.config().nonblocking()).isFalse();
        assertThat(this.live.config().maxBlockingTasks()).isEqualTo(3);
    }

    @Test
    void eachBadTuneIsBadRequestWithClearMessageAndPoolUnchanged() throws Exception {
        assertBadRequest("/actuator/pools/mail/tune", "{}", "nothing to change");
        assertBadRequest("/actuator/pools/mail/tune", null, "nothing to change");
        assertBadRequest("/actuator/pools/mail/tune", "{\"capacity\": 9, \"maxBlockingTasks\": -1}",
                "maxBlockingTasks must be 0 (no limit) or more, but was -1");
        assertBadRequest("/actuator/pools/mail/tune", "{\"capacity\": 9, \"blockingTimeout\": \"soon\"}",
                "blockingTimeout must be a duration");
        assertBadRequest("/actuator/pools/mail/tune", "{\"capacity\": 9, \"queueCapacity\": 10}",
                "queueCapacity of pool 'mail' cannot change from 0 to 10");
        assertBadRequest("/actuator/pools/mail/tune", "{\"preAlloc\": true}", "preAlloc is fixed when the pool is built");
        assertBadRequest("/actuator/pools/mail/tune", "{\"virtualThreads\": false}", "virtualThreads is fixed");
        assertBadRequest("/actuator/pools/mail/tune", "{\"nonblocking\": \"yes\"}", "nonblocking must be true or false");
        assertBadRequest("/actuator/pools/mail/tune", "{\"capacity\": \"abc\"}", "whole number");
        assertBadRequest("/actuator/pools/mail/tune", "{\"capacity\": 1.5}", "whole number");
        assertBadRequest("/actuator/pools/mail/tune", "{\"capacity\": 0}", "at least 1, or -1");
        assertBadRequest("/actuator/pools/mail/tune", "{\"capacity\": -2}", "at least 1, or -1");
        // Too large for an int, or even a long: reported as too large, not as "not a number".
        assertBadRequest("/actuator/pools/mail/tune", "{\"capacity\": 9999999999}", "at most 2147483647");
        assertBadRequest("/actuator/pools/mail/tune", "{\"capacity\": 99999999999999999999}", "at most 2147483647");
        assertBadRequest("/actuator/pools/fixed/tune", "{\"capacity\": 5}", "preAlloc");
        assertBadRequest("/actuator/pools/mail/restart", null, "Unknown action 'restart'");
        assertThat(this.mail.capacity()).isEqualTo(4);
        assertThat((Integer) this.http.get("/actuator/pools/fixed").json("$.capacity")).isEqualTo(2);
    }

    @Test
    void metersAreVisibleWithThePoolTag() throws Exception {
        this.mailExecutor.submit(() -> { }).get(10, TimeUnit.SECONDS);
        for (String name : new String[] { "executor.pool.max", "executor.pool.size", "executor.active",
                "executor.queued", "executor.queue.remaining", "executor.completed", "pool.waiting", "pool.idle",
                "pool.tasks.rejected", "pool.tasks.failed", "pool.tasks.cancelled", "pool.tasks.queue.timeout",
                "pool.tasks.run.timeout", "executor", "executor.idle" }) {
            HttpJson.Response response = this.http.get("/actuator/metrics/" + name + "?tag=name:mail");
            assertThat(response.status()).as(name).isEqualTo(200);
        }
        assertThat(this.http.get("/actuator/metrics/executor?tag=name:mail").body()).contains("\"COUNT\"");
        await().atMost(Duration.ofSeconds(10)).until(() -> meter("executor.completed", "mail") >= 1.0);
    }

    @Test
    void healthShowsPoolsUp() throws Exception {
        HttpJson.Response response = this.http.get("/actuator/health");
        assertThat((String) response.json("$.components.pools.components.mail.status")).isEqualTo("UP");
        assertThat((Integer) response.json("$.components.pools.components.mail.details.capacity")).isEqualTo(4);
    }

    private void assertBadRequest(String path, String body, String message) throws Exception {
        HttpJson.Response response = this.http.post(path, body);
        assertThat(response.status()).as("%s %s -> %s", path, body, response.body()).isEqualTo(400);
        assertThat((String) response.json("$.message")).as("%s %s", path, body).contains(message);
    }

    private double meter(String name, String pool) throws Exception {
        HttpJson.Response response = this.http.get("/actuator/metrics/" + name + "?tag=name:" + pool);
        assertThat(response.status()).isEqualTo(200);
        return ((Number) response.json("$.measurements[0].value")).doubleValue();
    }

}
