package io.github.workerpool.sample.security;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;

import jakarta.servlet.http.HttpServletResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.actuate.autoconfigure.endpoint.web.WebEndpointProperties;
import org.springframework.boot.security.autoconfigure.actuate.web.servlet.EndpointRequest;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.http.HttpMethod;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.access.AccessDeniedException;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetails;
import org.springframework.security.crypto.factory.PasswordEncoderFactories;
import org.springframework.security.crypto.password.PasswordEncoder;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.access.AccessDeniedHandler;
import org.springframework.security.web.access.AccessDeniedHandlerImpl;
import org.springframework.security.web.access.DelegatingAccessDeniedHandler;
import org.springframework.security.web.csrf.CsrfException;
import org.springframework.security.web.csrf.CsrfFilter;
import org.springframework.security.web.firewall.RequestRejectedHandler;
import org.springframework.security.web.firewall.StrictHttpFirewall;
import org.springframework.security.web.servlet.util.matcher.PathPatternRequestMatcher;
import org.springframework.security.web.util.matcher.AndRequestMatcher;
import org.springframework.security.web.util.matcher.NegatedRequestMatcher;
import org.springframework.security.web.util.matcher.OrRequestMatcher;
import org.springframework.security.web.util.matcher.RequestHeaderRequestMatcher;
import org.springframework.security.web.util.matcher.RequestMatcher;
import org.springframework.util.StringUtils;

/**
 * Who may do what, and how each kind of client logs in.
 *
 * <p>Open: the dashboard, the demo load and ETL endpoints, and the actuator reads
 * {@code pools}, {@code health}, {@code info}, {@code metrics}, {@code prometheus}.
 * {@code POST /actuator/pools/{name}/tune} and {@code .../purge} need a user with role OPS (401
 * without login, 403 for a user without the role). Every other actuator request needs OPS too, so
 * exposing a new endpoint never opens it by accident.
 *
 * <p>Two ways to log in. A browser uses the form at {@code /login}: the login lives in the HTTP
 * session, and every POST the browser sends must carry the CSRF token, which the dashboard reads
 * from the {@code XSRF-TOKEN} cookie and sends as {@code X-XSRF-TOKEN} (Spring Security's
 * {@code csrf.spa()}). curl and scripts send HTTP basic credentials with each request, keep no
 * session and need no token.
 *
 * <p>Which requests must carry the token: every unsafe one (POST, PUT, DELETE, PATCH) that comes
 * from a browser, which we know by its {@code Origin} header (browsers add it to every POST, and
 * a page cannot remove it) or a {@code Cookie} header (the only way a browser's login, the session
 * cookie, can ride on a request), unless it carries its own {@code Authorization} header. A forged
 * request is always sent by a browser, so it needs the token whether it would ride on the session
 * or on the open demo endpoints of a service only the victim's browser can reach. A page cannot
 * add an {@code Authorization} header to a cross-site request, and the browser never adds one by
 * itself here: it is never asked for basic credentials (a page that needs a login redirects it to
 * the form, the dashboard's fetch gets a bare 401), so it never remembers any. A request with its
 * own credentials is a client that holds them: curl, or Spring Boot Admin's instance proxy, which
 * sends the instance's {@code user.name}/{@code user.password} metadata as basic credentials and
 * keeps the cookies the instance set (so it sends {@code Cookie} and may pass on the browser's
 * {@code Origin}). Such a browser request must also come from one of this service's own pages
 * ({@link SameOriginFilter}): a page on another port of the same host can read the token's cookie.
 */
@Configuration(proxyBeanMethods = false)
class SecurityConfiguration {

    private static final Logger logger = LoggerFactory.getLogger(SecurityConfiguration.class);

    static final String OPS = "OPS";

    /** An unsafe request sent by a browser: it must carry the CSRF token. */
    static final RequestMatcher FROM_A_BROWSER = new AndRequestMatcher(CsrfFilter.DEFAULT_CSRF_MATCHER,
            new OrRequestMatcher(new RequestHeaderRequestMatcher("Origin"), new RequestHeaderRequestMatcher("Cookie")),
            new NegatedRequestMatcher(new RequestHeaderRequestMatcher("Authorization")));

    @Bean
    SecurityFilterChain securityFilterChain(HttpSecurity http, WebEndpointProperties endpoints) throws Exception {
        // Boot's EndpointRequest matchers, not "/actuator/**": they follow
        // management.endpoints.web.base-path, management.server.port and the servlet path, so moving
        // the actuator (base-path: /manage, say) never leaves tune, purge or env open.
        RequestMatcher get = (request) -> HttpMethod.GET.matches(request.getMethod());
        http.authorizeHttpRequests((requests) -> requests
                .requestMatchers(new AndRequestMatcher(get, new OrRequestMatcher(EndpointRequest.toLinks(),
                        EndpointRequest.to("pools", "health", "info", "metrics", "prometheus"))))
                .permitAll()
                .requestMatchers(EndpointRequest.toAnyEndpoint()).hasRole(OPS) // tune and purge among them
                .requestMatchers(underTheActuator(endpoints.getBasePath())).hasRole(OPS) // and what is not exposed
                .anyRequest().permitAll());
        // The browser's login: Spring Security's login page, the login kept in the session; back to
        // the dashboard after logging out.
        http.formLogin(Customizer.withDefaults());
        http.logout((logout) -> logout.logoutSuccessUrl("/"));
        // curl's login. A fetch() with "X-Requested-With: XMLHttpRequest" gets a bare 401 (no
        // WWW-Authenticate), so the dashboard shows its own message instead of the browser's
        // login dialog; a page the browser navigates to is redirected to /login. So the browser is
        // never asked for basic credentials and never remembers any.
        http.httpBasic(Customizer.withDefaults());
        http.csrf((csrf) -> csrf.spa().requireCsrfProtectionMatcher(FROM_A_BROWSER));
        // And only from this service's own pages: another port of the same host shares the token's cookie.
        http.addFilterBefore(new SameOriginFilter(), CsrfFilter.class);
        // A missing or stale token is a 403 like a missing role: say which one, and the fix.
        LinkedHashMap<Class<? extends AccessDeniedException>, AccessDeniedHandler> denied = new LinkedHashMap<>();
        denied.put(CsrfException.class, (request, response, ex) -> response.sendError(HttpServletResponse.SC_FORBIDDEN,
                "missing or stale CSRF token: a browser's POST must send the XSRF-TOKEN cookie's value as "
                        + "X-XSRF-TOKEN (reload the page to get a fresh one); curl needs none"));
        http.exceptionHandling((exceptions) -> exceptions
                .accessDeniedHandler(new DelegatingAccessDeniedHandler(denied, new AccessDeniedHandlerImpl())));
        return http.build();
    }

    /**
     * Every path under the actuator's base path, exposed or not (an endpoint not exposed is a 401,
     * not a 404 that tells what is there); none when the actuator is at the root.
     */
    private static RequestMatcher underTheActuator(String basePath) {
        String base = StringUtils.trimTrailingCharacter(basePath, '/');
        if (base.isEmpty()) {
            return (request) -> false;
        }
        return PathPatternRequestMatcher.withDefaults().matcher(base + "/**");
    }

    /**
     * Answers only requests for the host names the service knows (sample.security.allowed-hosts
     * and server.address): against DNS rebinding, where a page's own name is pointed at
     * 127.0.0.1 and its requests are same-origin, CSRF token and all.
     */
    @Bean
    StrictHttpFirewall httpFirewall(OpsSecurityProperties properties, Environment environment) {
        Set<String> allowed = new HashSet<>();
        properties.getAllowedHosts().forEach((host) -> allowed.add(host.toLowerCase(Locale.ROOT)));
        String address = environment.getProperty("server.address");
        if (StringUtils.hasText(address)) {
            allowed.add(address.toLowerCase(Locale.ROOT));
            allowed.add("[" + address.toLowerCase(Locale.ROOT) + "]"); // an IPv6 address as a Host header writes it
        }
        StrictHttpFirewall firewall = new StrictHttpFirewall();
        firewall.setAllowedHostnames((host) -> allowed.contains(host.toLowerCase(Locale.ROOT)));
        return firewall;
    }

    /** A request the firewall refuses: 400, saying why, and for a host name, the fix. */
    @Bean
    RequestRejectedHandler requestRejectedHandler(OpsSecurityProperties properties) {
        return (request, response, ex) -> {
            String host = request.getServerName();
            // StrictHttpFirewall's words for a host name it does not allow: "the domain ... is untrusted".
            String message = (ex.getMessage() != null && ex.getMessage().contains("untrusted"))
                            ? "this service does not answer to host '" + host + "' (sample.security.allowed-hosts: "
                                    + properties.getAllowedHosts() + ", and server.address): add it to the list (setting the "
                                    + "property replaces the defaults, so keep localhost and 127.0.0.1 in it) to reach "
                                    + "the service by that name"
                            : "request rejected: " + ex.getMessage();
            response.setStatus(HttpServletResponse.SC_BAD_REQUEST);
            response.setContentType("text/plain;charset=UTF-8");
            response.getWriter().write(message);
        };
    }

    @Bean
    InMemoryUserDetailsManager userDetailsService(OpsSecurityProperties properties) {
        PasswordEncoder encoder = PasswordEncoderFactories.createDelegatingPasswordEncoder();
        List<UserDetails> users = new ArrayList<>();
        OpsSecurityProperties.User ops = properties.getOps();
        String password = ops.getPassword();
        if (!StringUtils.hasText(password)) {
            password = UUID.randomUUID().toString();
            logger.warn(String.format("%n%nUsing generated password for ops user '%s': %s%n%n"
                    + "This generated password is for development use only. Set sample.security.ops.password "
                    + "(environment variable SAMPLE_SECURITY_OPS_PASSWORD) to choose one.%n", ops.getName(), password));
        }
        users.add(User.withUsername(ops.getName()).password(encoder.encode(password)).roles(OPS).build());
        OpsSecurityProperties.User viewer = properties.getViewer();
        if (StringUtils.hasText(viewer.getPassword())) {
            users.add(User.withUsername(viewer.getName()).password(encoder.encode(viewer.getPassword()))
                    .roles("VIEWER").build());
        }
        return new InMemoryUserDetailsManager(users);
    }
}
