package io.github.workerpool.spring.boot.autoconfigure.web;

import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CompletableFuture;

import io.github.workerpool.spring.boot.autoconfigure.PoolConfigurationException;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.NetworkConnectionLimit;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.jetty.JettyWebServer;
import org.springframework.boot.jetty.servlet.JettyServletWebServerFactory;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.web.server.WebServer;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.boot.web.server.context.WebServerInitializedEvent;
import org.springframework.boot.web.server.servlet.context.ServletWebServerApplicationContext;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * A real Jetty on 127.0.0.1 whose request threads are the pool {@code http}, under bursts of slow
 * requests from the JDK HttpClient larger than the pool's capacity plus its queue; the same
 * kind of test as pool-spring-boot-autoconfigure's WebServerPoolIntegrationTests for Tomcat.
 */
@ExtendWith(OutputCaptureExtension.class)
class JettyWebServerPoolIntegrationTests extends WebServerPoolIntegrationSupport {

    /**
     * Capacity 6 minus the 2 reserved threads: 4 requests at once; the queue holds a task for each
     * of the 16 connections Jetty keeps open (the others wait in the accept backlog). Jetty's
     * acceptors and selectors run on threads of their own, not on the pool.
     */
    private static final String[] PROPERTIES = { "server.address=127.0.0.1", "server.port=0",
            "spring.jmx.enabled=false", "server.jetty.max-connections=16", "pools.instances.http.capacity=6",
            "pools.instances.http.queue-capacity=16", "pools.web-server.pool=http",
            "management.endpoints.web.exposure.include=pools", "management.endpoint.pools.access=unrestricted" };

    @Override
    String[] properties() {
        return PROPERTIES;
    }

    @Test
    void jettyRunsItsRequestsOnTheNamedPoolAndItsAcceptorsAndSelectorsOnTheirOwnThreads(CapturedOutput output)
            throws Exception {
        start();
        Server server = server();
        assertThat(server.getThreadPool()).isInstanceOf(JettyPoolThreadPool.class);
        JettyPoolThreadPool threadPool = (JettyPoolThreadPool) server.getThreadPool();
        assertThat(threadPool.pool()).isSameAs(pool());
        ServerConnector connector = (ServerConnector) server.getConnectors()[0];
        int connectorThreads = connector.getAcceptors() + connector.getSelectorManager().getSelectorCount();
        await().atMost(Duration.ofSeconds(20)).until(() -> threadPool.connectorThreads() == connectorThreads);
        assertThat(Thread.getAllStackTraces().keySet()).filteredOn((t) -> t.getName().startsWith("http-connector-"))
            .hasSize(connectorThreads);
        assertThat(pool().running()).as("nothing of Jetty's own holds a pool thread").isZero();

        HttpResponse<String> response = get("/fast").join();
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).matches("http-\\d+");
        await().atMost(Duration.ofSeconds(20)).until(() -> pool().running() == 0);
        assertThat(output).contains("Jetty's request threads run on pool 'http' (server.jetty.threads.* no longer "
                + "apply); it admits 4 requests at once");

        // They are not daemons, as Jetty's own threads: they must end with the server.
        this.context.close();
        await().atMost(Duration.ofSeconds(10)).until(() -> threadPool.connectorThreads() == 0);
        await().atMost(Duration.ofSeconds(10))
            .until(() -> Thread.getAllStackTraces()
                .keySet()
                .stream()
                .noneMatch((t) -> t.getName().startsWith("http-connector-")));
    }

    @Test
    void aConnectorTheApplicationAddsLaterRunsItsAcceptorsAndSelectorsOnThreadsOfTheirOwnToo() throws Exception {
        // Found by a review: a connector added by an application's customizer, which runs after
        // the pool's, got no mark, and its acceptor and selectors held pool threads for ever.
        // The two limits together (8 + 8) are the queue's 16.
        this.context = new SpringApplicationBuilder(WebServerPoolTestApplication.class, SecondConnector.class)
            .properties(PROPERTIES)
            .properties("server.jetty.max-connections=8")
            .run();
        this.gate = this.context.getBean(WebServerPoolTestApplication.Gate.class);
        Server server = server();
        assertThat(server.getConnectors()).hasSize(2);
        JettyPoolThreadPool threadPool = (JettyPoolThreadPool) server.getThreadPool();
        int connectorThreads = 0;
        for (Connector c : server.getConnectors()) {
            ServerConnector connector = (ServerConnector) c;
            connectorThreads += connector.getAcceptors() + connector.getSelectorManager().getSelectorCount();
        }
        int expected = connectorThreads;
        await().atMost(Duration.ofSeconds(20)).until(() -> threadPool.connectorThreads() == expected);
        assertThat(pool().running()).as("nothing of Jetty's own holds a pool thread").isZero();
        int port = ((ServerConnector) server.getConnectors()[1]).getLocalPort();
        HttpResponse<String> response = this.client
            .send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/fast"))
                .timeout(Duration.ofSeconds(10))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).as("its requests run on the pool").matches("http-\\d+");
        await().atMost(Duration.ofSeconds(20)).until(() -> pool().running() == 0);
    }

    @Test
    void aConnectorTheApplicationAddsWithoutAConnectionLimitFailsStartupWhenTheQueueIsBounded() {
        // Found by a review: Spring Boot applies server.jetty.max-connections to the connectors made
        // before the customizers run, so a port the application adds takes connections without
        // limit, and the bounded queue may fill, its selector then waiting for a thread (as
        // Tomcat's poller would: there, the added connector's maxConnections is counted).
        assertThatThrownBy(() -> new SpringApplicationBuilder(WebServerPoolTestApplication.class,
                UnlimitedSecondConnector.class)
            .properties(PROPERTIES)
            .run()).rootCause()
            .isInstanceOf(PoolConfigurationException.class)
            .hasMessageContaining("queue-capacity 16, fewer than the unlimited connections the server keeps open "
                    + "(server.jetty.max-connections, which does not limit connector 1 [http/1.1])")
            .satisfies((e) -> assertThat(((PoolConfigurationException) e).getAction()).isEqualTo(
                    "Set pools.instances.http.queue-capacity to 2147483647 (unbounded, as Jetty's own executor), or give "
                            + "that connector a limit of its own in a JettyServerCustomizer (server.addBean(new "
                            + "NetworkConnectionLimit(n, connector))), the limits together no larger than the queue: "
                            + "Spring Boot applies server.jetty.max-connections to the connectors made before the "
                            + "customizers run, not to one the application adds nor to server.ssl's."));
    }

    @Test
    void withHttp2_theQueueMustHoldATaskForEachStreamAConnectionRuns_asOnTomcat() {
        // Review helper-149: Jetty's HTTP/2 streams were not counted (Tomcat's were), so a queue
        // as long as the connections passed, and a full queue could stall the connection's producer.
        assertThatThrownBy(() -> new SpringApplicationBuilder(WebServerPoolTestApplication.class)
            .properties(PROPERTIES)
            .properties("server.http2.enabled=true")
            .run()).rootCause()
            .isInstanceOf(PoolConfigurationException.class)
            .hasMessageContaining("queue-capacity 16, fewer than the 2064 tasks the connections the server keeps open "
                    + "may queue (server.jetty.max-connections, times 1 + the 128 streams an HTTP/2 connection runs");
        this.context = new SpringApplicationBuilder(WebServerPoolTestApplication.class).properties(PROPERTIES)
            .properties("server.http2.enabled=true", "pools.instances.http.queue-capacity=2064")
            .run();
        assertThat(JettyWebServerPoolCustomizer.http2Streams(server().getConnectors()[0])).isEqualTo(128);
    }

    @Test
    void aLimitOverEveryConnectorBoundsThemAll_withSpringBootsLimitOverTheFirst() {
        // Found by a review (helper-125): overlapping limits were summed (8 + 16 > 16), refusing
        // a server that keeps at most 16 connections open.
        this.context = new SpringApplicationBuilder(WebServerPoolTestApplication.class, OneLimitOverBoth.class)
            .properties(PROPERTIES)
            .properties("server.jetty.max-connections=8")
            .run();
        assertThat(server().getConnectors()).hasSize(2);
    }

    @Test
    void theDeprecatedConnectionLimitOfJetty10And11CountsAsALimit() {
        // Found by a review (helper-129): an application still adding the deprecated ConnectionLimit
        // to its second port was refused as if that port had no limit.
        this.context = new SpringApplicationBuilder(WebServerPoolTestApplication.class, DeprecatedLimitOnSecond.class)
            .properties(PROPERTIES)
            .properties("server.jetty.max-connections=8")
            .run();
        assertThat(server().getConnectors()).hasSize(2);
    }

    @Test
    void withOnlyTheApplicationsLimitInForceTheRefusalNamesItNotTheProperty() {
        // Found by a review (helper-129): with Spring Boot's limit covering no connector (as
        // server.ssl's connector, made after it) and the application's own too large, the fix said
        // to lower server.jetty.max-connections, which limits nothing there.
        assertThatThrownBy(() -> new SpringApplicationBuilder(WebServerPoolTestApplication.class,
                OnlyOwnLargeLimit.class)
            .properties(PROPERTIES)
            .run()).rootCause()
            .isInstanceOf(PoolConfigurationException.class)
            .hasMessageContaining("queue-capacity 16, fewer than the 32 connections the server keeps open "
                    + "(the connection limit(s) the application added to its connectors)")
            .satisfies((e) -> assertThat(((PoolConfigurationException) e).getAction())
                .endsWith(", or lower the connection limit(s) the application added to its connectors.")
                .doesNotContain("server.jetty.max-connections"));
    }

    /** Adds a second port on 127.0.0.1, as an application's server customizer does. */
    static ServerConnector addSecondPort(Server server) {
        ServerConnector connector = new ServerConnector(server);
        connector.setHost("127.0.0.1");
        connector.setPort(0);
        server.addConnector(connector);
        return connector;
    }

    /** A second port, added as applications add one: by a customizer of default order, after the pool's. */
    @Configuration(proxyBeanMethods = false)
    static class SecondConnector {

        @Bean
        WebServerFactoryCustomizer<JettyServletWebServerFactory> secondConnector() {
            return (factory) -> factory.addServerCustomizers((server) -> {
                ServerConnector connector = addSecondPort(server);
                // Spring Boot's limit (server.jetty.max-connections) covers the connectors made
                // before the customizers ran: this one needs its own.
                server.addBean(new NetworkConnectionLimit(8, connector));
            });
        }

    }

    /** A second port, and one limit of 16 over both ports. */
    @Configuration(proxyBeanMethods = false)
    static class OneLimitOverBoth {

        @Bean
        WebServerFactoryCustomizer<JettyServletWebServerFactory> secondConnector() {
            return (factory) -> factory.addServerCustomizers((server) -> {
                addSecondPort(server);
                server.addBean(new NetworkConnectionLimit(16, server.getConnectors()));
            });
        }

    }

    /** A second port, limited by the ConnectionLimit Jetty 12 deprecates. */
    @Configuration(proxyBeanMethods = false)
    static class DeprecatedLimitOnSecond {

        @Bean
        @SuppressWarnings("deprecation")
        WebServerFactoryCustomizer<JettyServletWebServerFactory> secondConnector() {
            return (factory) -> factory.addServerCustomizers((server) -> {
                ServerConnector connector = addSecondPort(server);
                server.addBean(new org.eclipse.jetty.server.ConnectionLimit(8, connector));
            });
        }

    }

    /**
     * A second port, and in place of Spring Boot's limit (which then covers no connector, as with
     * server.ssl) one limit of 32 over both ports, larger than the queue.
     */
    @Configuration(proxyBeanMethods = false)
    static class OnlyOwnLargeLimit {

        @Bean
        WebServerFactoryCustomizer<JettyServletWebServerFactory> secondConnector() {
            return (factory) -> factory.addServerCustomizers((server) -> {
                addSecondPort(server);
                server.getBeans(NetworkConnectionLimit.class).forEach(server::removeBean);
                server.addBean(new NetworkConnectionLimit(32, server.getConnectors()));
            });
        }

    }

    /** A second port with no connection limit of its own. */
    @Configuration(proxyBeanMethods = false)
    static class UnlimitedSecondConnector {

        @Bean
        WebServerFactoryCustomizer<JettyServletWebServerFactory> secondConnector() {
            return (factory) -> factory.addServerCustomizers(JettyWebServerPoolIntegrationTests::addSecondPort);
        }

    }

    @Test
    void aSlowErrorPageStaysInTheCount() throws Exception {
        // As on Tomcat (found by a review): Jetty runs the error page after the request's
        // dispatch returned, on the same thread, and it must stay counted.
        start();
        assertSlowErrorPagesCountAsTheirRequests();
    }

    @Test
    void aRefusedUploadDoesNotHoldAThreadReadingTheRestOfItsBody() throws Exception {
        // As on Tomcat (where, found by a review, the rest of a refused body was read on a reserved
        // thread): two stalled uploads must not hold the reserve.
        start();
        assertRefusedUploadsHoldNoReservedThread();
    }

    @Test
    void managementServerOnItsOwnPortKeepsJettysOwnThreads() {
        Map<String, WebServer> servers = new ConcurrentHashMap<>();
        this.context = new SpringApplicationBuilder(WebServerPoolTestApplication.class).properties(PROPERTIES)
            .properties("management.server.port=0", "management.server.address=127.0.0.1")
            .listeners((ApplicationListener<WebServerInitializedEvent>) (event) -> servers
                .put(String.valueOf(event.getApplicationContext().getServerNamespace()), event.getWebServer()))
            .run();
        assertThat(servers).containsOnlyKeys("null", "management");
        assertThat(((JettyWebServer) servers.get("null")).getServer().getThreadPool())
            .isInstanceOf(JettyPoolThreadPool.class);
        assertThat(((JettyWebServer) servers.get("management")).getServer().getThreadPool())
            .isNotInstanceOf(JettyPoolThreadPool.class);
    }

    /** Spring Boot sets its VirtualThreadPool first; the pool's customizer runs after it and wins. */
    @Test
    @EnabledForJreRange(min = JRE.JAVA_21)
    void withVirtualThreadsEnabledJettyStillRunsOnThePool() throws Exception {
        start("spring.threads.virtual.enabled=true");
        assertThat(server().getThreadPool()).isInstanceOf(JettyPoolThreadPool.class);
        HttpResponse<String> response = get("/fast").join();
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).matches("http-\\d+");
    }

    @Test
    void burstLargerThanCapacityAndQueueEndsIn200sAnd503sAndNoDroppedConnection(CapturedOutput output)
            throws Exception {
        start();
        List<CompletableFuture<HttpResponse<String>>> burst = burst(30);
        awaitSettled(burst, 4, 4);
        this.gate.open.countDown();
        List<HttpResponse<String>> responses = join(burst);

        assertThat(responses).filteredOn((r) -> r.statusCode() == 200)
            .hasSize(4)
            .allSatisfy((r) -> assertThat(r.body()).matches("http-\\d+"));
        assertThat(responses).filteredOn((r) -> r.statusCode() == 503)
            .hasSize(26)
            .allSatisfy((r) -> assertThat(r.headers().firstValue("Retry-After")).hasValue("1"));
        assertThat(this.gate.entered).hasValue(4);
        assertQuietAndCountsAddUp();
        assertThat(output.toString().split("Web server overloaded", -1)).hasSize(2);
        assertThat(output).containsPattern("answered 503 to \\d+ request\\(s\\)")
            .contains("pool 'http' admits 4 requests at once (capacity 6 minus 2 of pools.web-server.reserved-threads)");
    }

    @Test
    void tuneInTheMiddleOfTheBurstChangesHowManyGetIn() throws Exception {
        start();
        List<CompletableFuture<HttpResponse<String>>> first = burst(12);
        awaitSettled(first, 4, 4);

        // The actuator is let in while the application is full: capacity 6 -> 10 admits 8.
        HttpResponse<String> tune = this.client.send(HttpRequest.newBuilder(uri("/actuator/pools/http/tune"))
            .timeout(Duration.ofSeconds(10))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString("{\"capacity\": 10}"))
            .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(tune.statusCode()).isEqualTo(200);

        List<CompletableFuture<HttpResponse<String>>> second = burst(12);
        awaitSettled(second, 8, 4);
        this.gate.open.countDown();
        List<HttpResponse<String>> responses = join(first);
        responses.addAll(join(second));

        assertThat(this.gate.entered).hasValue(8);
        assertThat(responses).filteredOn((r) -> r.statusCode() == 200)
            .hasSize(8)
            .allSatisfy((r) -> assertThat(r.body()).matches("http-\\d+"));
        assertThat(responses).filteredOn((r) -> r.statusCode() == 503)
            .hasSize(16)
            .allSatisfy((r) -> assertThat(r.headers().firstValue("Retry-After")).hasValue("1"));
        assertQuietAndCountsAddUp();
    }

    @Test
    void gracefulShutdownLetsTheAdmittedRequestsFinishOnThePool(CapturedOutput output) throws Exception {
        // helper-105: graceful shutdown with the web server's pool was untested.
        assertGracefulShutdownLetsAdmittedRequestsFinish(output);
    }

    @Test
    void tuneDownRefusesNewRequestsAtOnceWhileTheAdmittedOnesFinish() throws Exception {
        start();
        List<CompletableFuture<HttpResponse<String>>> first = burst(4);
        awaitSettled(first, 4, 4);
        pool().tune(5); // limit 3: the 4 admitted stay; the fifth thread answers the newcomers
        CompletableFuture<HttpResponse<String>> refused = get("/slow");
        await().atMost(Duration.ofSeconds(20)).until(refused::isDone);
        assertThat(refused.join().statusCode()).isEqualTo(503);
        assertThat(this.gate.entered).hasValue(4);
        this.gate.open.countDown();
        assertThat(join(first)).allSatisfy((r) -> assertThat(r.statusCode()).isEqualTo(200));
        await().atMost(Duration.ofSeconds(10)).until(() -> pool().running() == 0);
        assertThat(get("/fast").join().statusCode()).isEqualTo(200);
    }

    // ----------------------------------------------------------------

    private Server server() {
        return ((JettyWebServer) ((ServletWebServerApplicationContext) this.context).getWebServer()).getServer();
    }

}
