package io.github.workerpool.spring.boot.autoconfigure.web;

import org.junit.jupiter.api.Test;

import io.github.workerpool.spring.boot.autoconfigure.PoolConfigurationException;
import io.github.workerpool.spring.boot.autoconfigure.PoolsAutoConfiguration;

import org.springframework.boot.LazyInitializationBeanFactoryPostProcessor;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * pools.web-server.pool in a reactive web application fails its startup, lazy initialization or
 * not: the property would do nothing there.
 */
class ReactiveWebServerPoolAutoConfigurationTests {

    private final ReactiveWebApplicationContextRunner runner = new ReactiveWebApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(PoolsAutoConfiguration.class, ReactiveWebServerPoolAutoConfiguration.class))
        .withPropertyValues("pools.instances.http.capacity=4", "pools.web-server.pool=http");

    @Test
    void aReactiveApplicationWithTheProperty_failsToStart() {
        this.runner.run((context) -> assertThat(context).hasFailed()
            .getFailure()
            .rootCause()
            .isInstanceOf(PoolConfigurationException.class)
            .hasMessageContaining("this is a reactive web application"));
    }

    @Test
    void withLazyInitialization_too() {
        // Review helper-75: the refusal was a bean nothing asks for, which lazy initialization never made.
        this.runner.withInitializer((context) -> context.addBeanFactoryPostProcessor(new LazyInitializationBeanFactoryPostProcessor()))
            .run((context) -> assertThat(context).hasFailed()
                .getFailure()
                .rootCause()
                .isInstanceOf(PoolConfigurationException.class));
    }

    @Test
    void withoutTheProperty_startsAsUsual() {
        new ReactiveWebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(PoolsAutoConfiguration.class, ReactiveWebServerPoolAutoConfiguration.class))
            .withPropertyValues("pools.instances.http.capacity=4")
            .run((context) -> assertThat(context).hasNotFailed());
    }

}
