package io.github.workerpool.fleet;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;

import io.github.workerpool.Pool;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.cloud.zookeeper.config.ConfigWatcher;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Replicas take their pools from a real ZooKeeper (Curator's {@link TestingServer} on 127.0.0.1,
 * a random port) through {@code spring.config.import=zookeeper:}; a write to a node retunes every
 * replica through spring-cloud-zookeeper-config's watcher, with no HTTP call.
 */
@ExtendWith(OutputCaptureExtension.class)
class ZookeeperFleetTests {

    /*
     * spring-cloud-zookeeper-config 5.0.1, as it is:
     *   - each property is one node under /config/<spring.application.name> (and
     *     /config/application for every application), its data the value;
     *   - its ConfigWatcher (on unless spring.cloud.zookeeper.config.watcher.enabled=false) keeps a
     *     Curator TreeCache on those nodes and publishes a RefreshEvent for every node added,
     *     changed or removed; Spring Cloud's RefreshEventListener then runs ContextRefresher,
     *     which publishes the EnvironmentChangeEvent the pools follow. One write, one refresh.
     *     The TreeCache also reports every node it finds at start as added: those reports that
     *     come after the application is ready refresh it once more, with nothing changed;
     *   - the Curator client that config data opens is registered in the context as a plain
     *     singleton, which the context does not close: the test closes it after the context.
     */

    /** The nodes of pool mail's options, for spring.application.name=fleet. */
    private static final String MAIL = "/config/fleet/pools/instances/mail/";

    private static TestingServer zookeeper;

    private static CuratorFramework client;

    private final Replicas replicas = new Replicas();

    @BeforeAll
    static void startZookeeper() throws Exception {
        System.setProperty("zookeeper.admin.enableServer", "false");
        InstanceSpec loopback = new InstanceSpec(null, -1, -1, -1, true, -1, -1, -1,
                Map.of("clientPortAddress", "127.0.0.1"), "127.0.0.1");
        zookeeper = new TestingServer(loopback, true);
        client = CuratorFrameworkFactory.newClient(zookeeper.getConnectString(), new RetryOneTime(100));
        client.start();
        client.blockUntilConnected();
    }

    @AfterAll
    static void stopZookeeper() throws Exception {
        if (client != null) {
            client.close();
        }
        if (zookeeper != null) {
            zookeeper.close();
        }
        // The clients' and the server's threads, and the pools' workers, are gone.
        Threads.awaitNoneNamed("Curator-", "SendThread", "EventThread", "SessionTracker", "SyncThread",
                "NIOServerCxn", "RequestThrottler", "ProcessThread", "mail-");
    }

    @BeforeEach
    void storeThePools() throws Exception {
        if (client.checkExists().forPath("/config") != null) {
            client.delete().deletingChildrenIfNeeded().forPath("/config");
        }
        write("capacity", "2");
        write("queue-capacity", "10");
        write("blocking-timeout", "3s");
    }

    @AfterEach
    void stopTheReplicas() throws Exception {
        // No refresh may be under way when a replica closes: each watcher stops taking node
        // events, and its thread ends once the refresh it runs, if any, is done.
        for (ConfigurableApplicationContext replica : this.replicas.contexts()) {
            replica.getBeansOfType(ConfigWatcher.class).values().forEach(ConfigWatcher::close);
        }
        Threads.awaitNoneNamed("Curator-TreeCache");
        this.replicas.close();
    }

    @Test
    void aNodeWrittenOrDeletedRetunesEveryReplica_andTheTimeIsReported() throws Exception {
        ConfigurableApplicationContext one = startReplica();
        ConfigurableApplicationContext two = startReplica();
        Pool first = Replicas.pool(one, "mail");
        Pool second = Replicas.pool(two, "mail");
        assertThat(first.config().capacity()).isEqualTo(2);
        assertThat(second.config().blockingTimeout()).isEqualTo(Duration.ofSeconds(3));

        long written = write("capacity", "8");
        List<Duration> took = Retuning.await(written, Retuning.PATIENCE, List.of(first, second),
                (config) -> config.capacity() == 8);
        Retuning.report("zookeeper: capacity 2 -> 8, replicas retuned after the write", took);

        written = write("max-blocking-tasks", "16");
        took = Retuning.await(written, Retuning.PATIENCE, List.of(first, second),
                (config) -> config.maxBlockingTasks() == 16);
        Retuning.report("zookeeper: max-blocking-tasks added, replicas retuned after the write", took);

        written = delete("max-blocking-tasks");
        took = Retuning.await(written, Retuning.PATIENCE, List.of(first, second),
                (config) -> config.maxBlockingTasks() == 0);
        Retuning.report("zookeeper: max-blocking-tasks deleted, replicas back to the default after the delete", took);

        assertThat(Replicas.pool(one, "mail")).isSameAs(first);
        assertThat(Replicas.pool(two, "mail")).isSameAs(second);
        assertThat(first.config().capacity()).isEqualTo(8);
        assertThat(first.config().queueCapacity()).isEqualTo(10);
        assertThat(second.config().blockingTimeout()).isEqualTo(Duration.ofSeconds(3));
    }

    @Test
    void anInvalidValueInZookeeperIsWarnedWithTheProperty_andThePoolKeepsItsOptions(CapturedOutput output)
            throws Exception {
        ConfigurableApplicationContext replica = startReplica();
        Pool mail = Replicas.pool(replica, "mail");

        write("capacity", "0");
        Awaitility.await().atMost(Retuning.PATIENCE).pollInterval(Duration.ofMillis(5)).untilAsserted(() ->
                assertThat(output).contains("Pool 'mail' not refreshed, it keeps its options: Invalid value '0' for "
                        + "property 'pools.instances.mail.capacity'"));
        assertThat(output).contains("(Update pools.instances.mail.capacity: set it to a number >= 1, or -1 for an "
                + "unbounded pool.)");
        assertThat(replica.isActive()).isTrue();
        assertThat(mail.config().capacity()).isEqualTo(2);
        assertThat(replica.getBean("mail", ExecutorService.class).submit(() -> "sent").get()).isEqualTo("sent");

        long written = write("capacity", "4");
        Retuning.await(written, Retuning.PATIENCE, List.of(mail), (config) -> config.capacity() == 4);
    }

    private ConfigurableApplicationContext startReplica() {
        ConfigurableApplicationContext replica = this.replicas.start(WebApplicationType.NONE,
                "--spring.application.name=fleet", "--spring.config.import=zookeeper:" + zookeeper.getConnectString());
        this.replicas.closeAfter(replica, replica.getBean(CuratorFramework.class));
        return replica;
    }

    /** Deletes the node of one option of pool mail; returns System.nanoTime() once deleted. */
    private static long delete(String option) throws Exception {
        client.delete().forPath(MAIL + option);
        return System.nanoTime();
    }

    /** Creates or sets the node of one option of pool mail; returns System.nanoTime() once written. */
    private static long write(String option, String value) throws Exception {
        byte[] data = value.getBytes(StandardCharsets.UTF_8);
        if (client.checkExists().forPath(MAIL + option) == null) {
            client.create().creatingParentsIfNeeded().forPath(MAIL + option, data);
        }
        else {
            client.setData().forPath(MAIL + option, data);
        }
        return System.nanoTime();
    }

}
