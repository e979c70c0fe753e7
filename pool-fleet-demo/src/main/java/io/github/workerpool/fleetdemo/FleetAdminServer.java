package io.github.workerpool.fleetdemo;

import de.codecentric.boot.admin.server.config.EnableAdminServer;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;

/**
 * A Spring Boot Admin server with workerpool's Pools view (pool-spring-boot-admin on its class
 * path), for fleet/run.sh: {@code java -jar pool-fleet-demo/target/pool-fleet-demo-0.1.0-SNAPSHOT.jar
 * --server.address=127.0.0.1 --server.port=9090}.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@EnableAdminServer
public class FleetAdminServer {

    public static void main(String[] args) {
        SpringApplication.run(FleetAdminServer.class, args);
    }
}
