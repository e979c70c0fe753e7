package io.github.workerpool.spring.boot.autoconfigure.e2e;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.workerpool.Pool;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.actuate.audit.listener.AuditApplicationEvent;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalManagementPort;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;
import org.springframework.security.authentication.TestingAuthenticationToken;
import org.springframework.security.core.context.ReactiveSecurityContextHolder;
import org.springframework.web.server.WebFilter;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The tune body filter on a reactive application (WebFlux on Reactor Netty, no servlet API on the
 * classpath): a field no option has, or a nested value, is a 400 naming the field and changes
 * nothing. Actuator alone drops an unknown field and applies the rest, and answers a nested value
 * with a message that names no field.
 */
class ReactivePoolsEndpointBodyFilterIntegrationTests {

    @Nested
    @SpringBootTest(classes = PoolsTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
            properties = { "server.address=127.0.0.1", "spring.webflux.base-path=/app",
                    "management.endpoints.web.exposure.include=pools", "management.endpoint.pools.access=unrestricted",
                    "pools.instances.mail.capacity=4" })
    class OnTheApplicationsServer {

        @LocalServerPort
        int port;

        @Autowired
        @Qualifier("mail")
        Pool mail;

        @Autowired
        ApplicationContext context;

        @Test
        void itIsAReactiveApplication_withoutTheServletApi() {
            assertThat(((ConfigurableApplicationContext) this.context).getClass().getName()).contains("Reactive");
            assertThat(this.context.getClassLoader().getResource("jakarta/servlet/Filter.class")).isNull();
        }

        @Test
        void aMisspeltFieldIsA400NamingIt_andNothingChanges() throws Exception {
            HttpJson http = new HttpJson(this.port);
            HttpJson.Response response = http.post("/app/actuator/pools/mail/tune", "{\"capacity\": 5, \"capacty\": 6}");
            assertThat(response.status()).as(response.body()).isEqualTo(400);
            assertThat((String) response.json("$.message")).contains("capacty is no option of a pool")
                .contains("did you mean capacity?");
            assertThat((String) response.json("$.error")).isEqualTo("Bad Request");
            assertThat((String) response.json("$.path")).isEqualTo("/actuator/pools/mail/tune");
            assertThat(this.mail.capacity()).isEqualTo(4);
        }

        @Test
        void pathVariantsThatReachTheEndpoint_areReadToo() throws Exception {
            // Found by a review: the filter compared the raw path, so an encoded letter or a
            // ;parameter, which Spring decodes or drops when it routes, let a misspelt field through.
            HttpJson http = new HttpJson(this.port);
            for (String path : new String[] { "/app/actuator/pools/mail/tun%65", "/app/actuator/pools/mail/tune;x=1",
                    "/app/actuator/pools/ma%69l/tune", "/app/actuator/pools/mail;v=2/tune" }) {
                HttpJson.Response response = http.post(path, "{\"capacity\": 5, \"capacty\": 6}");
                assertThat(response.status()).as(path + " -> " + response.body()).isEqualTo(400);
                assertThat((String) response.json("$.message")).as(path).contains("Cannot tune pool 'mail'")
                    .contains("did you mean capacity?");
            }
            assertThat(this.mail.capacity()).isEqualTo(4);
        }

        @Test
        void aSelectorInTheBodyOrQuery_orAQueryParameterNoOptionHas_isRefused() throws Exception {
            // Found by a review: actuator binds the query too, and both over the path's selectors.
            HttpJson http = new HttpJson(this.port);
            HttpJson.Response purgeAsTune = http.post("/app/actuator/pools/mail/purge",
                    "{\"action\": \"tune\", \"capacity\": 5, \"capacty\": 6}");
            assertThat(purgeAsTune.status()).as(purgeAsTune.body()).isEqualTo(400);
            assertThat((String) purgeAsTune.json("$.message")).contains("action comes from the path");
            HttpJson.Response otherPool = http.post("/app/actuator/pools/mail/tune?name=other", "{\"capacity\": 5}");
            assertThat(otherPool.status()).as(otherPool.body()).isEqualTo(400);
            assertThat((String) otherPool.json("$.message")).contains("name comes from the path");
            HttpJson.Response misspelt = http.post("/app/actuator/pools/mail/tune?capacty=5", "{\"capacity\": 5}");
            assertThat(misspelt.status()).as(misspelt.body()).isEqualTo(400);
            assertThat((String) misspelt.json("$.message")).contains("did you mean capacity?");
            assertThat(this.mail.capacity()).isEqualTo(4);
        }

        @Test
        void aBodyWithAByteOrderMarkIsCheckedAndOneInAnotherEncodingRefused() throws Exception {
            // Found by a review: the check could not read either and handed them on, and the JSON
            // reader, which can, bound every field unchecked.
            HttpJson http = new HttpJson(this.port);
            HttpJson.Response bom = http.post("/app/actuator/pools/mail/tune", "\uFEFF{\"capacity\": 5, \"capacty\": 6}");
            assertThat(bom.status()).as(bom.body()).isEqualTo(400);
            assertThat((String) bom.json("$.message")).contains("did you mean capacity?");
            HttpJson.Response utf16 = http.postBytes("/app/actuator/pools/mail/tune",
                    "{\"capacity\": 5, \"capacty\": 6}".getBytes(java.nio.charset.StandardCharsets.UTF_16BE));
            assertThat(utf16.status()).as(utf16.body()).isEqualTo(400);
            assertThat((String) utf16.json("$.message")).contains("the body must be one JSON object in UTF-8");
            assertThat(this.mail.capacity()).isEqualTo(4);
        }

        @Test
        void aNestedValueIsA400NamingTheField() throws Exception {
            HttpJson.Response response = new HttpJson(this.port).post("/app/actuator/pools/mail/tune",
                    "{\"capacity\": {\"value\": 5}}");
            assertThat(response.status()).as(response.body()).isEqualTo(400);
            assertThat((String) response.json("$.message")).contains("capacity must be a whole number, but was an object");
            assertThat(this.mail.capacity()).isEqualTo(4);
        }

        @Test
        void aGoodTuneGoesThroughWithItsBody() throws Exception {
            HttpJson http = new HttpJson(this.port);
            HttpJson.Response response = http.post("/app/actuator/pools/mail/tune", "{\"capacity\": 7}");
            assertThat(response.status()).as(response.body()).isEqualTo(200);
            assertThat(this.mail.capacity()).isEqualTo(7);
            assertThat(http.post("/app/actuator/pools/mail/tune", "{\"capacity\": 4}").status()).isEqualTo(200);
        }

        @Test
        void aTuneWithoutABody_orAnEmptyOne_getsTheEndpointsAnswer() throws Exception {
            // Found by a review: the filter handed an absent body on as one empty buffer, which
            // Spring's reader refused (415) before the endpoint could say what a tune takes.
            HttpJson http = new HttpJson(this.port);
            for (String body : new String[] { null, "{}" }) {
                HttpJson.Response response = http.post("/app/actuator/pools/mail/tune", body);
                assertThat(response.status()).as(body + ": " + response.body()).isEqualTo(400);
                assertThat((String) response.json("$.message")).as(String.valueOf(body)).contains("nothing to change");
            }
            assertThat(this.mail.capacity()).isEqualTo(4);
        }

        @Test
        void aBodyOver64KbIsRefusedUnread() throws Exception {
            // Found by a review: the filter held a body of any size in memory.
            String big = "{\"capacity\": 5, \"pad\": \"" + "x".repeat(70 * 1024) + "\"}";
            HttpJson.Response response = new HttpJson(this.port).post("/app/actuator/pools/mail/tune", big);
            assertThat(response.status()).isEqualTo(413);
            assertThat((String) response.json("$.message")).contains("at most 64 KB");
            assertThat(this.mail.capacity()).isEqualTo(4);
        }

        @Test
        void aTuneWithoutAPoolNameIsNoServerError() throws Exception {
            // Found by a review: the filter took the pool's name from "tune" alone and threw (500).
            HttpJson.Response response = new HttpJson(this.port).post("/app/actuator/pools/tune", "{\"capacty\": 5}");
            assertThat(response.status()).as(response.body()).isBetween(400, 499);
        }

        @Test
        void anUnknownPoolIsA404WhateverItsBody() throws Exception {
            HttpJson http = new HttpJson(this.port);
            assertThat(http.post("/app/actuator/pools/nope/tune", "{\"capacty\": 5}").status()).isEqualTo(404);
            assertThat(http.post("/app/actuator/pools/nope/tune", "{\"capacity\": 5}").status()).isEqualTo(404);
        }

    }

    @Nested
    @SpringBootTest(classes = PoolsTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
            properties = { "server.address=127.0.0.1", "management.server.port=0",
                    "management.server.address=127.0.0.1", "management.server.base-path=/mgmt",
                    "management.endpoints.web.exposure.include=pools", "management.endpoint.pools.access=unrestricted",
                    "pools.instances.mail.capacity=4" })
    class OnAManagementServerOfItsOwn {

        @LocalManagementPort
        int managementPort;

        @LocalServerPort
        int port;

        @Autowired
        @Qualifier("mail")
        Pool mail;

        @Test
        void theApplicationsPort_doesNotTellWhichPoolsExist() throws Exception {
            // Found by a review: the filter also ran on the application's port, where the actuator
            // is not: a 400 for a pool that exists, a 404 for one that does not.
            HttpJson http = new HttpJson(this.port);
            int known = http.post("/actuator/pools/mail/tune", "{\"capacty\": 5}").status();
            int unknown = http.post("/actuator/pools/nope/tune", "{\"capacty\": 5}").status();
            assertThat(known).isEqualTo(unknown).isEqualTo(404);
        }

        @Test
        void aMisspeltFieldIsRefused_andNothingChanges() throws Exception {
            HttpJson http = new HttpJson(this.managementPort);
            HttpJson.Response response = http.post("/mgmt/actuator/pools/mail/tune",
                    "{\"capacity\": 5, \"queueCapacty\": 10}");
            assertThat(response.status()).as(response.body()).isEqualTo(400);
            assertThat((String) response.json("$.message")).contains("queueCapacty").contains("did you mean queueCapacity");
            assertThat(this.mail.capacity()).isEqualTo(4);
            HttpJson.Response tuned = http.post("/mgmt/actuator/pools/mail/tune", "{\"capacity\": 5}");
            assertThat(tuned.status()).as(tuned.body()).isEqualTo(200);
            assertThat(this.mail.capacity()).isEqualTo(5);
            assertThat(http.post("/mgmt/actuator/pools/nope/tune", "{\"capacty\": 5}").status()).isEqualTo(404);
        }

    }

    @Nested
    @SpringBootTest(classes = PoolsTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
            properties = { "server.address=127.0.0.1", "management.endpoints.web.path-mapping.pools=workers",
                    "management.endpoints.web.exposure.include=pools", "management.endpoint.pools.access=unrestricted",
                    "pools.instances.mail.capacity=4" })
    class UnderAPathMapping {

        @LocalServerPort
        int port;

        @Autowired
        @Qualifier("mail")
        Pool mail;

        @Test
        void aMisspeltFieldIsRefusedWhereTheEndpointIsMapped() throws Exception {
            // Found by a review: the filter looked for <actuator>/pools/ only.
            HttpJson http = new HttpJson(this.port);
            HttpJson.Response response = http.post("/actuator/workers/mail/tune", "{\"capacty\": 5}");
            assertThat(response.status()).as(response.body()).isEqualTo(400);
            assertThat((String) response.json("$.message")).contains("did you mean capacity?");
            assertThat(this.mail.capacity()).isEqualTo(4);
            HttpJson.Response tuned = http.post("/actuator/workers/mail/tune", "{\"capacity\": 5}");
            assertThat(tuned.status()).as(tuned.body()).isEqualTo(200);
            assertThat(this.mail.capacity()).isEqualTo(5);
        }

    }

    @Nested
    @SpringBootTest(classes = PoolsTestApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
            properties = { "server.address=127.0.0.1", "management.endpoints.web.exposure.include=pools",
                    "pools.instances.mail.capacity=4" })
    class WhileWritesAreNotAllowed {

        @LocalServerPort
        int port;

        @Autowired
        @Qualifier("mail")
        Pool mail;

        @Test
        void theBodyIsNotRead_actuatorsAnswerStands() throws Exception {
            HttpJson.Response response = new HttpJson(this.port).post("/actuator/pools/mail/tune", "{\"capacty\": 5}");
            assertThat(response.status()).as(response.body()).isNotEqualTo(400).isGreaterThanOrEqualTo(400);
            assertThat(this.mail.capacity()).isEqualTo(4);
        }

    }


    /**
     * The audit's principal for an action sent without a body (found by a review: on WebFlux it
     * was read from Spring Security's thread local, which WebFlux never fills: "anonymous").
     */
    @Nested
    @SpringBootTest(classes = { PoolsTestApplication.class, PrincipalConfiguration.class },
            webEnvironment = WebEnvironment.RANDOM_PORT,
            properties = { "server.address=127.0.0.1", "management.endpoints.web.exposure.include=pools",
                    "management.endpoint.pools.access=unrestricted", "pools.instances.mail.capacity=4" })
    class WithAPrincipal {

        @LocalServerPort
        int port;

        @Autowired
        PrincipalConfiguration audits;

        @Test
        void aPurgeWithoutABodyIsAuditedWithTheCallersPrincipal() throws Exception {
            HttpJson http = new HttpJson(this.port);
            HttpJson.Response purge = http.post("/actuator/pools/mail/purge", null);
            assertThat(purge.status()).as(purge.body()).isEqualTo(200);
            HttpJson.Response withBody = http.post("/actuator/pools/mail/purge", "{}");
            assertThat(withBody.status()).as(withBody.body()).isEqualTo(200);
            HttpJson.Response tune = http.post("/actuator/pools/mail/tune", null);
            assertThat(tune.status()).as(tune.body()).isEqualTo(400);
            assertThat((String) tune.json("$.message")).contains("nothing to change");
            assertThat(this.audits.principals).containsExactly("ops", "ops");
        }

    }

    /**
     * Every request comes from "ops", set where Spring Security's reactive web filters set it (the
     * reactive security context, which actuator reads on WebFlux); audits are kept.
     */
    @Configuration(proxyBeanMethods = false)
    static class PrincipalConfiguration {

        final List<String> principals = new CopyOnWriteArrayList<>();

        @Bean
        WebFilter ops() {
            return (exchange, chain) -> chain.filter(exchange)
                .contextWrite(ReactiveSecurityContextHolder.withAuthentication(new TestingAuthenticationToken("ops", null)));
        }

        @EventListener
        void audited(AuditApplicationEvent event) {
            this.principals.add(event.getAuditEvent().getPrincipal());
        }

    }

}
