package io.github.workerpool.spring.boot.autoconfigure;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

import org.springframework.boot.json.JsonParserFactory;
import org.springframework.boot.json.JsonWriter;
import org.springframework.http.server.PathContainer;

/**
 * The check of a {@code tune} body that the endpoint's body filters make, on a servlet server
 * ({@link PoolsEndpointBodyFilter}) and on a reactive one ({@link PoolsEndpointBodyWebFilter}):
 * here, so that neither needs the other's web stack on the classpath.
 */
final class TuneBody {

    private TuneBody() {
    }

    /** A path as the filters compare it: "/x/" and "x" as "/x", "/" as "". */
    static String normalized(String path) {
        String p = path.trim();
        while (p.endsWith("/")) {
            p = p.substring(0, p.length() - 1);
        }
        return (p.isEmpty() || p.startsWith("/")) ? p : "/" + p;
    }

    /** Most bytes of a tune body the filters read (a tune takes a few dozen): more is refused. */
    static final int MAX_BODY = 64 * 1024;

    /** The refusal of a body larger than {@link #MAX_BODY}, read no further. */
    static Refusal tooLarge(String path) {
        return answer(path, 413, "Payload Too Large", "A tune body takes at most " + MAX_BODY / 1024
                + " KB (its fields are a pool's options); this one is larger");
    }

    /** A refused tune: the status and the JSON body, shaped as Spring Boot's error responses. */
    record Refusal(int status, String json) {
    }

    /** The non-empty segments of a configured path, such as {@code /actuator/pools}. */
    static List<String> segments(String path) {
        List<String> out = new ArrayList<>();
        for (String s : path.split("/")) {
            if (!s.isEmpty()) {
                out.add(s);
            }
        }
        return out;
    }

    /**
     * The pool a request's path tunes, {@code ""} for a tune with no pool name, or null if the
     * path is no tune of the endpoint. Matched on the path's segments decoded and without their
     * {@code ;parameters}, as Spring's {@code PathPattern} routes a request, so that
     * {@code <endpoint>/mail/tun%65} and {@code <endpoint>/mail/tune;x=1}, which reach the endpoint
     * as a tune, are read too; empty segments are skipped (reading more paths than the endpoint
     * serves only checks bodies it would refuse anyway).
     * @param endpoint the endpoint's path within the application, as segments: the actuator's
     *        path and the endpoint's (pools, or its path-mapping)
     * @param path the request's path within the application
     */
    static String tunedPool(List<String> endpoint, PathContainer path) {
        List<String> segments = new ArrayList<>();
        for (PathContainer.Element e : path.elements()) {
            if (e instanceof PathContainer.PathSegment segment && !segment.valueToMatch().isEmpty()) {
                segments.add(segment.valueToMatch());
            }
        }
        int n = endpoint.size();
        int size = segments.size();
        if (size < n + 1 || size > n + 2 || !segments.subList(0, n).equals(endpoint)
                || !"tune".equals(segments.get(size - 1))) {
            return null;
        }
        return (size == n + 2) ? segments.get(n) : "";
    }

    /**
     * The refusal of a tune body, null if it may go on to the endpoint: a 400 naming the field,
     * or the endpoint's 404 if the pool does not exist.
     * @param path the request's path, as the response tells it
     * @param pool the decoded pool name ({@link #tunedPool}); "" for none
     */
    static Refusal refusal(String path, String pool, byte[] body, Predicate<String> poolExists) {
        if (pool.isEmpty()) {
            return null; // no pool name (<endpoint>/tune): the endpoint answers that itself
        }
        String problem = badField(new String(body, StandardCharsets.UTF_8));
        if (problem == null) {
            return null;
        }
        return poolExists.test(pool) ? answer(path, 400, "Bad Request", "Cannot tune pool '" + pool + "': " + problem)
                : answer(path, 404, "Not Found", "No pool named '" + pool + "'");
    }

    private static Refusal answer(String path, int status, String error, String message) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("status", status);
        body.put("error", error);
        body.put("message", message);
        body.put("path", path);
        return new Refusal(status, JsonWriter.standard().writeToString(body));
    }

    /**
     * What is wrong with the first field that no option has, or that holds an object or an
     * array; null if none is wrong (or the body is no JSON object: actuator reports that itself).
     */
    static String badField(String body) {
        if (body.isBlank()) {
            return null;
        }
        Map<String, Object> fields;
        try {
            fields = JsonParserFactory.getJsonParser().parseMap(body);
        }
        catch (IllegalArgumentException ex) { // JsonParseException among them
            return null;
        }
        for (Map.Entry<String, Object> field : fields.entrySet()) {
            Object value = field.getValue();
            // As actuator binds them: by the parameter's exact name (queue-capacity is no field).
            PoolOption option = field(field.getKey());
            if (option == null && !ADAPTIVE.equals(field.getKey())) {
                String meant = PoolsPropertiesBinding.closest(field.getKey(), FIELDS);
                return field.getKey() + " is no option of a pool" + ((meant != null) ? "; did you mean " + meant + "?" : "")
                        + " Live options: " + PoolsEndpoint.liveFields() + ", " + ADAPTIVE + "; nothing was changed";
            }
            if (value instanceof Map<?, ?> || value instanceof Collection<?>) {
                String what = (value instanceof Map<?, ?>) ? "an object" : "an array";
                return (option != null) ? option.field() + " must be " + option.expected() + ", but was " + what
                        : ADAPTIVE + " must be true or false, but was " + what;
            }
        }
        return null;
    }

    private static final String ADAPTIVE = "adaptive";

    private static PoolOption field(String name) {
        for (PoolOption option : PoolOption.values()) {
            if (option.field().equals(name)) {
                return option;
            }
        }
        return null;
    }

    /** Every field a tune takes, for "did you mean". */
    private static final List<String> FIELDS = fields();

    private static List<String> fields() {
        List<String> fields = new ArrayList<>();
        for (PoolOption option : PoolOption.values()) {
            fields.add(option.field());
        }
        fields.add(ADAPTIVE);
        return fields;
    }

}
