package io.github.workerpool.sample;

import org.junit.jupiter.api.Test;

import org.springframework.test.context.TestPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample's security with the actuator moved (helper-137): rules written for "/actuator/**"
 * left tune, purge and every other endpoint open to anyone at another base path.
 */
@TestPropertySource(properties = "management.endpoints.web.base-path=/manage")
class ActuatorBasePathSecurityIntegrationTests extends SampleAppTestSupport {

    @Test
    void writesAndUnlistedEndpointsNeedOps_readsStayOpen_atAnotherBasePath() {
        TestHttp http = http();
        assertThat(http.post("/manage/pools/crawler/tune", "{\"capacity\": 7}", null, null).status()).isEqualTo(401);
        assertThat(http.post("/manage/pools/mail/purge").status()).isEqualTo(401);
        assertThat(http.post("/manage/pools/crawler/tune", "{\"capacity\": 7}", "viewer", VIEWER_PASSWORD).status())
            .isEqualTo(403);
        assertThat(http.get("/manage/env").status()).isEqualTo(401);
        assertThat(http.get("/manage/pools").status()).isEqualTo(200);
        assertThat(http.get("/manage/pools/mail").status()).isEqualTo(200);
        assertThat(http.get("/manage/health").status()).isEqualTo(200);
        assertThat(http.get("/manage/prometheus").status()).isEqualTo(200);
        assertThat(http.get("/manage").status()).isEqualTo(200);
        TestHttp.Response tuned = http.post("/manage/pools/mail/purge", null, "ops", OPS_PASSWORD);
        assertThat(tuned.status()).isEqualTo(200);
    }

}
