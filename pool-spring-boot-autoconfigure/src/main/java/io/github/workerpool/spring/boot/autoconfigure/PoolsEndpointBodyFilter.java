package io.github.workerpool.spring.boot.autoconfigure;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.Enumeration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.server.RequestPath;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Refuses, with a 400 that names the field, a {@code tune} body with a field no option has, or
 * whose field holds an object or an array. Actuator binds a body's fields to the operation's
 * parameters by name and drops the others, so {@code {"capacty": 50}} was ignored and the rest
 * applied (a misspelt property is refused at startup); and it reads them as strings, so a nested
 * value got the JSON library's "Cannot deserialize value of type String from Object value",
 * which names no field. The query's parameters are bound too (after the body's fields): one that
 * is an option misspelt is refused as well (others, a proxy's or a token's, pass); and
 * {@code name} or {@code action} in the body or the query, which would override the path's, is
 * refused for every action. POSTs to
 * {@code <endpoint>/<name>/<action>} are read, matched as Spring routes them (decoded, without
 * {@code ;parameters}; the endpoint's path as {@code management.endpoints.web.path-mapping} maps
 * it), and only while writes are allowed (else actuator's 404 stands); a pool that does not exist
 * is a 404 as the endpoint answers it. The body is handed on unchanged; one that an earlier
 * filter read (a form parsed for a parameter) goes on as it came, for actuator to refuse.
 */
final class PoolsEndpointBodyFilter extends OncePerRequestFilter {

    private final TuneBody.Endpoint endpoint;

    private final Predicate<String> poolExists;

    private final BooleanSupplier writable;

    /**
     * @param actuatorPath the actuator's path on this server, such as {@code /actuator} ("" at the root)
     * @param endpointRoot the endpoint's path below it ({@code pools}, or its path-mapping), asked
     *        on the first request (it needs the endpoints discovered)
     * @param poolExists whether a pool of that name exists
     * @param writable whether the endpoint's writes are mapped (its access is unrestricted)
     */
    PoolsEndpointBodyFilter(String actuatorPath, Supplier<String> endpointRoot, Predicate<String> poolExists,
            BooleanSupplier writable) {
        this.endpoint = new TuneBody.Endpoint(actuatorPath, endpointRoot);
        this.poolExists = poolExists;
        this.writable = writable;
    }

    /** The actuator's path below the DispatcherServlet's: "/x/" and "x" as "/x", "/" as "". */
    static String actuatorPath(String servletPath, String basePath) {
        return TuneBody.normalized(servletPath) + TuneBody.normalized(basePath);
    }

    /** The request's decoded path within the application, as the servlet container mapped it. */
    private static String path(HttpServletRequest request) {
        return request.getServletPath() + ((request.getPathInfo() != null) ? request.getPathInfo() : "");
    }

    /** The pool and action the request's path names, or null (TuneBody.Endpoint.target). */
    private TuneBody.Target target(HttpServletRequest request) {
        return this.endpoint.target(
                RequestPath.parse(request.getRequestURI(), request.getContextPath()).pathWithinApplication());
    }

    @Override
    protected boolean shouldNotFilter(HttpServletRequest request) {
        return !"POST".equals(request.getMethod()) || target(request) == null || !this.writable.getAsBoolean();
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        byte[] body = request.getInputStream().readNBytes(TuneBody.MAX_BODY + 1);
        String path = path(request);
        TuneBody.Refusal refusal = (body.length > TuneBody.MAX_BODY) ? TuneBody.tooLarge(path)
                : TuneBody.refusal(path, target(request), body, queryNames(request.getQueryString()), this.poolExists);
        if (refusal != null) {
            response.setStatus(refusal.status());
            response.setContentType("application/json");
            response.setCharacterEncoding(StandardCharsets.UTF_8.name());
            response.getWriter().write(refusal.json());
            return;
        }
        // Only a request sent without a body is handed on as "{}" JSON. One whose body a filter
        // before this one read (a form that HiddenHttpMethodFilter or the CSRF filter parsed for a
        // parameter) goes on as it came: its fields are in the parameter map, which actuator binds,
        // and as JSON they went through unchecked; as a form, actuator refuses it (415). A form
        // of Content-Length 0 (curl -d '', a field-less HTML form) has no fields to parse: its
        // parameters are the query's, which are checked above; it goes on as one sent without.
        boolean sentWithout = body.length == 0 && !declaresBody(request)
                && (!isForm(request.getContentType()) || request.getContentLengthLong() == 0);
        chain.doFilter(sentWithout ? new CachedBody(request, TuneBody.EMPTY_OBJECT, true) : new CachedBody(request, body, false),
                response);
    }

    private static boolean declaresBody(HttpServletRequest request) {
        return request.getContentLengthLong() > 0 || request.getHeader(HttpHeaders.TRANSFER_ENCODING) != null;
    }

    /** A form, whose fields the container parses into parameters (HTTP/2 may send it without a length). */
    private static boolean isForm(String contentType) {
        if (contentType == null) {
            return false;
        }
        String type = contentType.toLowerCase(java.util.Locale.ROOT);
        return type.startsWith(MediaType.APPLICATION_FORM_URLENCODED_VALUE) || type.startsWith("multipart/");
    }

    /**
     * The decoded names of a query's parameters, read from the query string (the request's
     * parameter map would read a form body too).
     */
    static Set<String> queryNames(String query) {
        Set<String> names = new LinkedHashSet<>();
        if (query == null) {
            return names;
        }
        for (String pair : query.split("&")) {
            String name = pair.split("=", 2)[0];
            if (!name.isEmpty()) {
                try {
                    names.add(URLDecoder.decode(name, StandardCharsets.UTF_8));
                }
                catch (IllegalArgumentException ex) { // a malformed escape: as sent
                    names.add(name);
                }
            }
        }
        return names;
    }

    /** The request with its body read once and served again. */
    private static final class CachedBody extends HttpServletRequestWrapper {

        private final byte[] body;

        /** Whether the body is the JSON object handed on for a request sent without one (TuneBody.EMPTY_OBJECT). */
        private final boolean json;

        CachedBody(HttpServletRequest request, byte[] body, boolean json) {
            super(request);
            this.body = body;
            this.json = json;
        }

        @Override
        public String getContentType() {
            return this.json ? MediaType.APPLICATION_JSON_VALUE : super.getContentType();
        }

        @Override
        public int getContentLength() {
            return this.json ? this.body.length : super.getContentLength();
        }

        @Override
        public long getContentLengthLong() {
            return this.json ? this.body.length : super.getContentLengthLong();
        }

        @Override
        public String getHeader(String name) {
            if (this.json && HttpHeaders.CONTENT_TYPE.equalsIgnoreCase(name)) {
                return MediaType.APPLICATION_JSON_VALUE;
            }
            if (this.json && HttpHeaders.CONTENT_LENGTH.equalsIgnoreCase(name)) {
                return Integer.toString(this.body.length);
            }
            return super.getHeader(name);
        }

        @Override
        public Enumeration<String> getHeaders(String name) {
            String value = this.json && (HttpHeaders.CONTENT_TYPE.equalsIgnoreCase(name)
                    || HttpHeaders.CONTENT_LENGTH.equalsIgnoreCase(name)) ? getHeader(name) : null;
            return (value != null) ? Collections.enumeration(List.of(value)) : super.getHeaders(name);
        }

        @Override
        public Enumeration<String> getHeaderNames() {
            if (!this.json) {
                return super.getHeaderNames();
            }
            Set<String> names = new LinkedHashSet<>();
            for (String name : Collections.list(super.getHeaderNames())) {
                if (!HttpHeaders.CONTENT_TYPE.equalsIgnoreCase(name) && !HttpHeaders.CONTENT_LENGTH.equalsIgnoreCase(name)) {
                    names.add(name);
                }
            }
            names.add(HttpHeaders.CONTENT_TYPE);
            names.add(HttpHeaders.CONTENT_LENGTH);
            return Collections.enumeration(names);
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
