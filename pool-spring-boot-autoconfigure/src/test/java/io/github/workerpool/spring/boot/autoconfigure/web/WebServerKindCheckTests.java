package io.github.workerpool.spring.boot.autoconfigure.web;

import java.util.Set;

import io.github.workerpool.WorkerPool;
import io.github.workerpool.spring.boot.autoconfigure.PoolConfigurationException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.boot.jetty.ConfigurableJettyWebServerFactory;
import org.springframework.boot.tomcat.servlet.TomcatServletWebServerFactory;
import org.springframework.boot.web.server.servlet.ConfigurableServletWebServerFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.assertj.core.api.Assertions.assertThatNoException;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.withSettings;

/**
 * The check that the servlet web server being made is the one (Tomcat or Jetty) the pool was
 * checked for.
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
    void jettyPassesWhenThePoolWasCheckedForJetty() {
        assertThatNoException().isThrownBy(() -> check(WebServerKind.JETTY).customize(jetty()));
    }

    /** Both servers on the classpath, and the application made Jetty while the pool was checked for Tomcat. */
    @Test
    void anotherServerThanThePoolWasCheckedForFailsStartup() {
        assertThatException().isThrownBy(() -> check().customize(jetty()))
            .isInstanceOf(PoolConfigurationException.class)
            .withMessageContaining("the pool was checked for Tomcat, which is on the classpath, and the web server is "
                    + "Jetty")
            .satisfies((ex) -> assertThat(((PoolConfigurationException) ex).getAction())
                .isEqualTo("Keep one web server on the classpath: exclude spring-boot-starter-tomcat to use Jetty, or "
                        + "remove pools.web-server.pool."));
    }

    private static ConfigurableServletWebServerFactory jetty() {
        return mock(ConfigurableServletWebServerFactory.class,
                withSettings().extraInterfaces(ConfigurableJettyWebServerFactory.class));
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
        return check(WebServerKind.TOMCAT);
    }

    private WebServerKindCheck check(WebServerKind server) {
        DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();
        beanFactory.registerSingleton("http", this.http);
        WebServerPoolProperties properties = new WebServerPoolProperties();
        properties.setPool("http");
        return new WebServerKindCheck(WebServerPool.resolve(properties, beanFactory, Set.of("http"), server,
                server.defaultMaxConnections()));
    }

}
