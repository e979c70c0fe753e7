package io.github.workerpool.sample;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The sample app on a random port of 127.0.0.1 with a fresh H2 file database in a temporary
 * directory, small data and short simulated latencies. Test classes that extend this share one
 * application context.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "server.address=127.0.0.1",
        "sample.security.ops.password=" + SampleAppTestSupport.OPS_PASSWORD,
        "sample.security.viewer.password=" + SampleAppTestSupport.VIEWER_PASSWORD })
abstract class SampleAppTestSupport {

    static final String OPS_PASSWORD = "ops-test-secret";

    static final String VIEWER_PASSWORD = "viewer-test-secret";

    /** Small data and fast "I/O" so that the module's tests take seconds. */
    static final String[] FAST = {
            "sample.etl.rows=" + SampleAppTestSupport.ROWS,
            "sample.etl.users=500",
            "sample.etl.batch-size=" + SampleAppTestSupport.BATCH,
            "sample.etl.analyse-time=1ms",
            "sample.demo.mail-time=20ms",
            "sample.demo.report-time=5ms",
            "sample.demo.export-time=5ms",
            "sample.demo.page-time=2ms",
            "sample.demo.thumbnail-time=1ms" };

    static final int ROWS = 20_000;

    static final int BATCH = 100;

    private static final Path DATA = temporaryDirectory("sample-it-");

    @LocalServerPort
    int port;

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        registry.add("sample.data-dir", DATA::toString);
        for (String property : FAST) {
            int eq = property.indexOf('=');
            registry.add(property.substring(0, eq), () -> property.substring(eq + 1));
        }
    }

    TestHttp http() {
        return new TestHttp(this.port);
    }

    /** A new temporary directory, deleted when the JVM exits. */
    static Path temporaryDirectory(String prefix) {
        try {
            Path dir = Files.createTempDirectory(prefix);
            Runtime.getRuntime().addShutdownHook(new Thread(() -> delete(dir)));
            return dir;
        }
        catch (IOException ex) {
            throw new IllegalStateException(ex);
        }
    }

    private static void delete(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach((p) -> p.toFile().delete());
        }
        catch (IOException ex) {
            // best effort: it is a temporary directory
        }
    }
}
