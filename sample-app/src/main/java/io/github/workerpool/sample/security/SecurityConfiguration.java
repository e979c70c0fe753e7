package io.github.workerpool.sample.security;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.http.HttpMethod;
import org.springframework.security.config.Customizer;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetails;
import org.springframework.security.crypto.factory.PasswordEncoderFactories;
import org.springframework.security.crypto.password.PasswordEncoder;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.util.StringUtils;

/**
 * Who may do what: reads are open, the pools endpoint's writes need the OPS role.
 *
 * <p>Open: the dashboard, the demo load and ETL endpoints, and the actuator reads
 * {@code pools}, {@code health}, {@code info}, {@code metrics}, {@code prometheus}.
 * {@code POST /actuator/pools/{name}/tune} and {@code .../purge} need HTTP basic login of a user
 * with role OPS (401 without login, 403 for a user without the role). Every other actuator
 * request needs OPS too, so exposing a new endpoint never opens it by accident.
 */
@Configuration(proxyBeanMethods = false)
class SecurityConfiguration {

    private static final Logger logger = LoggerFactory.getLogger(SecurityConfiguration.class);

    static final String OPS = "OPS";

    @Bean
    SecurityFilterChain securityFilterChain(HttpSecurity http) throws Exception {
        http.authorizeHttpRequests((requests) -> requests
                .requestMatchers(HttpMethod.GET, "/actuator/pools", "/actuator/pools/*").permitAll()
                .requestMatchers(HttpMethod.POST, "/actuator/pools/*/tune", "/actuator/pools/*/purge").hasRole(OPS)
                .requestMatchers(HttpMethod.GET, "/actuator", "/actuator/health", "/actuator/health/**",
                        "/actuator/info", "/actuator/metrics", "/actuator/metrics/*", "/actuator/prometheus")
                .permitAll()
                .requestMatchers("/actuator/**").hasRole(OPS)
                .anyRequest().permitAll());
        // A fetch() with "X-Requested-With: XMLHttpRequest" gets a bare 401 (no WWW-Authenticate),
        // so the dashboard shows its own message instead of the browser's login dialog.
        http.httpBasic(Customizer.withDefaults());
        // Stateless basic auth: no session cookie, so there is nothing for CSRF to forge.
        http.sessionManagement((session) -> session.sessionCreationPolicy(SessionCreationPolicy.STATELESS));
        http.csrf((csrf) -> csrf.disable());
        return http.build();
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
