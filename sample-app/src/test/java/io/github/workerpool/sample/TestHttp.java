package io.github.workerpool.sample;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** A real HTTP client for the sample's tests: the JDK's, against 127.0.0.1 and a random port. */
final class TestHttp {

    private static final JsonMapper json = JsonMapper.builder().build();

    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private final String base;

    TestHttp(int port) {
        this.base = "http://127.0.0.1:" + port;
    }

    String base() {
        return this.base;
    }

    Response get(String path) {
        return send(request(path, null, null).GET());
    }

    /** GETs with extra headers (name, value, name, value, ...). */
    Response get(String path, String... headers) {
        return send(request(path, null, null).headers(headers).GET());
    }

    /** POSTs {@code body} as JSON (no body and no content type if null), logged in if user is not null. */
    Response post(String path, String body, String user, String password) {
        return post(path, body, user, password, new String[0]);
    }

    /** As {@link #post(String, String, String, String)}, with extra headers (name, value, name, value, ...). */
    Response post(String path, String body, String user, String password, String... headers) {
        HttpRequest.Builder request = request(path, user, password);
        if (headers.length > 0) {
            request.headers(headers);
        }
        if (body != null) {
            request.header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body));
        }
        else {
            request.POST(HttpRequest.BodyPublishers.noBody());
        }
        return send(request);
    }

    Response post(String path) {
        return post(path, null, null, null);
    }

    /** The pool's JSON from {@code GET /actuator/pools/{name}}. */
    JsonNode pool(String name) {
        Response response = get("/actuator/pools/" + name);
        if (response.status() != 200) {
            throw new AssertionError("GET /actuator/pools/" + name + " answered " + response);
        }
        return response.json();
    }

    private HttpRequest.Builder request(String path, String user, String password) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(this.base + path)).timeout(Duration.ofSeconds(30));
        if (user != null) {
            String token = Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
            request.header("Authorization", "Basic " + token);
        }
        return request;
    }

    private Response send(HttpRequest.Builder request) {
        try {
            HttpResponse<String> response = this.client.send(request.build(), HttpResponse.BodyHandlers.ofString());
            return new Response(response.statusCode(), response.body(), response.headers());
        }
        catch (IOException ex) {
            throw new IllegalStateException(ex);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    /** A status, a body and the headers. */
    record Response(int status, String body, HttpHeaders headers) {

        /** The first value of a header, or null. */
        String header(String name) {
            return this.headers.firstValue(name).orElse(null);
        }

        JsonNode json() {
            return json.readTree(this.body);
        }

        @Override
        public String toString() {
            return this.status + " " + this.body;
        }
    }
}
