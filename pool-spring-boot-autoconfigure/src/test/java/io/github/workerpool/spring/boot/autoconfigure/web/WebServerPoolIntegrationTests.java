package io.github.workerpool.spring.boot.autoconfigure.web;

import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.apache.catalina.connector.Connector;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.condition.JRE;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.tomcat.TomcatWebServer;
import org.springframework.boot.tomcat.servlet.TomcatServletWebServerFactory;
import org.springframework.boot.web.server.WebServer;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.boot.web.server.context.WebServerInitializedEvent;
import org.springframework.boot.web.server.servlet.context.ServletWebServerApplicationContext;
import org.springframework.context.ApplicationListener;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.awaitility.Awaitility.await;

/**
 * A real Tomcat on 127.0.0.1 whose request threads are the pool {@code http}, under bursts of
 * slow requests from the JDK HttpClient larger than the pool's capacity plus its queue.
 */
@ExtendWith(OutputCaptureExtension.class)
class WebServerPoolIntegrationTests extends WebServerPoolIntegrationSupport {

    /**
     * Capacity 6 minus the 2 reserved threads: 4 requests at once; the queue holds a task for each
     * of the 16 connections Tomcat keeps open (the others wait in the accept backlog).
     */
    private static final String[] PROPERTIES = { "server.address=127.0.0.1", "server.port=0",
            "spring.jmx.enabled=false", "server.tomcat.max-connections=16", "pools.instances.http.capacity=6",
            "pools.instances.http.queue-capacity=16",
            "pools.web-server.pool=http", "management.endpoints.web.exposure.include=pools",
            "management.endpoint.pools.access=unrestricted" };

    @Override
    String[] properties() {
        return PROPERTIES;
    }

    @Test
    void tomcatRunsItsRequestsOnTheNamedPool() throws Exception {
        start();
        Connector connector = ((TomcatWebServer) ((ServletWebServerApplicationContext) this.context).getWebServer())
            .getTomcat()
            .getConnector();
        assertThat(connector.getProtocolHandler().getExecutor()).isSameAs(pool());
        HttpResponse<String> response = get("/fast").join();
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).matches("http-\\d+");
    }

    @Test
    void theApplicationsTaskDecorators_doNotWrapTheConnectorsTasks() throws Exception {
        // Found by a review: every TaskDecorator bean went on every pool, the web server's too, and
        // one written for @Async that reads the request threw on Tomcat's poller: every
        // connection dropped.
        this.context = new SpringApplicationBuilder(WebServerPoolTestApplication.class, RequestBoundDecorator.class)
            .properties(PROPERTIES)
            .run();
        HttpResponse<String> response = get("/fast").join();
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).matches("http-\\d+");
    }

    @Test
    void theWebServersPoolNamedByAnotherFormOfItsKey_isThatPool() throws Exception {
        // Found by a review: pools.instances.web-pool and .webpool make one pool, web-pool, whose
        // alias webpool only default-pool and @Qualifier accepted; web-server.pool failed startup.
        this.context = new SpringApplicationBuilder(WebServerPoolTestApplication.class, RequestBoundDecorator.class)
            .properties(PROPERTIES)
            .properties("pools.instances.web-pool.capacity=6", "pools.instances.webpool.queue-capacity=16",
                    "pools.web-server.pool=webpool")
            .run();
        HttpResponse<String> response = get("/fast").join();
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).matches("web-pool-\\d+");
    }

    @Test
    void aCustomizersTaskDecorator_doesNotWrapTheConnectorsTasksEither() throws Exception {
        // Helper-119: a WorkerPoolBuilderCustomizer ran after the starter made the web server's
        // pool undecorated, and its decorator (one that reads the request) broke every connection.
        this.context = new SpringApplicationBuilder(WebServerPoolTestApplication.class)
            .properties(PROPERTIES)
            .initializers((ConfigurableApplicationContext app) -> app.getBeanFactory()
                .registerSingleton("requestBoundCustomizer",
                        (io.github.workerpool.spring.boot.autoconfigure.WorkerPoolBuilderCustomizer) (name,
                                builder) -> builder.taskDecorator((task) -> {
                                    org.springframework.web.context.request.RequestContextHolder
                                        .currentRequestAttributes();
                                    return task;
                                })))
            .run();
        HttpResponse<String> response = get("/fast").join();
        assertThat(response.statusCode()).isEqualTo(200);
        assertThat(response.body()).matches("http-\\d+");
    }

    @Test
    void tomcatsNio2Connector_stopsStartup(CapturedOutput output) {
        // Helper-119: at max-connections NIO2's acceptor parks a thread of its executor, uncounted,
        // and Tomcat itself says the NIO2 connector needs an executor of its own.
        assertThatException().isThrownBy(() -> this.context = new SpringApplicationBuilder(
                WebServerPoolTestApplication.class)
            .properties(PROPERTIES)
            .initializers((ConfigurableApplicationContext app) -> app.getBeanFactory()
                .registerSingleton("nio2", (WebServerFactoryCustomizer<TomcatServletWebServerFactory>) (
                        factory) -> factory.setProtocol("org.apache.coyote.http11.Http11Nio2Protocol")))
            .run());
        assertThat(output).contains("Invalid value 'http' for property 'pools.web-server.pool': Tomcat's connector on "
                + "port 0 uses org.apache.coyote.http11.Http11Nio2Protocol")
            .contains("Use the NIO connector");
    }

    @org.springframework.context.annotation.Configuration(proxyBeanMethods = false)
    static class RequestBoundDecorator {

        @org.springframework.context.annotation.Bean
        org.springframework.core.task.TaskDecorator requestBound() {
            return (task) -> {
                org.springframework.web.context.request.RequestContextHolder.currentRequestAttributes();
                return task;
            };
        }

    }

    @Test
    void aRefusedUploadDoesNotHoldAThreadReadingTheRestOfItsBody() throws Exception {
        // Found by a review: after the 503 Tomcat read on (swallowed) the rest of the refused
        // request's body, up to its max-swallow-size, on a reserved thread: two stalled uploads held
        // both, and the next request waited in the queue instead of getting its 503.
        start();
        assertRefusedUploadsHoldNoReservedThread();
    }

    @Test
    void admittedUploadsTheApplicationDoesNotRead_holdNoThreadOutsideTheCount() throws Exception {
        // Found by a review (helper-131): an upload answered without reading its body (a 405 here;
        // a 404 or 401 alike) left the filter's count when the chain returned, and Tomcat then
        // swallowed the rest of the body on that pool thread: six stalled ones held every thread,
        // and the next request waited in the queue with no 503.
        start();
        int port = ((ServletWebServerApplicationContext) this.context).getWebServer().getPort();
        List<Socket> uploads = new java.util.ArrayList<>();
        try {
            for (int i = 0; i < 6; i++) { // as many as the pool has threads
                Socket upload = new Socket("127.0.0.1", port);
                uploads.add(upload);
                upload.setSoTimeout(10_000);
                OutputStream out = upload.getOutputStream();
                out.write(("POST /fast HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/octet-stream\r\n"
                        + "Content-Length: 1000000\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                out.write(new byte[100]); // and then nothing: a slow client
                out.flush();
                String status = new java.io.BufferedReader(new java.io.InputStreamReader(upload.getInputStream(),
                        StandardCharsets.US_ASCII)).readLine();
                assertThat(status).as("admitted and answered without reading the body").matches("HTTP/1\\.1 4\\d\\d.*");
            }
            HttpResponse<String> next = get("/fast").get(5, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(next.statusCode()).isEqualTo(200);
        }
        finally {
            for (Socket upload : uploads) {
                upload.close();
            }
        }
    }

    @Test
    void aSlowErrorPageStaysInTheCount() throws Exception {
        // Found by a review (helper-131): the filter ran for REQUEST dispatches only, so the
        // count let a request go when its dispatch returned, and the error page Tomcat then
        // dispatched to on the same thread ran outside it: slow ones took threads the count
        // called free.
        start();
        assertSlowErrorPagesCountAsTheirRequests();
    }

    @Test
    void aRefreshToAQueueShorterThanTheConnections_isWarnedThatARestartWouldFail(CapturedOutput output) {
        // Review helper-135: another kind of queue takes a restart, so the refresh's check judged
        // the unbounded queue the pool keeps, and the WARN said only "takes a restart to apply":
        // the restart then failed on the rule startup checks (a task for each connection).
        start("pools.instances.http.queue-capacity=2147483647");
        java.util.Map<String, Object> values = java.util.Map.of("pools.instances.http.queue-capacity", "4");
        this.context.getEnvironment().getPropertySources()
            .addFirst(new org.springframework.core.env.MapPropertySource("refreshed", values));
        this.context.publishEvent(new org.springframework.cloud.context.environment.EnvironmentChangeEvent(this.context,
                values.keySet()));
        assertThat(output).contains("Pool 'http': pools.instances.http.queue-capacity=4")
            .contains("a restart with this configuration would fail: ");
        assertThat(pool().config().queueCapacity()).as("kept").isEqualTo(Integer.MAX_VALUE);
    }

    @Test
    void aRefusedUploadThatHasAllComeGetsItsWhole503_notAReset() throws Exception {
        // Found by a review: closing on a body Tomcat had not read reset the connection, and the
        // client lost the 503; a body that has all come is read first.
        start();
        List<CompletableFuture<HttpResponse<String>>> held = burst(4);
        awaitSettled(held, 4, 4); // the application is full
        int port = ((ServletWebServerApplicationContext) this.context).getWebServer().getPort();
        for (int length : new int[] { 100, 32 * 1024, 60 * 1024, 100 * 1024 }) {
            try (Socket upload = new Socket("127.0.0.1", port)) {
                upload.setSoTimeout(10_000);
                OutputStream out = upload.getOutputStream();
                out.write(("POST /slow HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/octet-stream\r\n"
                        + "Content-Length: " + length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                out.write(new byte[length]);
                out.flush();
                byte[] answer = upload.getInputStream().readAllBytes(); // to the close: a reset throws
                String text = new String(answer, StandardCharsets.US_ASCII);
                assertThat(text).as("upload of %d", length).startsWith("HTTP/1.1 503").contains("Retry-After")
                    .contains("retry after");
            }
        }
        this.gate.open.countDown();
        assertThat(join(held)).allMatch((response) -> response.statusCode() == 200);
    }

    @Test
    void anUploadAnsweredWithoutReadingItsBody_keepsItsConnection_asOnTomcatAlone() throws Exception {
        // Review helper-149: only 64 KB of an unread body were read, so a 405 (a 401, a 404) to an
        // upload of 200 KB closed the connection with the rest unread: a reset, on an idle server,
        // which may lose the answer; Tomcat alone swallows up to 2 MB and keeps the connection.
        start();
        int port = ((ServletWebServerApplicationContext) this.context).getWebServer().getPort();
        int length = 200 * 1024;
        try (Socket upload = new Socket("127.0.0.1", port)) {
            upload.setSoTimeout(10_000);
            OutputStream out = upload.getOutputStream();
            out.write(("POST /fast HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/octet-stream\r\n"
                    + "Content-Length: " + length + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(new byte[length]);
            out.write("GET /fast HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
                .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            String text = new String(upload.getInputStream().readAllBytes(), StandardCharsets.US_ASCII); // a reset throws
            assertThat(text).startsWith("HTTP/1.1 405");
            assertThat(text.indexOf("HTTP/1.1 200")).as("the next request on the same connection").isPositive();
        }
        AdmissionFilter filter = (AdmissionFilter) this.context
            .getBean("poolsWebServerAdmissionFilter", org.springframework.boot.web.servlet.FilterRegistrationBean.class)
            .getFilter();
        await().atMost(Duration.ofSeconds(10)).until(() -> filter.inFlight() == 0);
    }

    @Test
    void aChunkedBodyTheApplicationReadKeepsItsConnection() throws Exception {
        // Review helper-150: any chunked body (RestClient and HttpClient send JSON so when they do
        // not know its length) closed the connection after the answer, read or not.
        start();
        int port = ((ServletWebServerApplicationContext) this.context).getWebServer().getPort();
        try (Socket client = new Socket("127.0.0.1", port)) {
            client.setSoTimeout(10_000);
            OutputStream out = client.getOutputStream();
            out.write(("POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\n"
                    + "Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"
                    + "GET /fast HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            String text = new String(client.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
            assertThat(text).startsWith("HTTP/1.1 200");
            assertThat(text.indexOf("HTTP/1.1 200", 1)).as("the next request on the same connection").isPositive();
        }
    }

    @Test
    void anAnswerGivenWithoutReadingABodyThatIsNotAllThere_isTheApplicationsAnswer_notA500() throws Exception {
        // Review helper-158: closing the connection without reading the rest (Tomcat's
        // DISABLE_SWALLOW_INPUT) also marks the answer as an error: a 2xx became a 500 with Boot's
        // error page. A chunked body not read to its end, and one that has not all come.
        start();
        int port = ((ServletWebServerApplicationContext) this.context).getWebServer().getPort();
        try (Socket client = new Socket("127.0.0.1", port)) {
            client.setSoTimeout(10_000);
            OutputStream out = client.getOutputStream();
            out.write(("POST /accept HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\n"
                    + "Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            String text = new String(client.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
            assertThat(text).startsWith("HTTP/1.1 202");
            assertThat(text).doesNotContain("Internal Server Error");
        }
        try (Socket client = new Socket("127.0.0.1", port)) {
            client.setSoTimeout(10_000);
            OutputStream out = client.getOutputStream();
            out.write(("POST /accept HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/octet-stream\r\n"
                    + "Content-Length: 3000\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(new byte[100]);
            out.flush();
            String text = new String(client.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
            assertThat(text).startsWith("HTTP/1.1 202");
            assertThat(text).doesNotContain("Internal Server Error");
        }
    }

    @Test
    void managementServerOnItsOwnPortKeepsTomcatsOwnThreads() throws Exception {
        Map<String, WebServer> servers = new ConcurrentHashMap<>();
        this.context = new SpringApplicationBuilder(WebServerPoolTestApplication.class).properties(PROPERTIES)
            .properties("management.server.port=0", "management.server.address=127.0.0.1")
            .listeners((ApplicationListener<WebServerInitializedEvent>) (event) -> servers
                .put(String.valueOf(event.getApplicationContext().getServerNamespace()), event.getWebServer()))
            .run();
        assertThat(servers).containsOnlyKeys("null", "management");
        assertThat(executor(servers.get("null"))).isSameAs(pool());
        assertThat(executor(servers.get("management"))).isNotSameAs(pool());
    }

    @Test
    void aConnectorTheApplicationAddsRunsOnThePoolToo() throws Exception {
        // Found by a review: Boot customizes the main connector only, so a second port's requests
        // ran on Tomcat's own threads while the admission filter counted them against the pool.
        this.context = withSecondConnector(16).properties("pools.instances.http.queue-capacity=32").run();
        Connector[] connectors = ((TomcatWebServer) ((ServletWebServerApplicationContext) this.context).getWebServer())
            .getTomcat()
            .getService()
            .findConnectors();
        assertThat(connectors).hasSize(2)
            .allSatisfy((connector) -> assertThat(connector.getProtocolHandler().getExecutor()).isSameAs(pool()));
    }

    @Test
    void aQueueShorterThanEveryConnectorsConnections_stopsStartup(CapturedOutput output) {
        // The queue holds a task per connection of every connector now on the pool: 16 + 8192 here.
        assertThatException().isThrownBy(() -> this.context = withSecondConnector(8192).run());
        assertThat(output).contains("Invalid value 'http' for property 'pools.web-server.pool': pool 'http' has "
                + "queue-capacity 16, fewer than the 8208 connections the server keeps open (server.tomcat.max-connections "
                + "and the maxConnections of the 1 connector(s) the application added)")
            .contains("Set pools.instances.http.queue-capacity to at least 8208");
    }

    @Test
    void aRefusalOverHttp2_isA503WithoutTheConnectionHeaderHttp2Forbids() throws Exception {
        // Review helper-91: the 503 said "Connection: close" on HTTP/2 too, where a client such as
        // curl takes the response as malformed (PROTOCOL_ERROR) and never sees the 503.
        start("server.http2.enabled=true", "pools.instances.http.queue-capacity=" + 16 * 21);
        List<CompletableFuture<HttpResponse<String>>> held = burst(4);
        awaitSettled(held, 4, 4); // the application is full
        HttpClient h2c = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).build();
        HttpResponse<String> refused = h2c.send(HttpRequest.newBuilder(uri("/fast")).timeout(Duration.ofSeconds(20))
            .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(refused.version()).isEqualTo(HttpClient.Version.HTTP_2);
        assertThat(refused.statusCode()).isEqualTo(503);
        assertThat(refused.headers().firstValue("retry-after")).isPresent();
        assertThat(refused.headers().firstValue("connection")).isEmpty();
        this.gate.open.countDown();
        assertThat(join(held)).allMatch((response) -> response.statusCode() == 200);
    }

    @Test
    void http2ClientsThatOpenNoFlowControlWindow_doNotHoldTheReservedThreads() throws Exception {
        // Helper-119: the 503's body is flow-controlled on HTTP/2; a client that opens no window
        // (SETTINGS_INITIAL_WINDOW_SIZE 0) kept the reserved thread writing it for Tomcat's
        // streamWriteTimeout (20 s), and two such clients took the whole reserve: nobody got a 503.
        start("server.http2.enabled=true", "pools.instances.http.queue-capacity=" + 16 * 21);
        List<CompletableFuture<HttpResponse<String>>> held = burst(4);
        awaitSettled(held, 4, 4); // the application is full
        List<Socket> stalled = new java.util.ArrayList<>();
        try {
            for (int i = 0; i < 2; i++) {
                Socket socket = new Socket("127.0.0.1", uri("/").getPort());
                stalled.add(socket);
                OutputStream out = socket.getOutputStream();
                // An h2c upgrade whose HTTP2-Settings (base64 of 00 04 00 00 00 00) set the initial window to 0.
                out.write(("GET /fast HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade, HTTP2-Settings\r\n"
                        + "Upgrade: h2c\r\nHTTP2-Settings: AAQAAAAA\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
                out.write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                out.write(new byte[] { 0, 0, 0, 4, 0, 0, 0, 0, 0 }); // SETTINGS, empty
                out.write(new byte[] { 0, 0, 0, 4, 1, 0, 0, 0, 0 }); // SETTINGS ACK of the server's
                // HEADERS on stream 3, END_STREAM | END_HEADERS: GET http://127.0.0.1/fast (HPACK).
                out.write(new byte[] { 0, 0, 20, 1, 5, 0, 0, 0, 3, (byte) 0x82, (byte) 0x86, 4, 5 });
                out.write("/fast".getBytes(StandardCharsets.US_ASCII));
                out.write(new byte[] { 1, 9 });
                out.write("127.0.0.1".getBytes(StandardCharsets.US_ASCII));
                out.flush();
            }
            for (Socket socket : stalled) {
                awaitHeadersOfStream3(socket); // its 503 is being answered: the body is what waits
            }
            // Without the fix both reserved threads wait 20 s (Tomcat's stream write timeout).
            HttpResponse<String> refused = get("/fast").get(10, java.util.concurrent.TimeUnit.SECONDS);
            assertThat(refused.statusCode()).isEqualTo(503);
        }
        finally {
            for (Socket socket : stalled) {
                socket.close();
            }
        }
        this.gate.open.countDown();
        assertThat(join(held)).allMatch((response) -> response.statusCode() == 200);
    }

    /** Reads an h2c connection (the 101, then frames) until the HEADERS frame of stream 3. */
    private static void awaitHeadersOfStream3(Socket socket) throws java.io.IOException {
        socket.setSoTimeout(10_000);
        java.io.DataInputStream in = new java.io.DataInputStream(socket.getInputStream());
        int crlfs = 0;
        while (crlfs < 4) { // the 101's head ends with CR LF CR LF
            int b = in.read();
            if (b < 0) {
                throw new java.io.EOFException("the server closed the connection before its 101 ended");
            }
            crlfs = (b == '\r' || b == '\n') ? crlfs + 1 : 0;
        }
        while (true) {
            int length = (in.readUnsignedByte() << 16) | in.readUnsignedShort();
            int type = in.readUnsignedByte();
            in.readUnsignedByte(); // flags
            int stream = in.readInt() & 0x7FFFFFFF;
            in.skipNBytes(length);
            if (type == 1 && stream == 3) {
                return;
            }
        }
    }

    @Test
    void withHttp2_theQueueHoldsATaskForEachStreamAConnectionRuns(CapturedOutput output) {
        // Review helper-91: an HTTP/2 connection queues a task for each stream it runs at once (20
        // by default), from a pool thread that reads it: a queue of one task a connection filled,
        // those threads waited for room, and nobody drained it.
        assertThatException().isThrownBy(() -> start("server.http2.enabled=true"));
        assertThat(output).contains("pool 'http' has queue-capacity 16, fewer than the 336 tasks the connections "
                + "the server keeps open may queue (server.tomcat.max-connections, times 1 + the 20 streams an HTTP/2 "
                + "connection runs at once (server.http2.enabled), each a task of its own)")
            .contains("Set pools.instances.http.queue-capacity to at least 336");
    }

    @Test
    void withHttp2StreamsUnlimited_theRuleAsksForAnUnboundedQueue(CapturedOutput output) {
        // Review helper-92: 1 + Integer.MAX_VALUE streams wrapped in ints, and the rule let any
        // queue through.
        SpringApplicationBuilder unlimitedStreams = new SpringApplicationBuilder(WebServerPoolTestApplication.class)
            .properties(PROPERTIES)
            .properties("server.http2.enabled=true")
            .initializers((ConfigurableApplicationContext app) -> app.getBeanFactory()
                .registerSingleton("unlimitedStreams", (WebServerFactoryCustomizer<TomcatServletWebServerFactory>) (
                        factory) -> factory.addConnectorCustomizers((connector) -> {
                            for (org.apache.coyote.UpgradeProtocol upgrade : connector.findUpgradeProtocols()) {
                                if (upgrade instanceof org.apache.coyote.http2.Http2Protocol http2) {
                                    http2.setMaxConcurrentStreams(Integer.MAX_VALUE);
                                    http2.setMaxConcurrentStreamExecution(Integer.MAX_VALUE);
                                }
                            }
                        })));
        assertThatException().isThrownBy(() -> this.context = unlimitedStreams.run());
        assertThat(output).contains("pool 'http' has queue-capacity 16, fewer than the 2147483647 tasks");
    }

    private static SpringApplicationBuilder withSecondConnector(int maxConnections) {
        return new SpringApplicationBuilder(WebServerPoolTestApplication.class).properties(PROPERTIES)
            .initializers((ConfigurableApplicationContext app) -> app.getBeanFactory()
                .registerSingleton("secondConnector", (WebServerFactoryCustomizer<TomcatServletWebServerFactory>) (
                        factory) -> {
                    Connector second = new Connector();
                    second.setPort(0);
                    second.setProperty("address", "127.0.0.1");
                    second.setProperty("maxConnections", Integer.toString(maxConnections));
                    factory.addAdditionalConnectors(second);
                }));
    }

    private static Executor executor(WebServer server) {
        return ((TomcatWebServer) server).getTomcat().getConnector().getProtocolHandler().getExecutor();
    }

    /** Spring Boot sets its virtual-thread executor first; the pool's customizer runs after it and wins. */
    @Test
    @EnabledForJreRange(min = JRE.JAVA_21)
    void withVirtualThreadsEnabledTomcatStillRunsOnThePool() throws Exception {
        start("spring.threads.virtual.enabled=true");
        Connector connector = ((TomcatWebServer) ((ServletWebServerApplicationContext) this.context).getWebServer())
            .getTomcat()
            .getConnector();
        assertThat(connector.getProtocolHandler().getExecutor()).isSameAs(pool());
        assertThat(pool().config().virtualThreads()).as("the pool follows spring.threads.virtual.enabled").isTrue();
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
        // Review helper-73: the pool refuses no task, so only this meter tells an alert of the 503s.
        // Under the name the shipped alert WorkerPoolWebServerRefusing queries.
        assertThat(this.context.getBean(io.micrometer.prometheusmetrics.PrometheusMeterRegistry.class).scrape())
            .containsPattern("(?m)^pool_requests_refused_total\\{[^}]*name=\"http\"[^}]*} 26.0$");
        assertThat(output.toString().split("Web server overloaded", -1)).hasSize(2);
        assertThat(output).containsPattern("answered 503 to \\d+ request\\(s\\)")
            .contains("pool 'http' admits 4 requests at once (capacity 6 minus 2 of pools.web-server.reserved-threads)")
            .contains("Raise pools.instances.http.capacity, or tune it live: POST /actuator/pools/http/tune");
    }

    @Test
    void aLivenessProbeOnTheMainPort_isAnsweredWhileTheApplicationIsFull() throws Exception {
        // Review helper-149: /livez was counted as the application's, and a full pool answered the
        // kubelet's probe with a 503 (three in a row restart a busy, healthy pod).
        start("management.endpoint.health.probes.add-additional-paths=true",
                "management.endpoint.health.probes.enabled=true", "management.endpoints.web.exposure.include=pools,health");
        List<CompletableFuture<HttpResponse<String>>> burst = burst(12);
        awaitSettled(burst, 4, 4);
        assertThat(get("/fast").get(20, TimeUnit.SECONDS).statusCode()).as("the application is full").isEqualTo(503);
        HttpResponse<String> probe = get("/livez").get(20, TimeUnit.SECONDS);
        assertThat(probe.statusCode()).isEqualTo(200);
        assertThat(probe.body()).contains("UP");
        this.gate.open.countDown();
        join(burst);
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
        assertThat(responses).filteredOn((r) -> r.statusCode() == 503).hasSize(16);
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

}
