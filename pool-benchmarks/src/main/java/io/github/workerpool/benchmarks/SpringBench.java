package io.github.workerpool.benchmarks;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.task.ThreadPoolTaskExecutorCustomizer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.task.TaskDecorator;
import org.springframework.scheduling.annotation.Async;
import org.springframework.scheduling.annotation.EnableAsync;

/**
 * The Spring Boot application of the Spring-layer benchmarks (config {@code spring-bench.yml}):
 * the starter's pool {@code bench}, Boot's {@code applicationTaskExecutor}, a {@link TaskDecorator}
 * bean that both apply (it carries a caller's thread-local into the task, as MDC or security
 * context propagation does), and {@code @Async} methods on each.
 *
 * <p>Instrumented the same way: the starter binds its pool's gauges and counters and records the
 * {@code executor} (run time) and {@code executor.idle} (submit to start) timers per task; Boot
 * binds {@code ExecutorServiceMetrics}' gauges and counters to {@code applicationTaskExecutor}, and
 * a {@link ThreadPoolTaskExecutorCustomizer} here adds the same two timers, recorded per task
 * exactly as Micrometer's {@code TimedExecutorService} records them (a wrapper taking the submit
 * time, then the start and end times).
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@EnableAsync
public class SpringBench {

    /** A caller's context the decorator carries into the task (what MDC propagation does). */
    static final ThreadLocal<String> CONTEXT = new ThreadLocal<>();

    /** Starts the application with the given extra properties ({@code name=value}). */
    static ConfigurableApplicationContext start(String... properties) {
        List<String> args = new ArrayList<>();
        args.add("--spring.config.name=spring-bench");
        for (String p : properties) {
            args.add("--" + p);
        }
        return new SpringApplicationBuilder(SpringBench.class).web(WebApplicationType.NONE)
                .run(args.toArray(String[]::new));
    }

    @Bean
    Sink sink() {
        return new Sink();
    }

    @Bean
    TaskDecorator contextPropagation() {
        return (task) -> {
            String captured = CONTEXT.get();
            return () -> {
                String outer = CONTEXT.get();
                CONTEXT.set(captured);
                try {
                    task.run();
                } finally {
                    CONTEXT.set(outer);
                }
            };
        };
    }

    /** The timers of Micrometer's TimedExecutorService on applicationTaskExecutor, around Boot's decorator. */
    @Bean
    ThreadPoolTaskExecutorCustomizer timedApplicationTaskExecutor(ObjectProvider<MeterRegistry> registry,
            TaskDecorator contextPropagation) {
        return (executor) -> {
            MeterRegistry r = registry.getObject();
            Tags tags = Tags.of("name", "applicationTaskExecutor");
            Timer run = Timer.builder("executor").tags(tags).register(r);
            Timer idle = Timer.builder("executor.idle").tags(tags).register(r);
            executor.setTaskDecorator((task) -> {
                Runnable decorated = contextPropagation.decorate(task);
                long submitted = System.nanoTime();
                return () -> {
                    long start = System.nanoTime();
                    idle.record(start - submitted, TimeUnit.NANOSECONDS);
                    try {
                        decorated.run();
                    } finally {
                        run.record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
                    }
                };
            });
        };
    }

    /** The {@code @Async} methods the benchmarks call. */
    public static class Sink {

        /** Runs the task on the starter's pool {@code bench}. */
        @Async("bench")
        public void onPool(Runnable task) {
            task.run();
        }

        /** Runs the task on Boot's {@code applicationTaskExecutor}. */
        @Async("applicationTaskExecutor")
        public void onApplicationTaskExecutor(Runnable task) {
            task.run();
        }
    }
}
