package io.github.workerpool.sample;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.context.properties.ConfigurationPropertiesScan;
import org.springframework.context.annotation.Bean;
import org.springframework.scheduling.annotation.EnableAsync;
import org.springframework.web.servlet.config.annotation.ViewControllerRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * The workerpool sample service: pools from application.yml used through {@code @Async},
 * {@code TaskExecutor}, {@code TaskGroup} and {@code FunctionPool}, a resumable ETL job built on
 * {@code Pipeline}, and a live dashboard at {@code /}.
 */
@SpringBootApplication
@EnableAsync
@ConfigurationPropertiesScan
public class SampleApplication {

    /**
     * Starts the sample.
     * @param args command-line arguments, e.g. {@code --server.port=9090}
     */
    public static void main(String[] args) {
        SpringApplication.run(SampleApplication.class, args);
    }

    @Bean
    WebMvcConfigurer dashboardPath() {
        return new WebMvcConfigurer() {
            @Override
            public void addViewControllers(ViewControllerRegistry registry) {
                registry.addViewController("/dashboard").setViewName("forward:/index.html");
            }
        };
    }
}
