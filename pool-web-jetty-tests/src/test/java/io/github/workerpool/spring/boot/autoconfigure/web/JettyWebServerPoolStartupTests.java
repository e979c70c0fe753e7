package io.github.workerpool.spring.boot.autoconfigure.web;

import java.util.Set;

import io.github.workerpool.WorkerPool;
import io.github.workerpool.spring.boot.autoconfigure.PoolConfigurationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.jetty.servlet.JettyServletWebServerFactory;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * The startup checks on Jetty: a bad {@code pools.web-server.*} fails a real start with the
 * property, the value and the fix, in Jetty's words; the server kind check passes Jetty and fails
 * Jetty made where the pool was checked for Tomcat.
 */
@ExtendWith(OutputCaptureExtension.class)
class JettyWebServerPoolStartupTests {

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            pools.instances.http.queue-capacity=8192      | pool 'http' has queue-capacity 8192, fewer than the unlimited connections the server keeps open (server.jetty.max-connections): when its queue is full, Jetty's selector waits for a thread | Set pools.instances.http.queue-capacity to 2147483647 (unbounded, as Jetty's own executor), or set server.jetty.max-connections to a limit no larger than the queue.
            server.jetty.max-connections=200              | pool 'http' has queue-capacity 100, fewer than the 200 connections the server keeps open (server.jetty.max-connections) | Set pools.instances.http.queue-capacity to at least 200, or to 2147483647 (unbounded, as Jetty's own executor), or lower server.jetty.max-connections.
            pools.instances.http.nonblocking=true         | pool 'http' is nonblocking: it would refuse the connector's tasks when it is full, and Jetty closes the connection of a refused task | Set pools.instances.http.nonblocking to false.
            """)
    void badWebServerPoolFailsStartupWithPropertyValueAndFix(String setting, String reason, String fix,
            CapturedOutput output) {
        String queue = setting.startsWith("server.") ? "100" : "2147483647";
        assertThatException().isThrownBy(() -> new SpringApplicationBuilder(WebServerPoolTestApplication.class)
            .properties("server.address=127.0.0.1", "server.port=0", "spring.jmx.enabled=false",
                    "pools.instances.http.capacity=6", "pools.instances.http.queue-capacity=" + queue,
                    "pools.web-server.pool=http", setting)
            .run());
        assertThat(output).contains("APPLICATION FAILED TO START")
            .contains("Invalid value 'http' for property 'pools.web-server.pool': " + reason)
            .contains(fix);
    }

    @Test
    void anApplicationsCustomizerThatReplacesJettysThreadPool_failsStartupNamingTheFix(CapturedOutput output) {
        // Review helper-171: an unordered customizer runs after the starter's; its QueuedThreadPool
        // ran the requests while the admission filter counted them against the pool (503s with
        // its own threads idle).
        assertThatException().isThrownBy(() -> new SpringApplicationBuilder(WebServerPoolTestApplication.class,
                OwnThreadPool.class)
            .properties("server.address=127.0.0.1", "server.port=0", "spring.jmx.enabled=false",
                    "pools.instances.http.capacity=6", "pools.instances.http.queue-capacity=2147483647",
                    "pools.web-server.pool=http")
            .run());
        assertThat(output).contains("APPLICATION FAILED TO START")
            .contains("Jetty's thread pool was replaced by a org.eclipse.jetty.util.thread.QueuedThreadPool")
            .contains("Remove that setThreadPool call");
    }

    @org.springframework.context.annotation.Configuration(proxyBeanMethods = false)
    static class OwnThreadPool {

        @org.springframework.context.annotation.Bean
        org.springframework.boot.web.server.WebServerFactoryCustomizer<org.springframework.boot.jetty.ConfigurableJettyWebServerFactory> ownThreadPool() {
            return (factory) -> factory.setThreadPool(new org.eclipse.jetty.util.thread.QueuedThreadPool(50));
        }

    }

    @Test
    void aLiveTuneToABoundedQueue_withNoConnectionLimitAtAll_namesTheProperty() {
        // Review (session 34): with no limit at all, the connector-start check said the property
        // "does not limit connector 0" and sent the user to a JettyServerCustomizer; setting
        // server.jetty.max-connections is the fix there.
        try (var context = new SpringApplicationBuilder(WebServerPoolTestApplication.class)
            .properties("server.address=127.0.0.1", "server.port=0", "spring.jmx.enabled=false",
                    "pools.instances.http.capacity=6", "pools.instances.http.queue-capacity=2147483647",
                    "pools.web-server.pool=http")
            .run()) {
            WebServerPool pool = context.getBean(WebServerPool.class);
            String refusal = pool.apply("http", pool.pool().config().withQueueCapacity(100));
            assertThat(refusal).contains("fewer than the unlimited connections the server keeps open "
                    + "(server.jetty.max-connections)")
                .contains("or set server.jetty.max-connections to a limit no larger than the queue")
                .doesNotContain("JettyServerCustomizer");
        }
    }

    @Test
    void kindCheckPassesJetty() {
        try (WorkerPool http = pool()) {
            assertThatNoException()
                .isThrownBy(() -> check(http, WebServerKind.JETTY).customize(new JettyServletWebServerFactory()));
        }
    }

    /** Both servers on the classpath, and the application made Jetty while the pool was checked for Tomcat. */
    @Test
    void kindCheckFailsJettyWhereThePoolWasCheckedForTomcat() {
        try (WorkerPool http = pool()) {
            assertThatException()
                .isThrownBy(() -> check(http, WebServerKind.TOMCAT).customize(new JettyServletWebServerFactory()))
                .isInstanceOf(PoolConfigurationException.class)
                .withMessageContaining("the pool was checked for Tomcat, which is on the classpath, and the web server "
                        + "is Jetty")
                .satisfies((ex) -> assertThat(((PoolConfigurationException) ex).getAction())
                    .isEqualTo("Keep one web server on the classpath: exclude spring-boot-starter-tomcat to use "
                            + "Jetty, or remove pools.web-server.pool."));
        }
    }

    private static WorkerPool pool() {
        return WorkerPool.builder().name("http").capacity(4).queueCapacity(Integer.MAX_VALUE).build();
    }

    private static WebServerKindCheck check(WorkerPool http, WebServerKind server) {
        DefaultListableBeanFactory beanFactory = new DefaultListableBeanFactory();
        beanFactory.registerSingleton("http", http);
        WebServerPoolProperties properties = new WebServerPoolProperties();
        properties.setPool("http");
        return new WebServerKindCheck(
                WebServerPool.resolve(properties, beanFactory, Set.of("http"), server, server.defaultMaxConnections(),
                        null));
    }

}
