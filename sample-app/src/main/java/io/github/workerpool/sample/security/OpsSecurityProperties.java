package io.github.workerpool.sample.security;

import java.util.ArrayList;
import java.util.List;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Users of the sample's login (the browser's form, curl's HTTP basic), bound from {@code sample.security}.
 *
 * <p>The ops user may call the write operations of {@code /actuator/pools} (tune, purge). Its
 * password comes from {@code sample.security.ops.password} (environment variable
 * {@code SAMPLE_SECURITY_OPS_PASSWORD}); when it is empty a random one is generated and logged
 * once at startup, as Spring Boot does for its default user. The optional viewer user has no ops
 * role: it exists only when {@code sample.security.viewer.password} is set, to show the 403.
 */
@ConfigurationProperties("sample.security")
public class OpsSecurityProperties {

    /** User with the OPS role, allowed to tune and purge pools. */
    private final User ops = new User("ops");

    /** User without the OPS role; defined only when its password is set. */
    private final User viewer = new User("viewer");

    /**
     * Host names the service answers to (the Host header), besides server.address: a request for
     * another is refused with 400. A page whose own name an attacker points at 127.0.0.1 (DNS
     * rebinding) is same-origin with its requests, so CSRF checks alone do not stop it.
     */
    private List<String> allowedHosts = new ArrayList<>(List.of("localhost", "127.0.0.1", "[::1]"));

    /** Returns the host names the service answers to, besides server.address. */
    public List<String> getAllowedHosts() {
        return this.allowedHosts;
    }

    /** Sets the host names the service answers to, besides server.address. */
    public void setAllowedHosts(List<String> allowedHosts) {
        this.allowedHosts = allowedHosts;
    }

    /** Returns the ops user's settings. */
    public User getOps() {
        return this.ops;
    }

    /** Returns the viewer user's settings. */
    public User getViewer() {
        return this.viewer;
    }

    /** One user's name and password. */
    public static class User {

        /** Login name. */
        private String name;

        /** Password; empty means generate one (ops) or no such user (viewer). */
        private String password;

        User(String name) {
            this.name = name;
        }

        /** Returns the login name. */
        public String getName() {
            return this.name;
        }

        /** Sets the login name. */
        public void setName(String name) {
            this.name = name;
        }

        /** Returns the password, or null or empty if none is set. */
        public String getPassword() {
            return this.password;
        }

        /** Sets the password. */
        public void setPassword(String password) {
            this.password = password;
        }
    }
}
