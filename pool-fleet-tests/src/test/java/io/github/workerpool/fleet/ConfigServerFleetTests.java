package io.github.workerpool.fleet;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutorService;

import io.github.workerpool.Pool;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Replicas take their pools from a real Spring Cloud Config Server (native file back end, on
 * 127.0.0.1, a random port) through {@code spring.config.import=configserver:}; after the file
 * changes, {@code POST /actuator/refresh} on a replica retunes that replica, and only that one:
 * without Spring Cloud Bus nothing tells the others.
 */
@ExtendWith(OutputCaptureExtension.class)
class ConfigServerFleetTests {

    @TempDir
    static Path repository;

    private static ConfigurableApplicationContext server;

    private final Replicas replicas = new Replicas();

    @BeforeAll
    static void startTheConfigServer() {
        server = ConfigServer.start(repository);
    }

    @AfterAll
    static void stopTheConfigServer() {
        if (server != null) {
            server.close();
        }
        Threads.awaitNoneNamed("http-nio-", "mail-");
    }

    @BeforeEach
    void storeThePools() throws IOException {
        store("pools.instances.mail.capacity=2", "pools.instances.mail.queue-capacity=10",
                "pools.instances.mail.blocking-timeout=3s");
    }

    @AfterEach
    void stopTheReplicas() throws Exception {
        this.replicas.close();
    }

    @Test
    void refreshOnOneReplicaRetunesItsPools_andNotThoseOfAReplicaNotRefreshed() throws Exception {
        ConfigurableApplicationContext one = startReplica();
        ConfigurableApplicationContext two = startReplica();
        Pool first = Replicas.pool(one, "mail");
        Pool second = Replicas.pool(two, "mail");
        assertThat(first.config().capacity()).isEqualTo(2);

        store("pools.instances.mail.capacity=6", "pools.instances.mail.queue-capacity=10",
                "pools.instances.mail.blocking-timeout=500ms");
        long posted = System.nanoTime();
        HttpResponse<String> refreshed = Http.post(one, "/actuator/refresh");
        Duration answered = Duration.ofNanos(System.nanoTime() - posted);
        assertThat(refreshed.statusCode()).isEqualTo(200);
        assertThat(refreshed.body()).contains("pools.instances.mail.capacity", "pools.instances.mail.blocking-timeout");
        // The refresh is done when the endpoint answers.
        assertThat(first.config().capacity()).isEqualTo(6);
        assertThat(first.config().blockingTimeout()).isEqualTo(Duration.ofMillis(500));
        assertThat(Replicas.pool(one, "mail")).isSameAs(first);
        Retuning.report("config server: replica refreshed, /actuator/refresh answered with the pool retuned",
                List.of(answered));
        assertThat(second.config().capacity()).isEqualTo(2);
        assertThat(second.config().blockingTimeout()).isEqualTo(Duration.ofSeconds(3));

        posted = System.nanoTime();
        assertThat(Http.post(two, "/actuator/refresh").statusCode()).isEqualTo(200);
        answered = Duration.ofNanos(System.nanoTime() - posted);
        assertThat(second.config().capacity()).isEqualTo(6);
        Retuning.report("config server: the other replica, once refreshed itself", List.of(answered));
    }

    @Test
    void anInvalidValueFromTheConfigServerIsWarnedWithTheProperty_andThePoolKeepsItsOptions(CapturedOutput output)
            throws Exception {
        ConfigurableApplicationContext replica = startReplica();
        Pool mail = Replicas.pool(replica, "mail");

        store("pools.instances.mail.capacity=0", "pools.instances.mail.queue-capacity=10",
                "pools.instances.mail.blocking-timeout=3s");
        HttpResponse<String> refreshed = Http.post(replica, "/actuator/refresh");
        assertThat(refreshed.statusCode()).isEqualTo(200);
        assertThat(refreshed.body()).contains("pools.instances.mail.capacity");
        assertThat(output).contains("Pool 'mail' not refreshed, it keeps its options: Invalid value '0' for "
                + "property 'pools.instances.mail.capacity'")
            .contains("(Update pools.instances.mail.capacity: set it to a number >= 1, or -1 for an unbounded pool.)");
        assertThat(replica.isActive()).isTrue();
        assertThat(mail.config().capacity()).isEqualTo(2);
        assertThat(replica.getBean("mail", ExecutorService.class).submit(() -> "sent").get()).isEqualTo("sent");
    }

    @Test
    void aRefreshWhileTheConfigServerIsDown_changesNoPool(@TempDir Path own) throws Exception {
        // Found by a review: the README said nothing of a refresh during an outage. The pools must
        // keep the values they had, not fall back to what the rest of the configuration gives
        // (here pools.defaults.capacity=1), as they would if the server's source were dropped.
        ConfigServer.store(own, "fleet", "pools.instances.mail.capacity=5");
        ConfigurableApplicationContext down = ConfigServer.start(own);
        ConfigurableApplicationContext replica;
        try {
            replica = this.replicas.start(WebApplicationType.SERVLET, "--server.address=127.0.0.1", "--server.port=0",
                    "--spring.application.name=fleet", "--spring.cloud.config.enabled=true",
                    "--spring.config.import=configserver:" + Http.address(down), "--pools.defaults.capacity=1",
                    "--management.endpoints.web.exposure.include=refresh,pools");
        }
        finally {
            down.close();
        }
        Pool mail = Replicas.pool(replica, "mail");
        assertThat(mail.config().capacity()).isEqualTo(5);
        HttpResponse<String> refreshed = Http.post(replica, "/actuator/refresh");
        assertThat(refreshed.statusCode()).as("the refresh fails, as README says").isEqualTo(500);
        assertThat(mail.config().capacity()).isEqualTo(5);
        assertThat(replica.isActive()).isTrue();
    }

    private ConfigurableApplicationContext startReplica() {
        return this.replicas.start(WebApplicationType.SERVLET, "--server.address=127.0.0.1", "--server.port=0",
                "--spring.application.name=fleet", "--spring.cloud.config.enabled=true",
                "--spring.config.import=configserver:" + Http.address(server),
                "--management.endpoints.web.exposure.include=refresh,pools");
    }

    /** Writes fleet.properties, the replicas' file. */
    private static void store(String... lines) throws IOException {
        ConfigServer.store(repository, "fleet", lines);
    }

}
