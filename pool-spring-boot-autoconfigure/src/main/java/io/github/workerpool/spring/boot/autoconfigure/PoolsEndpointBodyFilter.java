package io.github.workerpool.spring.boot.autoconfigure;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.boot.json.JsonParserFactory;
import org.springframework.boot.json.JsonWriter;
import org.springframework.util.StreamUtils;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Refuses, with a 400 that names the field, a {@code tune} body with a field no option has, or
 * whose field holds an object or an array. Actuator binds a body's fields to the operation's
 * parameters by name and drops the others, so {@code {"capacty": 50}} was ignored and the rest
 * applied (a misspelt property is refused at startup); and it reads them as strings, so a nested
 * value got the JSON library's "Cannot deserialize value of type String from Object value",
 * which names no field. Only the body is read: query parameters are not options. Only POSTs to
 * {@code <path>/pools/<name>/tune} are read, and only while writes are allowed (else actuator's
 * 404 stands); a pool that does not exist is a 404 as the endpoint answers it. The body is handed
 * on unchanged.
 */
final class PoolsEndpointBodyFilter extends OncePerRequestFilter {

    private final String prefix;

    private final Predicate<String> poolExists;

    private final BooleanSupplier writable;

    /**
     * @param actuatorPath the actuator's path on this server, such as {@code /actuator} ("" at the root)
     * @param poolExists whether a pool of that name exists
     * @param writable whether the endpoint's writes are mapped (its access is unrestricted)
     */
    PoolsEndpointBodyFilter(String actuatorPath, Predicate<String> poolExists, BooleanSupplier writable) {
        this.prefix = actuatorPath + "/pools/";
        this.poolExists = poolExists;
        this.writable = writable;
    }

    /** The actuator's path below the DispatcherServlet's: "/x/" and "x" as "/x", "/" as "". */
    static String actuatorPath(String servletPath, String basePath) {
        return normalized(servletPath) + normalized(basePath);
    }

    private static String normalized(String path) {
        String p = path.trim();
        while (p.endsWith("/")) {
            p = p.substring(0, p.length() - 1);
        }
        return (p.isEmpty() || p.startsWith("/")) ? p : "/" + p;
    }

    /** The request's decoded path within the application, as the servlet container mapped it. */
    private static String path(HttpServletRequest request) {
        return request.getServletPath() + ((request.getPathInfo() != null) ? request.getPathInfo() : "");
    }

    @Override
    protected boolean shouldNotFilter(HttpServletRequest request) {
        String path = path(request);
        return !"POST".equals(request.getMethod()) || !path.startsWith(this.prefix) || !path.endsWith("/tune")
                || !this.writable.getAsBoolean();
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        byte[] body = StreamUtils.copyToByteArray(request.getInputStream());
        String problem = badField(new String(body, StandardCharsets.UTF_8));
        if (problem != null) {
            String path = path(request);
            String pool = path.substring(this.prefix.length(), path.length() - "/tune".length());
            if (this.poolExists.test(pool)) {
                answer(response, path, HttpServletResponse.SC_BAD_REQUEST, "Bad Request",
                        "Cannot tune pool '" + pool + "': " + problem);
            }
            else {
                answer(response, path, HttpServletResponse.SC_NOT_FOUND, "Not Found", "No pool named '" + pool + "'");
            }
            return;
        }
        chain.doFilter(new CachedBody(request, body), response);
    }

    private static void answer(HttpServletResponse response, String path, int status, String error, String message)
            throws IOException {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("status", status);
        body.put("error", error);
        body.put("message", message);
        body.put("path", path);
        response.setStatus(status);
        response.setContentType("application/json");
        response.setCharacterEncoding(StandardCharsets.UTF_8.name());
        response.getWriter().write(JsonWriter.standard().writeToString(body));
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

    /** The request with its body read once and served again. */
    private static final class CachedBody extends HttpServletRequestWrapper {

        private final byte[] body;

        CachedBody(HttpServletRequest request, byte[] body) {
            super(request);
            this.body = body;
        }

        @Override
        public ServletInputStream getInputStream() {
            ByteArrayInputStream in = new ByteArrayInputStream(this.body);
            return new ServletInputStream() {

                @Override
                public int read() {
                    return in.read();
                }

                @Override
                public int read(byte[] b, int off, int len) {
                    return in.read(b, off, len);
                }

                @Override
                public boolean isFinished() {
                    return in.available() == 0;
                }

                @Override
                public boolean isReady() {
                    return true;
                }

                @Override
                public void setReadListener(ReadListener listener) {
                    throw new UnsupportedOperationException("synchronous reads only");
                }

            };
        }

        @Override
        public java.io.BufferedReader getReader() {
            return new java.io.BufferedReader(new java.io.InputStreamReader(getInputStream(), StandardCharsets.UTF_8));
        }

    }

}
