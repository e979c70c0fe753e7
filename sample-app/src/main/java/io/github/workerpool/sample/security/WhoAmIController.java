package io.github.workerpool.sample.security;

import java.security.Principal;
import java.util.LinkedHashMap;
import java.util.Map;

import jakarta.servlet.http.HttpServletRequest;

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
 */
@RestController
class WhoAmIController {

    @GetMapping("/me")
    Map<String, Object> me(Principal principal, HttpServletRequest request, CsrfToken csrf) {
        csrf.getToken(); // loads the token, which writes the cookie if it is new
        Map<String, Object> me = new LinkedHashMap<>();
        me.put("name", (principal != null) ? principal.getName() : null);
        me.put("ops", request.isUserInRole(SecurityConfiguration.OPS));
        me.put("csrfHeader", csrf.getHeaderName());
        return me;
    }
}
