package io.github.workerpool.sample.security;

import java.security.Principal;
import java.util.LinkedHashMap;
import java.util.Map;

import jakarta.servlet.http.HttpServletRequest;

import org.springframework.boot.actuate.autoconfigure.endpoint.web.WebEndpointProperties;
import org.springframework.security.web.csrf.CsrfToken;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /me}: who the browser is logged in as, for the dashboard's header, and whether that
 * user may tune and purge.
 *
 * <p>It also makes sure the browser holds a CSRF token: Spring Security creates the token (and
 * its {@code XSRF-TOKEN} cookie) only when something asks for it, and a static page never does.
 * A login changes the token, so the dashboard asks again after each page load.
 *
 * <p>And where the actuator is, relative to the application's root ({@code "actuator/"} by
 * default, {@code "manage/"} with {@code management.endpoints.web.base-path=/manage}): the page
 * uses relative addresses throughout, so it works under a {@code server.servlet.context-path} too.
 */
@RestController
class WhoAmIController {

    private final String actuator;

    WhoAmIController(WebEndpointProperties endpoints) {
        String base = endpoints.getBasePath(); // "" when the endpoints sit at the root
        this.actuator = base.isEmpty() ? "" : base.substring(1) + "/";
    }

    @GetMapping("/me")
    Map<String, Object> me(Principal principal, HttpServletRequest request, CsrfToken csrf) {
        csrf.getToken(); // loads the token, which writes the cookie if it is new
        Map<String, Object> me = new LinkedHashMap<>();
        me.put("name", (principal != null) ? principal.getName() : null);
        me.put("ops", request.isUserInRole(SecurityConfiguration.OPS));
        me.put("csrfHeader", csrf.getHeaderName());
        me.put("actuator", this.actuator);
        return me;
    }
}
