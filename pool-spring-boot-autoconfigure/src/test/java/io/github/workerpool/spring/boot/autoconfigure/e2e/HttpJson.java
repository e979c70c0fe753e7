package io.github.workerpool.spring.boot.autoconfigure.e2e;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

import com.jayway.jsonpath.JsonPath;

/** A tiny HTTP client for the tests: plain JDK client, answers parsed with JsonPath. */
final class HttpJson {

    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private final String base;

    HttpJson(int port) {
        this.base = "http://127.0.0.1:" + port;
    }

    Response get(String path) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(URI.create(this.base + path)).GET());
    }

    Response post(String path, String json) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(this.base + path));
        if (json == null) {
            request.POST(HttpRequest.BodyPublishers.noBody());
        }
        else {
            request.header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json));
        }
        return send(request);
    }

    /** A POST of these very bytes, as application/json. */
    Response postBytes(String path, byte[] body) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(URI.create(this.base + path))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofByteArray(body)));
    }

    /** A POST of a form body (application/x-www-form-urlencoded). */
    Response postForm(String path, String form) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(URI.create(this.base + path))
            .header("Content-Type", "application/x-www-form-urlencoded")
            .POST(HttpRequest.BodyPublishers.ofString(form)));
    }

    private Response send(HttpRequest.Builder request) throws IOException, InterruptedException {
        HttpResponse<String> response = this.client.send(request.timeout(Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        return new Response(response.statusCode(), response.body());
    }

    record Response(int status, String body) {

        <T> T json(String path) {
            return JsonPath.read(this.body, path);
        }

    }

}
