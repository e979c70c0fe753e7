package io.github.workerpool.admin;

import de.codecentric.boot.admin.server.config.EnableAdminServer;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A Spring Boot Admin server, as an application would declare one, with this module's extension on
 * its class path (target/classes): reactive (SBA's starter brings WebFlux), on a random port of
 * 127.0.0.1.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@EnableAdminServer
class AdminServer {

    static ConfigurableApplicationContext start() {
        return new SpringApplicationBuilder(AdminServer.class).web(WebApplicationType.REACTIVE).run(
                "--server.address=127.0.0.1", "--server.port=0",
                "--spring.application.name=admin",
                // Replicas come and go within seconds in the tests.
                "--spring.boot.admin.monitor.status-interval=2s",
                "--spring.boot.admin.monitor.status-lifetime=2s");
    }

    static String url(ConfigurableApplicationContext admin) {
        return "http://127.0.0.1:" + admin.getEnvironment().getProperty("local.server.port");
    }
}
