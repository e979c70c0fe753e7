package io.github.workerpool.fleet;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/** Calls to a replica's actuator over HTTP on 127.0.0.1, with the JDK's client. */
final class Http {

    private static final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private Http() {
    }

    /** The base address of the context's web server, {@code http://127.0.0.1:<port>}. */
    static String address(ConfigurableApplicationContext context) {
        return "http://127.0.0.1:" + ((WebServerApplicationContext) context).getWebServer().getPort();
    }

    /** POSTs without a body to the path of the context's web server; returns the response. */
    static HttpResponse<String> post(ConfigurableApplicationContext context, String path) throws Exception {
        return client.send(postRequest(context, path), HttpResponse.BodyHandlers.ofString());
    }

    /** POSTs without a body to the path of the context's web server; the response comes later. */
    static CompletableFuture<HttpResponse<String>> postAsync(ConfigurableApplicationContext context, String path) {
        return client.sendAsync(postRequest(context, path), HttpResponse.BodyHandlers.ofString());
    }

    private static HttpRequest postRequest(ConfigurableApplicationContext context, String path) {
        return HttpRequest.newBuilder(URI.create(address(context) + path))
            .timeout(Duration.ofSeconds(10))
            .POST(HttpRequest.BodyPublishers.noBody())
            .build();
    }

}
