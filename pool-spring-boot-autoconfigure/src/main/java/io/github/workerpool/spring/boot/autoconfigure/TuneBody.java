package io.github.workerpool.spring.boot.autoconfigure;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.function.Supplier;

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

    /** A configured path normalized: "/x/" and "x" as "/x", "/" as "". */
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

    /** A POST to one pool's action: the pool and the action as the endpoint's selectors get them. */
    record Target(String pool, String action) {
    }

    /**
     * The endpoint's path on one server, for the filters to match requests against: the
     * actuator's path there and, below it, the endpoint's own ({@code pools}, or its
     * path-mapping), asked on the first request (it needs the endpoints discovered).
     */
    static final class Endpoint {

        private final String actuatorPath;

        private final Supplier<String> root;

        private volatile List<String> segments;

        /**
         * @param actuatorPath the actuator's path within the application, such as {@code /actuator}
         * @param root the endpoint's path below it
         */
        Endpoint(String actuatorPath, Supplier<String> root) {
            this.actuatorPath = actuatorPath;
            this.root = root;
        }

        /**
         * The pool and action a POST's path names, or null if it is no {@code <endpoint>/<name>/<action>}.
         * Matched on the path's segments decoded and without their {@code ;parameters}, as Spring's
         * {@code PathPattern} routes a request, so that {@code <endpoint>/mail/tun%65} and
         * {@code <endpoint>/mail/tune;x=1}, which reach the endpoint as a tune, are read too; empty
         * segments are skipped (reading more paths than the endpoint serves only checks requests it
         * would refuse anyway).
         * @param path the request's path within the application
         */
        Target target(PathContainer path) {
            List<String> endpoint = this.segments;
            if (endpoint == null) {
                endpoint = new ArrayList<>();
                for (String s : (this.actuatorPath + "/" + this.root.get()).split("/")) {
                    if (!s.isEmpty()) {
                        endpoint.add(s);
                    }
                }
                this.segments = endpoint;
            }
            List<String> segments = new ArrayList<>();
            for (PathContainer.Element e : path.elements()) {
                if (e instanceof PathContainer.PathSegment segment && !segment.valueToMatch().isEmpty()) {
                    segments.add(segment.valueToMatch());
                }
            }
            int n = endpoint.size();
            if (segments.size() != n + 2 || !segments.subList(0, n).equals(endpoint)) {
                return null;
            }
            return new Target(segments.get(n), segments.get(n + 1));
        }

    }

    /**
     * The refusal of a POST to a pool's action, null if it may go on to the endpoint: a 400 that
     * names the field, or the endpoint's 404 if the pool does not exist. Actuator fills the
     * operation's arguments from the path's selectors, then the body's fields, then the query's
     * parameters, each over the one before: so a {@code name} or {@code action} in the body or the
     * query would act on another pool, or turn a purge into a tune, unread; any action refuses them.
     * A tune also refuses a body field that no option has or that holds an object or an array, and
     * a query parameter that is an option misspelt (actuator drops those and applies the rest).
     * @param path the request's path, as the response tells it
     * @param queryNames the names of the query's parameters, decoded
     */
    static Refusal refusal(String path, Target target, byte[] body, Collection<String> queryNames,
            Predicate<String> poolExists) {
        Map<String, Object> fields = fields(body);
        String problem = (fields != null) ? selectorOutsideThePath(fields.keySet(), queryNames) : NOT_AN_OBJECT;
        if (problem == null && "tune".equals(target.action())) {
            problem = badField(fields);
            if (problem == null) {
                problem = badQueryParameter(queryNames);
            }
            if (problem == null) {
                problem = sentTwice(fields.keySet(), queryNames);
            }
        }
        if (problem == null && "purge".equals(target.action())) {
            problem = optionsForAPurge(fields.keySet(), queryNames);
        }
        if (problem == null) {
            return null;
        }
        String pool = target.pool();
        return poolExists.test(pool)
                ? answer(path, 400, "Bad Request", "Cannot " + target.action() + " pool '" + pool + "': " + problem)
                : answer(path, 404, "Not Found", "No pool named '" + pool + "'");
    }

    /** The endpoint's selectors: they come from the path only. */
    private static final List<String> SELECTORS = List.of("name", "action");

    private static String selectorOutsideThePath(Collection<String> fieldNames, Collection<String> queryNames) {
        for (String selector : SELECTORS) {
            String where = fieldNames.contains(selector) ? "the body" : queryNames.contains(selector) ? "the query" : null;
            if (where != null) {
                return selector + " comes from the path (<endpoint>/<name>/<action>), not from " + where
                        + "; remove it. Nothing was changed";
            }
        }
        return null;
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
     * A body's fields: none if it is blank, null if it is no JSON object in UTF-8. Refused then,
     * not handed on: actuator's JSON reader reads the bytes, skipping a byte-order mark and
     * reading UTF-16 and UTF-32 (or an application's lenient settings, single quotes...), so a
     * body this check could not read was bound field by field unchecked, a misspelt field dropped,
     * or a name or action in it acting on another pool (found by a review). A UTF-8 byte-order
     * mark is skipped here as there.
     */
    static Map<String, Object> fields(byte[] bytes) {
        int from = (bytes.length >= 3 && (bytes[0] & 0xFF) == 0xEF && (bytes[1] & 0xFF) == 0xBB
                && (bytes[2] & 0xFF) == 0xBF) ? 3 : 0;
        String body = new String(bytes, from, bytes.length - from, StandardCharsets.UTF_8);
        if (body.isBlank()) {
            return Map.of();
        }
        try {
            Map<String, Object> fields = JsonParserFactory.getJsonParser().parseMap(body);
            return (fields != null) ? fields : Map.of(); // a JSON null: no body to actuator too
        }
        catch (IllegalArgumentException ex) { // JsonParseException among them
            return null;
        }
    }

    /**
     * The body the filters hand on for an action sent without one ({@code curl -X POST .../purge}),
     * as JSON: it reaches the operation that takes the caller's SecurityContext, so the audit names
     * the principal on every stack (the body-less operation read it from Spring Security's thread
     * local, which WebFlux never fills: "anonymous").
     */
    static final byte[] EMPTY_OBJECT = "{}".getBytes(StandardCharsets.UTF_8);

    /** The refusal of a body that is no JSON object in UTF-8. */
    static final String NOT_AN_OBJECT = "JSON parse error: the body must be one JSON object in UTF-8, such as "
            + "{\"capacity\": 50}, or nothing. Nothing was changed";

    /** What is wrong with the first field that no option has, or that holds an object, an array or a null; null if none. */
    static String badField(Map<String, Object> fields) {
        for (Map.Entry<String, Object> field : fields.entrySet()) {
            Object value = field.getValue();
            // As actuator binds them: by the parameter's exact name (queue-capacity is no field).
            PoolOption option = field(field.getKey());
            if (option == null && !ADAPTIVE.equals(field.getKey())) {
                return noOption(field.getKey());
            }
            if (value instanceof Map<?, ?> || value instanceof Collection<?>) {
                String what = (value instanceof Map<?, ?>) ? "an object" : "an array";
                return (option != null) ? option.field() + " must be " + option.expected() + ", but was " + what
                        : ADAPTIVE + " must be true or false, but was " + what;
            }
            if (value == null) {
                // Actuator binds a null as a field left out: it would change nothing without a word.
                String name = (option != null) ? option.field() : ADAPTIVE;
                return name + " must be " + ((option != null) ? option.expected() : "true or false")
                        + ", but was null; leave the field out to keep its value";
            }
            if (value instanceof Number && option != null && option.type() == PoolOption.Type.DURATION) {
                // Actuator hands the operation text: a bare 30 would arrive as "30", milliseconds,
                // where whoever wrote it likely meant seconds.
                return option.field() + " must be " + option.expected() + ", but was the number " + value
                        + " with no unit: write \"" + value + "s\" or \"" + value + "ms\"";
            }
        }
        return null;
    }

    /**
     * What is wrong with the first query parameter that is an option misspelt (actuator drops it);
     * null if none. Other parameters pass: a proxy's or a token's is no option.
     */
    static String badQueryParameter(Collection<String> names) {
        for (String name : names) {
            if (!tuneField(name) && PoolsPropertiesBinding.closest(name, FIELDS) != null) {
                return noOption(name);
            }
        }
        return null;
    }

    /**
     * An option both in the body and in the query: actuator applies the query's and drops the
     * body's without a word (helper-114: ?capacity=5 with {"capacity": 50} applied 5).
     */
    private static String sentTwice(Collection<String> bodyFields, Collection<String> queryNames) {
        for (String name : queryNames) {
            if (tuneField(name) && bodyFields.contains(name)) {
                return name + " is both in the body and in the query; send it once, in the body; nothing was changed";
            }
        }
        return null;
    }

    /** A purge takes no options: ones sent with it were dropped, the purge applied. */
    private static String optionsForAPurge(Collection<String> bodyFields, Collection<String> queryNames) {
        for (Collection<String> names : List.of(bodyFields, queryNames)) {
            for (String name : names) {
                if (tuneField(name)) {
                    return purgeTakesNoOptions(name);
                }
            }
        }
        return null;
    }

    /** The refusal of a purge sent with an option (here, and the endpoint's own check for JMX). */
    static String purgeTakesNoOptions(String sent) {
        return "a purge takes no options, but " + sent + " was sent; send it to tune; nothing was changed";
    }

    private static String noOption(String name) {
        String fixed = FIXED.get(name);
        if (fixed != null) { // shown in the pool's config, as the options are, but no live option
            return name + " " + fixed + "; nothing was changed";
        }
        String meant = PoolsPropertiesBinding.closest(name, FIELDS);
        return name + " is no option of a pool" + ((meant != null) ? "; did you mean " + meant + "?" : ".")
                + " Live options: " + PoolsEndpoint.liveFields() + ", " + ADAPTIVE + "; nothing was changed";
    }

    /** The entries of a pool's config that are no live option, and what sets them. */
    private static final Map<String, String> FIXED = Map.of(
            "customThreadFactory", "is fixed when the pool is built (a WorkerPoolBuilderCustomizer's threadFactory);"
                    + " it takes a restart to change",
            "shutdownAwaitTerminationPeriod", "is read when the pool stops: set pools.instances.<pool>.shutdown."
                    + "await-termination-period (or pools.defaults.shutdown.await-termination-period); it takes a"
                    + " restart to apply",
            "pools", "is how many pools a MultiPool has, fixed when it is built (MultiPool.of)");

    private static final String ADAPTIVE = "adaptive";

    /** Whether a tune takes a field of that name: a live option, or adaptive. */
    private static boolean tuneField(String name) {
        return field(name) != null || ADAPTIVE.equals(name);
    }

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
