package io.github.workerpool.spring.boot.autoconfigure.e2e;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;

/**
 * A small web application with actuator for the end-to-end tests; no component scanning, so the
 * other tests' configurations stay out. Spring Security is on the test classpath for
 * {@link PoolsEndpointSecurityIntegrationTests}; it is left out here so that these tests see the
 * endpoint's own access rules.
 */
@SpringBootConfiguration
@EnableAutoConfiguration(excludeName = { "org.springframework.boot.security.autoconfigure.SecurityAutoConfiguration",
        "org.springframework.boot.security.autoconfigure.UserDetailsServiceAutoConfiguration",
        "org.springframework.boot.security.autoconfigure.web.servlet.ServletWebSecurityAutoConfiguration",
        "org.springframework.boot.security.autoconfigure.web.servlet.SecurityFilterAutoConfiguration",
        "org.springframework.boot.security.autoconfigure.actuate.web.servlet.ManagementWebSecurityAutoConfiguration" })
class PoolsTestApplication {

}
