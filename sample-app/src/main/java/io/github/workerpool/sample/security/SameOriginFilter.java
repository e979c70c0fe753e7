package io.github.workerpool.sample.security;

import java.io.IOException;
import java.net.URI;
import java.util.Locale;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Refuses, before the CSRF check, an unsafe request a browser sends from a page of another
 * origin: one whose {@code Origin} is not the scheme, host and port the request was sent to, or
 * that the browser marks as not same-origin ({@code Sec-Fetch-Site}).
 *
 * <p>Why the token is not enough: cookies belong to a host, not to a port, so a page served on
 * another port of the same host (a dev server, any local application) can read the
 * {@code XSRF-TOKEN} cookie, or set it, and send the token in the {@code _csrf} parameter, which
 * needs no header and so no preflight; the session cookie rides along, the request being same-site
 * (found by a review). The browser's {@code Origin} names that page, and a page cannot change it.
 */
final class SameOriginFilter extends OncePerRequestFilter {

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        if (SecurityConfiguration.FROM_A_BROWSER.matches(request)) {
            String refusal = refusal(request);
            if (refusal != null) {
                response.sendError(HttpServletResponse.SC_FORBIDDEN, "cross-origin request refused: " + refusal
                        + "; a browser may send a POST here only from this service's own pages");
                return;
            }
        }
        chain.doFilter(request, response);
    }

    /** Why the request is not from one of this service's pages, or null if nothing says so. */
    private static String refusal(HttpServletRequest request) {
        String site = request.getHeader("Sec-Fetch-Site");
        if (site != null && !site.equals("same-origin") && !site.equals("none")) {
            return "the browser says it comes from a page of another origin (Sec-Fetch-Site: " + site + ")";
        }
        String origin = request.getHeader("Origin");
        if (origin != null
                && !sameOrigin(origin, request.getScheme(), request.getServerName(), request.getServerPort())) {
            return "it comes from a page of " + origin + ", not of " + request.getScheme() + "://"
                    + request.getServerName() + ":" + request.getServerPort();
        }
        return null;
    }

    /**
     * Whether the origin is the request's own scheme, host and port: those the request was sent
     * to (the Host header, or what a proxy forwarded, with server.forward-headers-strategy). An
     * origin without a host ({@code null}, from a sandboxed frame or a file) is none.
     */
    static boolean sameOrigin(String origin, String scheme, String host, int port) {
        URI uri;
        try {
            uri = URI.create(origin.trim());
        }
        catch (IllegalArgumentException ex) {
            return false;
        }
        if (uri.getHost() == null || uri.getScheme() == null || scheme == null || host == null) {
            return false;
        }
        int originPort = (uri.getPort() != -1) ? uri.getPort() : defaultPort(uri.getScheme());
        return uri.getScheme().equalsIgnoreCase(scheme) && bare(uri.getHost()).equals(bare(host)) && originPort == port;
    }

    private static int defaultPort(String scheme) {
        return scheme.equalsIgnoreCase("https") ? 443 : 80;
    }

    /** A host name as compared: lower case, an IPv6 address without its brackets, no trailing dot. */
    private static String bare(String host) {
        String h = host.toLowerCase(Locale.ROOT);
        if (h.startsWith("[") && h.endsWith("]")) {
            h = h.substring(1, h.length() - 1);
        }
        return h.endsWith(".") ? h.substring(0, h.length() - 1) : h;
    }

}
