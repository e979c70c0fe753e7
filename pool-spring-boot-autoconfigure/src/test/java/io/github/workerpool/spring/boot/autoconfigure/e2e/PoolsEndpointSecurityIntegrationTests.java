package io.github.workerpool.spring.boot.autoconfigure.e2e;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.github.workerpool.Pool;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.actuate.audit.listener.AuditApplicationEvent;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.security.autoconfigure.actuate.web.servlet.EndpointRequest;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.context.event.EventListener;
import org.springframework.http.HttpMethod;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.web.SecurityFilterChain;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The {@code pools} endpoint with Spring Security on the classpath and write access granted:
 * under Spring Boot's default security (no rules of the application's own) and under the rules
 * the README's "Securing write access" section shows, called the way the README's curl lines do.
 */
class PoolsEndpointSecurityIntegrationTests {

    private static final String PROPERTIES = "server.address=127.0.0.1\n"
            + "management.endpoints.web.exposure.include=health,pools\n"
            + "management.endpoint.pools.access=unrestricted\n" + "spring.security.user.name=ops\n"
            + "spring.security.user.password=secret\n" + "spring.security.user.roles=OPS\n"
            + "pools.instances.mail.capacity=4";

    /**
     * Spring Boot's default: every endpoint but health needs an authenticated user (HTTP basic or
     * form login), and CSRF protection refuses every POST that carries no CSRF token, even one
     * with the right credentials. So tune and purge are refused however curl calls them.
     */
    @Nested
    @SpringBootTest(classes = SecuredApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
            properties = PROPERTIES)
    class WithoutRulesOfTheApplication {

        @LocalServerPort
        int port;

        @Autowired
        @Qualifier("mail")
        Pool mail;

        @Test
        void healthIsOpenReadsNeedAUserAndWritesAreRefused() throws Exception {
            Curl anonymous = new Curl(this.port, null);
            Curl ops = new Curl(this.port, "ops:secret");
            assertThat(anonymous.get("/actuator/health")).isEqualTo(200);
            assertThat(anonymous.get("/actuator/pools")).isEqualTo(401);
            assertThat(ops.get("/actuator/pools/mail")).isEqualTo(200);
            assertThat(anonymous.post("/actuator/pools/mail/purge", null)).isEqualTo(401);
            assertThat(anonymous.post("/actuator/pools/mail/tune", "{\"capacity\": 9}")).isEqualTo(401);
            // Right credentials, and still refused: the CSRF check comes before HTTP basic reads the
            // credentials, so a POST without a CSRF token is denied to an anonymous caller (401).
            assertThat(ops.post("/actuator/pools/mail/purge", null)).isEqualTo(401);
            assertThat(ops.post("/actuator/pools/mail/tune", "{\"capacity\": 9}")).isEqualTo(401);
            assertThat(this.mail.capacity()).isEqualTo(4);
        }

    }

    /** The README's rules: reads open, writes for role OPS over HTTP basic, as curl -u sends them. */
    @Nested
    @SpringBootTest(classes = { SecuredApplication.class, ReadmeSecurityConfiguration.class },
            webEnvironment = WebEnvironment.RANDOM_PORT, properties = { PROPERTIES,
                    "management.endpoints.web.exposure.include=health,pools,env,prometheus" })
    class WithTheReadmeRules {

        @LocalServerPort
        int port;

        @Autowired
        ReadmeSecurityConfiguration audits;

        @Autowired
        @Qualifier("mail")
        Pool mail;

        @Test
        void readsAreOpenAndTheReadmeCurlLinesTuneAndPurge() throws Exception {
            Curl anonymous = new Curl(this.port, null);
            Curl ops = new Curl(this.port, "ops:secret");
            Curl wrongPassword = new Curl(this.port, "ops:guess");
            assertThat(anonymous.get("/actuator/pools")).isEqualTo(200);
            assertThat(anonymous.get("/actuator/pools/mail")).isEqualTo(200);
            assertThat(anonymous.get("/actuator/health")).isEqualTo(200);
            assertThat(anonymous.get("/actuator/prometheus")).as("Prometheus scrapes without a login").isEqualTo(200);
            // Found by a review: the README opened every exposed endpoint's reads (env, heapdump...).
            assertThat(anonymous.get("/actuator/env")).isEqualTo(401);
            assertThat(ops.get("/actuator/env")).isEqualTo(200);
            assertThat(anonymous.post("/actuator/pools/mail/purge", null)).isEqualTo(401);
            assertThat(wrongPassword.post("/actuator/pools/mail/tune", "{\"capacity\": 9}")).isEqualTo(401);
            assertThat(this.mail.capacity()).isEqualTo(4);
            // curl -u ops:secret -X POST .../purge
            assertThat(ops.post("/actuator/pools/mail/purge", null)).isEqualTo(200);
            // On servlet Spring Security fills the thread's context, so this held before the body
            // filter handed a body-less POST on as {}; the reactive test guards that change.
            assertThat(this.audits.principals).as("the purge sent without a body names its caller").containsExactly("ops");
            // curl -u ops:secret -X POST -H 'Content-Type: application/json' -d '{"capacity": 50}' .../tune
            assertThat(ops.post("/actuator/pools/mail/tune", "{\"capacity\": 50}")).isEqualTo(200);
            assertThat(this.mail.capacity()).isEqualTo(50);
        }

    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class SecuredApplication {

    }

    /**
     * Exactly the snippet of README.md, "Securing write access". Without its csrf line, the
     * README's {@code curl -u ops:secret -X POST .../purge} got 403.
     */
    @SpringBootConfiguration(proxyBeanMethods = false)
    static class ReadmeSecurityConfiguration {

        final List<String> principals = new CopyOnWriteArrayList<>();

        @EventListener
        void audited(AuditApplicationEvent event) {
            if (event.getAuditEvent().getType().startsWith("POOL_")) {
                this.principals.add(event.getAuditEvent().getPrincipal());
            }
        }

        @Bean
        SecurityFilterChain actuator(HttpSecurity http) throws Exception {
            return http.securityMatcher(EndpointRequest.toAnyEndpoint())
                .authorizeHttpRequests((requests) -> requests
                    .requestMatchers(HttpMethod.GET, "/actuator/pools", "/actuator/pools/*",
                            "/actuator/health", "/actuator/health/**", "/actuator/prometheus").permitAll()
                    .anyRequest().hasRole("OPS"))
                .httpBasic(Customizer.withDefaults())
                .csrf((csrf) -> csrf.disable())    // curl and scripts send no CSRF token
                .build();
        }

    }

    /** Requests as curl sends them: no session, no CSRF token, optional {@code -u user:password}. */
    record Curl(int port, String user) {

        private static final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

        int get(String path) throws IOException, InterruptedException {
            return send(request(path).GET());
        }

        int post(String path, String json) throws IOException, InterruptedException {
            HttpRequest.Builder request = request(path);
            if (json == null) {
                return send(request.POST(HttpRequest.BodyPublishers.noBody()));
            }
            return send(request.header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json)));
        }

        private HttpRequest.Builder request(String path) {
            HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + this.port + path))
                .timeout(Duration.ofSeconds(10));
            if (this.user != null) {
                request.header("Authorization", "Basic "
                        + Base64.getEncoder().encodeToString(this.user.getBytes(StandardCharsets.UTF_8)));
            }
            return request;
        }

        private int send(HttpRequest.Builder request) throws IOException, InterruptedException {
            return client.send(request.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
        }

    }

}
