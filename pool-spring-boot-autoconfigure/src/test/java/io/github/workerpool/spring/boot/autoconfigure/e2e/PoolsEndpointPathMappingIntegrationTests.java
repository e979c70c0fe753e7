package io.github.workerpool.spring.boot.autoconfigure.e2e;

import io.github.workerpool.Pool;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The tune body filter where the endpoint is mapped to a path of its own
 * ({@code management.endpoints.web.path-mapping.pools}, written with slashes, which Boot's routing
 * takes as they are), below a DispatcherServlet path: a
 * misspelt field is still a 400 that names it (found by a review: the filter looked for
 * {@code <actuator>/pools/} only, and let the body through to the endpoint, which dropped the field).
 */
@SpringBootTest(classes = PoolsTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = { "server.address=127.0.0.1", "spring.mvc.servlet.path=/x",
                "management.endpoints.web.path-mapping.pools=/workers/",
                "management.endpoints.web.exposure.include=pools", "management.endpoint.pools.access=unrestricted",
                "pools.instances.mail.capacity=4" })
class PoolsEndpointPathMappingIntegrationTests {

    @LocalServerPort
    int port;

    @Autowired
    @Qualifier("mail")
    Pool mail;

    @Test
    void aMisspeltFieldIsRefusedWhereTheEndpointIsMapped_andAGoodTuneGoesThrough() throws Exception {
        HttpJson http = new HttpJson(this.port);
        for (String path : new String[] { "/x/actuator/workers/mail/tune", "/x/actuator/workers/mail/tun%65" }) {
            HttpJson.Response response = http.post(path, "{\"capacity\": 5, \"capacty\": 6}");
            assertThat(response.status()).as(path + " -> " + response.body()).isEqualTo(400);
            assertThat((String) response.json("$.message")).contains("did you mean capacity?");
        }
        assertThat(this.mail.capacity()).isEqualTo(4);
        HttpJson.Response tuned = http.post("/x/actuator/workers/mail/tune", "{\"capacity\": 5}");
        assertThat(tuned.status()).as(tuned.body()).isEqualTo(200);
        assertThat(this.mail.capacity()).isEqualTo(5);
        assertThat(http.post("/x/actuator/workers/nope/tune", "{\"capacty\": 5}").status()).isEqualTo(404);
    }

}
