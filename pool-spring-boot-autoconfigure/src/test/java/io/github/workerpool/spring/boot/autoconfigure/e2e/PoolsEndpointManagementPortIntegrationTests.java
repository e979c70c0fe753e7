package io.github.workerpool.spring.boot.autoconfigure.e2e;

import io.github.workerpool.Pool;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalManagementPort;
import org.springframework.boot.test.web.server.LocalServerPort;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The endpoint on a management server of its own ({@code management.server.port}): a child
 * context, which takes no filter from the application's. A tune with a misspelt field is refused
 * there too, and changes nothing (it applied the rest and ignored the misspelt field).
 */
@SpringBootTest(classes = PoolsTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = { "server.address=127.0.0.1", "management.server.port=0", "management.server.address=127.0.0.1",
                "management.server.base-path=/mgmt", "management.endpoints.web.exposure.include=pools",
                "management.endpoint.pools.access=unrestricted", "pools.instances.mail.capacity=4" })
class PoolsEndpointManagementPortIntegrationTests {

    @LocalManagementPort
    int managementPort;

    @LocalServerPort
    int port;

    @Autowired
    @Qualifier("mail")
    Pool mail;

    @Test
    void theApplicationsPort_doesNotTellWhichPoolsExist() throws Exception {
        // Found by a review: the filter also ran on the application's port, where the actuator is
        // not: a 400 for a pool that exists, a 404 for one that does not.
        HttpJson http = new HttpJson(this.port);
        int known = http.post("/actuator/pools/mail/tune", "{\"capacty\": 5}").status();
        int unknown = http.post("/actuator/pools/nope/tune", "{\"capacty\": 5}").status();
        assertThat(known).isEqualTo(unknown).isEqualTo(404);
    }

    @Test
    void aMisspeltFieldIsRefusedOnTheManagementPort_andNothingChanges() throws Exception {
        HttpJson http = new HttpJson(this.managementPort);
        HttpJson.Response response = http.post("/mgmt/actuator/pools/mail/tune",
                "{\"capacity\": 5, \"queueCapacty\": 10}");
        assertThat(response.status()).isEqualTo(400);
        assertThat((String) response.json("$.message")).contains("queueCapacty").contains("did you mean queueCapacity");
        assertThat(this.mail.capacity()).isEqualTo(4);
        HttpJson.Response tuned = http.post("/mgmt/actuator/pools/mail/tune", "{\"capacity\": 5}");
        assertThat(tuned.status()).isEqualTo(200);
        assertThat(this.mail.capacity()).isEqualTo(5);
        assertThat(http.post("/mgmt/actuator/pools/nope/tune", "{\"capacty\": 5}").status()).isEqualTo(404);
    }

}
