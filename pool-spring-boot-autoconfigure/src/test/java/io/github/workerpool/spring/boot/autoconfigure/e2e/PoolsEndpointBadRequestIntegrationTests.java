package io.github.workerpool.spring.boot.autoconfigure.e2e;

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
 * A refused tune says why under Spring Boot's default error settings (no
 * {@code spring.web.error.include-message}): the README's curl commands, copied into a new
 * application, get the reason and the fix, not a bare 400.
 */
@SpringBootTest(classes = PoolsTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
        properties = { "server.address=127.0.0.1", "management.endpoints.web.exposure.include=pools",
                "management.endpoint.pools.access=unrestricted", "pools.instances.mail.capacity=4" })
class PoolsEndpointBadRequestIntegrationTests {

    @LocalServerPort
    int port;

    @Autowired
    @Qualifier("mail")
    Pool mail;

    HttpJson http;

    @BeforeEach
    void client() {
        this.http = new HttpJson(this.port);
    }

    @Test
    void aBadValueIsA400NamingTheFieldAndChangesNothing() throws Exception {
        HttpJson.Response response = this.http.post("/actuator/pools/mail/tune", "{\"capacity\": 0}");
        assertThat(response.status()).isEqualTo(400);
        assertThat((String) response.json("$.message")).contains("capacity");
        assertThat((Integer) response.json("$.status")).isEqualTo(400);
        assertThat((String) response.json("$.error")).isEqualTo("Bad Request");
        assertThat(this.mail.capacity()).isEqualTo(4);
    }

    @Test
    void aTuneWithoutABodyIsA400SayingWhatItTakes() throws Exception {
        HttpJson.Response response = this.http.post("/actuator/pools/mail/tune", null);
        assertThat(response.status()).isEqualTo(400);
        assertThat((String) response.json("$.message")).contains("capacity", "queueCapacity");
    }

    @Test
    void aBodyOver64KbIsRefusedUnread() throws Exception {
        // Found by a review: the body filter held a body of any size in memory.
        String big = "{\"capacity\": 5, \"pad\": \"" + "x".repeat(70 * 1024) + "\"}";
        HttpJson.Response response = this.http.post("/actuator/pools/mail/tune", big);
        assertThat(response.status()).isEqualTo(413);
        assertThat((String) response.json("$.message")).contains("at most 64 KB");
        assertThat(this.mail.capacity()).isEqualTo(4);
    }

    @Test
    void anUnknownActionIsA400NamingTheActions() throws Exception {
        HttpJson.Response response = this.http.post("/actuator/pools/mail/resize", "{\"capacity\": 5}");
        assertThat(response.status()).isEqualTo(400);
        assertThat((String) response.json("$.message")).contains("tune", "purge");
    }

    @Test
    void anOptionInTheQueryAndTheBody_orSentWithAPurge_isA400AndChangesNothing() throws Exception {
        // helper-114: actuator takes the query's value over the body's without a word (?capacity=3
        // with {"capacity": 50} applied 3), and a purge dropped the options sent with it.
        HttpJson.Response twice = this.http.post("/actuator/pools/mail/tune?capacity=3", "{\"capacity\": 50}");
        assertThat(twice.status()).isEqualTo(400);
        assertThat((String) twice.json("$.message")).isEqualTo("Cannot tune pool 'mail': capacity is both in the body "
                + "and in the query; send it once, in the body; nothing was changed");
        HttpJson.Response purge = this.http.post("/actuator/pools/mail/purge", "{\"capacity\": 50}");
        assertThat(purge.status()).isEqualTo(400);
        assertThat((String) purge.json("$.message")).isEqualTo("Cannot purge pool 'mail': a purge takes no options, "
                + "but capacity was sent; send it to tune; nothing was changed");
        assertThat(this.mail.capacity()).isEqualTo(4);
    }

}
