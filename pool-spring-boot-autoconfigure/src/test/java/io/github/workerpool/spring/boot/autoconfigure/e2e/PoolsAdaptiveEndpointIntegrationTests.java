package io.github.workerpool.spring.boot.autoconfigure.e2e;

import java.util.Map;

import io.github.workerpool.Pool;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Adaptive capacity in {@code /actuator/pools} over real HTTP: shown in every POOL, switched on and
 * off with {@code "adaptive"} in a tune body.
 */
@SpringBootTest(classes = PoolsTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = { "server.address=127.0.0.1", "spring.web.error.include-message=always",
                "management.endpoints.web.exposure.include=pools", "management.endpoint.pools.access=unrestricted",
                "pools.instances.db.capacity=100", "pools.instances.db.adaptive.enabled=true",
                "pools.instances.db.adaptive.max-capacity=64", "pools.instances.db.adaptive.algorithm=vegas",
                "pools.instances.mail.capacity=4" })
class PoolsAdaptiveEndpointIntegrationTests {

    @LocalServerPort
    int port;

    @Autowired
    @Qualifier("db")
    Pool db;

    HttpJson http;

    @BeforeEach
    void client() {
        this.http = new HttpJson(this.port);
    }

    @Test
    void everyPoolShowsItsAdaptiveCapacity_andTuneSwitchesItOffAndOn() throws Exception {
        HttpJson.Response list = this.http.get("/actuator/pools");
        assertThat(list.status()).isEqualTo(200);
        Map<String, Object> db = list.json("$.pools.db.adaptive");
        assertThat(db).containsEntry("enabled", true).containsEntry("algorithm", "vegas")
            .containsEntry("minCapacity", 1).containsEntry("maxCapacity", 64).containsEntry("limit", 64)
            .containsEntry("configuredCapacity", 100);
        assertThat((Integer) list.json("$.pools.db.capacity")).isEqualTo(64);
        assertThat((Boolean) list.json("$.pools.mail.adaptive.enabled")).isFalse();

        HttpJson.Response off = this.http.post("/actuator/pools/db/tune", "{\"adaptive\": false}");
        assertThat(off.status()).as(off.body()).isEqualTo(200);
        assertThat((Integer) off.json("$.capacity")).isEqualTo(100);
        assertThat((Boolean) off.json("$.adaptive.enabled")).isFalse();
        assertThat(this.db.capacity()).isEqualTo(100);

        HttpJson.Response on = this.http.post("/actuator/pools/db/tune", "{\"adaptive\": true, \"capacity\": 10}");
        assertThat(on.status()).as(on.body()).isEqualTo(200);
        assertThat((Boolean) on.json("$.adaptive.enabled")).isTrue();
        assertThat((Integer) on.json("$.adaptive.configuredCapacity")).isEqualTo(10);
        assertThat((Integer) on.json("$.capacity")).isEqualTo(10);
    }

    @Test
    void aBadAdaptiveValueIsA400NamingIt() throws Exception {
        HttpJson.Response response = this.http.post("/actuator/pools/mail/tune", "{\"adaptive\": \"sometimes\"}");
        assertThat(response.status()).isEqualTo(400);
        assertThat(response.body()).contains("adaptive must be true or false, but was \\\"sometimes\\\"");
    }

}
