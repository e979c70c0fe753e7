package io.github.workerpool.fleet;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.cloud.config.server.EnableConfigServer;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A Spring Cloud Config Server with the native (file) back end, on 127.0.0.1 and a random port,
 * for the replicas to import their configuration from.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@EnableConfigServer
class ConfigServer {

    /** Starts a server on the files of that folder, with these further command-line arguments. */
    static ConfigurableApplicationContext start(Path repository, String... more) {
        List<String> args = new ArrayList<>(List.of("--server.address=127.0.0.1", "--server.port=0",
                "--spring.application.name=configserver", "--spring.profiles.active=native",
                "--spring.cloud.config.server.native.search-locations=" + repository.toUri()));
        args.addAll(List.of(more));
        return new SpringApplicationBuilder(ConfigServer.class).main(ConfigServer.class)
            .run(args.toArray(String[]::new));
    }

    /**
     * Writes {@code <application>.properties} in the folder in one move, so that the server never
     * reads half of it.
     */
    static void store(Path repository, String application, String... lines) throws IOException {
        Path next = Files.createTempFile(repository, application, ".next");
        Files.write(next, List.of(lines), StandardCharsets.UTF_8);
        Files.move(next, repository.resolve(application + ".properties"), StandardCopyOption.ATOMIC_MOVE,
                StandardCopyOption.REPLACE_EXISTING);
    }

}
