package io.github.workerpool.spring.boot.autoconfigure;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;

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
 * Refuses, with a 400 that names the field, a {@code tune} body whose field holds an object or
 * an array. Actuator reads a write operation's body as a map of strings, so without this the
 * client gets the JSON library's "Cannot deserialize value of type String from Object value",
 * which names no field. Only POSTs to {@code <base-path>/pools/<name>/tune} are read; the body is
 * handed on unchanged.
 */
final class PoolsEndpointBodyFilter extends OncePerRequestFilter {

    private final String prefix;

    /**
     * @param basePath the actuator's base path, such as {@code /actuator}
     */
    PoolsEndpointBodyFilter(String basePath) {
        this.prefix = (basePath.endsWith("/") ? basePath : basePath + "/") + "pools/";
    }

    @Override
    protected boolean shouldNotFilter(HttpServletRequest request) {
        String path = request.getRequestURI().substring(request.getContextPath().length());
        return !"POST".equals(request.getMethod()) || !path.startsWith(this.prefix) || !path.endsWith("/tune");
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        byte[] body = StreamUtils.copyToByteArray(request.getInputStream());
        String problem = nestedField(new String(body, StandardCharsets.UTF_8));
        if (problem != null) {
            String path = request.getRequestURI().substring(request.getContextPath().length());
            String pool = path.substring(this.prefix.length(), path.length() - "/tune".length());
            Map<String, Object> error = new LinkedHashMap<>();
            error.put("status", HttpServletResponse.SC_BAD_REQUEST);
            error.put("error", "Bad Request");
            error.put("message", "Cannot tune pool '" + pool + "': " + problem);
            error.put("path", path);
            response.setStatus(HttpServletResponse.SC_BAD_REQUEST);
            response.setContentType("application/json");
            response.setCharacterEncoding(StandardCharsets.UTF_8.name());
            response.getWriter().write(JsonWriter.standard().writeToString(error));
            return;
        }
        chain.doFilter(new CachedBody(request, body), response);
    }

    /** What is wrong with the first field that holds an object or an array; null if none does (or it is no JSON object). */
    static String nestedField(String body) {
        if (body.isBlank()) {
            return null;
        }
        Map<String, Object> fields;
        try {
            fields = JsonParserFactory.getJsonParser().parseMap(body);
        }
        catch (IllegalArgumentException ex) { // JsonParseException among them
            return null; // not a JSON object: actuator reports that itself
        }
        for (Map.Entry<String, Object> field : fields.entrySet()) {
            Object value = field.getValue();
            if (value instanceof Map<?, ?> || value instanceof Collection<?>) {
                PoolOption option = PoolOption.named(field.getKey());
                String what = (value instanceof Map<?, ?>) ? "an object" : "an array";
                return (option != null) ? option.field() + " must be " + option.expected() + ", but was " + what
                        : field.getKey() + " is no option of a pool, and holds " + what;
            }
        }
        return null;
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
