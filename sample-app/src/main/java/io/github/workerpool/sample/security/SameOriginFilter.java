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
 * origin: one whose {@code Origin} is not the host and port the request was sent to, or that the
 * browser marks as not same-origin ({@code Sec-Fetch-Site}).
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
        if (origin != null && !sameOrigin(origin, request.getHeader("Host"))) {
            return "it comes from a page of " + origin + ", not of " + request.getHeader("Host");
        }
        return null;
    }

    /**
     * Whether the origin's host and port are the {@code Host} the browser sent the request to:
     * the page's own, whatever a proxy in between does to the scheme. An origin without a host
     * ({@code null}, from a sandboxed frame or a file) is none.
     */
    static boolean sameOrigin(String origin, String hostHeader) {
        if (hostHeader == null || hostHeader.isEmpty()) {
            return false;
        }
        URI uri;
        try {
            uri = URI.create(origin.trim());
        }
        catch (IllegalArgumentException ex) {
            return false;
        }
        if (uri.getHost() == null || uri.getScheme() == null) {
            return false;
        }
        int defaultPort = uri.getScheme().equalsIgnoreCase("https") ? 443 : 80;
        int originPort = (uri.getPort() != -1) ? uri.getPort() : defaultPort;
        String host = hostHeader.trim().toLowerCase(Locale.ROOT);
        String hostName = host;
        int hostPort = defaultPort;
        int colon = host.lastIndexOf(':');
        if (colon > host.lastIndexOf(']')) { // a port, not a colon of an IPv6 address
            hostName = host.substring(0, colon);
            try {
                hostPort = Integer.parseInt(host.substring(colon + 1));
            }
            catch (NumberFormatException ex) {
                return false;
            }
        }
        return uri.getHost().toLowerCase(Locale.ROOT).equals(hostName) && originPort == hostPort;
    }

}
