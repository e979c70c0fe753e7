package io.github.workerpool.spring.boot.autoconfigure.web;

import java.util.Set;

import io.github.workerpool.WorkerPool;
import io.github.workerpool.spring.boot.autoconfigure.PoolConfigurationException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.boot.tomcat.servlet.TomcatServletWebServerFactory;
import org.springframework.boot.web.server.servlet.ConfigurableServletWebServerFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.mockito.Mockito.mock;

/**
 * The check that the servlet web server being made is the one (Tomcat or Jetty) the pool was
 * checked for; pool-web-jetty-tests has Jetty's cases.
 */
class WebServerKindCheckTests {

    private final WorkerPool http = WorkerPool.builder()
        .name("http")
        .capacity(4)
        .queueCapacity(Integer.MAX_VALUE)
        .build();

    @AfterEach
    void close() {
        this.http.close();
    }

    @Test
    void tomcatPasses() {
        assertThatNoException().isThrownBy(() -> check().customize(new TomcatServletWebServerFactory()));
    }

    @Test
    void anotherServletWebServerFailsStartupWithPropertyValueAndFix() {
        ConfigurableServletWebServerFactory other = mock(ConfigurableServletWebServerFactory.class);
        assertThatException().isThrownBy(() -> check().customize(other))
            .isInstanceOf(PoolConfigurationException.class)
            .withMessageStartingWith("Invalid value 'http' for property 'pools.web-server.pool': the request threads "
                    + "can be put on a pool when the web server is Tomcat or Jetty")
            .satisfies((ex) -> assertThat(((PoolConfigurationException) ex).getAction())
                .isEqualTo("Use Tomcat (spring-boot-starter-tomcat) or Jetty (spring-boot-starter-jetty), or remove "
                        + "pools.web-server.pool."));
    }

    private WebServerKindCheck check() {
        WebServerKind server = WebServerKind.TOMCAT;
        DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();
        beanFactory.registerSingleton("http", this.http);
        WebServerPoolProperties properties = new WebServerPoolProperties();
        properties.setPool("http");
        return new WebServerKindCheck(WebServerPool.resolve(properties, beanFactory, Set.of("http"), server,
                server.defaultMaxConnections(), null));
    }

}
