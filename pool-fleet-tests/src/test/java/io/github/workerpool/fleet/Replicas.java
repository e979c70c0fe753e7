package io.github.workerpool.fleet;

import java.util.ArrayList;
import java.util.List;

import io.github.workerpool.Pool;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/** Replicas of {@link Replica}, each its own application context in this JVM, closed together. */
final class Replicas implements AutoCloseable {

    private final List<Running> running = new ArrayList<>();

    /** Starts a replica with these command-line arguments. */
    ConfigurableApplicationContext start(WebApplicationType type, String... args) {
        ConfigurableApplicationContext context = new SpringApplicationBuilder(Replica.class).main(Replica.class)
            .web(type)
            .run(args);
        this.running.add(new Running(context, new ArrayList<>()));
        return context;
    }

    /** Closes this resource after the replica's context, which does not close it itself. */
    void closeAfter(ConfigurableApplicationContext replica, AutoCloseable resource) {
        this.running.stream().filter((each) -> each.context() == replica).findFirst().orElseThrow()
            .closeAfter().add(resource);
    }

    /** The replicas running, in the order they started. */
    List<ConfigurableApplicationContext> contexts() {
        return this.running.stream().map(Running::context).toList();
    }

    /** The replica's pool of that name. */
    static Pool pool(ConfigurableApplicationContext replica, String name) {
        return replica.getBean(name, Pool.class);
    }

    @Override
    public void close() throws Exception {
        Exception failure = null;
        for (Running each : this.running) {
            each.context().close();
            for (AutoCloseable resource : each.closeAfter()) {
                try {
                    resource.close();
                }
                catch (Exception ex) {
                    failure = (failure != null) ? failure : ex;
                }
            }
        }
        this.running.clear();
        if (failure != null) {
            throw failure;
        }
    }

    private record Running(ConfigurableApplicationContext context, List<AutoCloseable> closeAfter) {
    }

}
