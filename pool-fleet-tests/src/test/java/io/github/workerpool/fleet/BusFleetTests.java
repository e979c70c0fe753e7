package io.github.workerpool.fleet;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.workerpool.Pool;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupListing;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.WebApplicationType;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Replicas take their pools from a Config Server and share a Spring Cloud Bus over a real Kafka
 * (spring-kafka-test's {@link EmbeddedKafkaKraftBroker}, KRaft, on localhost, a random port):
 * after the file changes, {@code POST /actuator/busrefresh} on one replica retunes every replica.
 */
class BusFleetTests {

    /*
     * How the bus reaches every replica: busrefresh publishes a RefreshRemoteApplicationEvent on
     * the Kafka topic springCloudBus; each replica reads the topic in a consumer group of its own
     * (an anonymous group of the Kafka binder), so every replica gets every event, refreshes its
     * environment from the Config Server, and the pools follow the EnvironmentChangeEvent. A
     * group that joins starts at the end of the topic: a replica only hears events sent after
     * its consumer has a position. The test waits for that (each group has committed its
     * starting offset, which spring-kafka does on assignment) before it calls busrefresh.
     *
     * A replica drops an event whose origin is its own bus id. The default id is
     * <name>:<index or port>:<random>, and the random part is cached once per JVM, so replicas
     * in one JVM with server.port=0 share it: each test replica gets an id of its own.
     */

    private static final String BUS = "springCloudBus";

    @TempDir
    static Path repository;

    private static EmbeddedKafkaKraftBroker kafka;

    private static ConfigurableApplicationContext server;

    private final Replicas replicas = new Replicas();

    @BeforeAll
    static void startKafkaAndTheConfigServer() {
        kafka = new EmbeddedKafkaKraftBroker(1, 1);
        kafka.afterPropertiesSet();
        server = ConfigServer.start(repository, "--spring.cloud.bus.enabled=false");
    }

    @AfterAll
    static void stopKafkaAndTheConfigServer() {
        if (server != null) {
            server.close();
        }
        if (kafka != null) {
            kafka.destroy();
        }
        // Kafka's, the binders' and Tomcat's threads, and the pools' workers, are gone.
        Threads.awaitNoneNamed("kafka", "container-", "raft", "http-nio-", "mail-");
    }

    @BeforeEach
    void storeThePools() throws IOException {
        ConfigServer.store(repository, "fleet", "pools.instances.mail.capacity=2",
                "pools.instances.mail.queue-capacity=10");
    }

    @AfterEach
    void stopTheReplicas() throws Exception {
        this.replicas.close();
    }

    @Test
    void busRefreshOnOneReplicaRetunesEveryReplica() throws Exception {
        ConfigurableApplicationContext one = startReplica("fleet:1");
        ConfigurableApplicationContext two = startReplica("fleet:2");
        Pool first = Replicas.pool(one, "mail");
        Pool second = Replicas.pool(two, "mail");
        assertThat(first.config().capacity()).isEqualTo(2);
        awaitBusConsumers(2);

        ConfigServer.store(repository, "fleet", "pools.instances.mail.capacity=5",
                "pools.instances.mail.queue-capacity=10", "pools.instances.mail.queue-timeout=1s");
        long posted = System.nanoTime();
        CompletableFuture<HttpResponse<String>> sent = Http.postAsync(one, "/actuator/busrefresh");
        List<Duration> took = Retuning.await(posted, Retuning.PATIENCE, List.of(first, second),
                (config) -> config.capacity() == 5 && Duration.ofSeconds(1).equals(config.queueTimeout()));
        Retuning.report("bus: replicas retuned after POST /actuator/busrefresh on the first", took);
        assertThat(sent.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(204);
        assertThat(Replicas.pool(one, "mail")).isSameAs(first);
        assertThat(Replicas.pool(two, "mail")).isSameAs(second);
    }

    private ConfigurableApplicationContext startReplica(String busId) {
        return this.replicas.start(WebApplicationType.SERVLET, "--server.address=127.0.0.1", "--server.port=0",
                "--spring.application.name=fleet", "--spring.cloud.config.enabled=true",
                "--spring.config.import=configserver:" + Http.address(server),
                "--spring.cloud.stream.kafka.binder.brokers=" + kafka.getBrokersAsString(), "--spring.cloud.bus.id=" + busId,
                "--management.endpoints.web.exposure.include=busrefresh,pools");
    }

    /** Waits until that many consumer groups have a position on the bus topic. */
    private static void awaitBusConsumers(int count) {
        Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
            .until(() -> kafka.doWithAdminFunction((admin) -> groupsOnTheBus(admin)) >= count);
    }

    private static long groupsOnTheBus(Admin admin) {
        try {
            long groups = 0;
            for (ConsumerGroupListing group : admin.listConsumerGroups().all().get(5, TimeUnit.SECONDS)) {
                Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(group.groupId())
                    .partitionsToOffsetAndMetadata()
                    .get(5, TimeUnit.SECONDS);
                if (offsets.keySet().stream().anyMatch((partition) -> partition.topic().equals(BUS))) {
                    groups++;
                }
            }
            return groups;
        }
        catch (Exception ex) {
            throw new IllegalStateException(ex);
        }
    }

}
