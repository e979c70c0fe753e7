package io.github.workerpool.admin;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One replica of the sample app: its executable jar in a JVM of its own, on a random port of
 * 127.0.0.1, with a data directory of its own and small data, registering with a Spring Boot Admin
 * server through spring-boot-admin-starter-client, with its ops user's credentials as metadata so
 * that the server may call tune and purge.
 */
final class SampleReplica implements AutoCloseable {

    static final String OPS = "ops";

    static final String OPS_PASSWORD = "sba-test-ops-secret";

    private final Process process;

    private final Path log;

    private SampleReplica(Process process, Path log) {
        this.process = process;
        this.log = log;
    }

    /** The sample's jar, as the build passes it (failsafe's sample.jar property). */
    static Path jar() {
        String jar = System.getProperty("sample.jar");
        assertThat(jar).as("system property sample.jar (set by this module's pom)").isNotBlank();
        Path path = Path.of(jar);
        assertThat(path).as("the sample's jar: run ./mvnw -pl pool-spring-boot-admin -am verify").isRegularFile();
        return path;
    }

    static SampleReplica start(String name, String adminUrl, Path work) throws IOException {
        Path data = Files.createDirectories(work.resolve(name)).toAbsolutePath();
        Path log = work.resolve(name + ".log");
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        // A short-lived JVM: C1 alone starts it in about half the CPU time.
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-Xmx384m");
        command.add("-jar");
        command.add(jar().toString());
        command.add("--server.address=127.0.0.1");
        command.add("--server.port=0");
        command.add("--sample.data-dir=" + data);
        command.add("--sample.etl.rows=1000");
        command.add("--sample.etl.users=100");
        command.add("--sample.security.ops.password=" + OPS_PASSWORD);
        // One adaptive pool, for the view's adaptive row and switch.
        command.add("--pools.instances.crawler.adaptive.enabled=true");
        command.add("--pools.instances.crawler.adaptive.max-capacity=128");
        command.add("--pools.instances.crawler.adaptive.algorithm=vegas");
        command.add("--pools.instances.crawler.adaptive.drop-on=java.util.concurrent.TimeoutException");
        command.add("--spring.boot.admin.client.url=" + adminUrl);
        command.add("--spring.boot.admin.client.instance.name=workerpool-sample");
        command.add("--spring.boot.admin.client.instance.service-host-type=IP");
        command.add("--spring.boot.admin.client.instance.metadata.replica=" + name);
        command.add("--spring.boot.admin.client.instance.metadata.user.name=" + OPS);
        command.add("--spring.boot.admin.client.instance.metadata.user.password=" + OPS_PASSWORD);
        Process process = new ProcessBuilder(command).directory(data.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        SampleReplica replica = new SampleReplica(process, log);
        // Never outlive the test JVM, whatever ends it.
        Runtime.getRuntime().addShutdownHook(new Thread(process::destroyForcibly));
        return replica;
    }

    boolean isAlive() {
        return this.process.isAlive();
    }

    File log() {
        return this.log.toFile();
    }

    /** SIGTERM: the sample shuts down gracefully; killed if it has not within 30 s. */
    @Override
    public void close() throws InterruptedException {
        this.process.destroy();
        if (!this.process.waitFor(Duration.ofSeconds(30).toMillis(), TimeUnit.MILLISECONDS)) {
            this.process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }
}
