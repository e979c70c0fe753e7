package io.github.workerpool.spring.boot.autoconfigure.web;

import io.github.workerpool.spring.boot.autoconfigure.PoolConfigurationException;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code pools.web-server.pool} in a reactive web application fails startup with the property,
 * the value and the fix, instead of doing nothing (here, where WebFlux is on the classpath).
 */
class ReactiveWebServerPoolAutoConfigurationTests {

    @Test
    void reactiveApplicationWithThePropertyFailsStartupWithPropertyValueAndFix() {
        new ReactiveWebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ReactiveWebServerPoolAutoConfiguration.class))
            .withPropertyValues("pools.web-server.pool=http")
            .run((context) -> assertThat(context).getFailure()
                .rootCause()
                .isInstanceOf(PoolConfigurationException.class)
                .hasMessage("Invalid value 'http' for property 'pools.web-server.pool': the request threads can be put "
                        + "on a pool in a servlet web application on Tomcat or Jetty, and this is a reactive web "
                        + "application, whose server runs requests on its event loops")
                .satisfies((ex) -> assertThat(((PoolConfigurationException) ex).getAction())
                    .isEqualTo("Remove pools.web-server.pool, or run the application on Spring MVC "
                            + "(spring-boot-starter-webmvc) with Tomcat or Jetty.")));
    }

    @Test
    void reactiveApplicationWithThePropertyFailsStartup_withLazyInitializationToo() {
        // Review helper-75: the refusal was a bean nothing asks for, which lazy initialization never made.
        new ReactiveWebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ReactiveWebServerPoolAutoConfiguration.class))
            .withInitializer((context) -> context
                .addBeanFactoryPostProcessor(new org.springframework.boot.LazyInitializationBeanFactoryPostProcessor()))
            .withPropertyValues("pools.web-server.pool=http")
            .run((context) -> assertThat(context).getFailure()
                .rootCause()
                .isInstanceOf(PoolConfigurationException.class));
    }

    @Test
    void reactiveApplicationWithoutThePropertyStarts() {
        new ReactiveWebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ReactiveWebServerPoolAutoConfiguration.class))
            .run((context) -> assertThat(context).hasNotFailed());
    }

    @Test
    void servletApplicationIsNotRefused() {
        new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ReactiveWebServerPoolAutoConfiguration.class))
            .withPropertyValues("pools.web-server.pool=http")
            .run((context) -> assertThat(context).hasNotFailed());
    }

}
