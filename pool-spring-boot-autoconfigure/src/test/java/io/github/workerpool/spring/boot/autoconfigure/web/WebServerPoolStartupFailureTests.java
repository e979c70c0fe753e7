package io.github.workerpool.spring.boot.autoconfigure.web;

import io.github.workerpool.MultiPool;
import io.github.workerpool.Pool;
import io.github.workerpool.WorkerPool;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * A real start of a web application with a bad {@code pools.web-server.*}: it fails, and the
 * report names the property, the value and the fix.
 */
@ExtendWith(OutputCaptureExtension.class)
class WebServerPoolStartupFailureTests {

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            pools.web-server.pool=web                     | pools.web-server.pool             | web  | there is no pool named 'web'; pools: [http]              | Set pools.web-server.pool to one of [http], or add pools.instances.web.capacity to create it.
            pools.instances.http.nonblocking=true         | pools.web-server.pool             | http | pool 'http' is nonblocking: it would refuse the connector's tasks | Set pools.instances.http.nonblocking to false.
            pools.instances.http.max-blocking-tasks=5     | pools.web-server.pool             | http | pool 'http' has maxBlockingTasks 5                       | Set pools.instances.http.max-blocking-tasks to 0 (no limit).
            pools.instances.http.blocking-timeout=2s      | pools.web-server.pool             | http | pool 'http' has blockingTimeout 2s                       | Remove pools.instances.http.blocking-timeout.
            pools.instances.http.capacity=2               | pools.web-server.pool             | http | pool 'http' has capacity 2, which leaves no thread for requests beyond the 2 kept for the connector's own tasks | Set pools.instances.http.capacity to at least 3, or lower pools.web-server.reserved-threads.
            pools.instances.http.adaptive.enabled=true    | pools.web-server.pool             | http | pool 'http' is sized adaptively down to 1 (pools.instances.http.adaptive.min-capacity), which leaves no thread for requests beyond the 2 kept | Set pools.instances.http.adaptive.min-capacity to at least 3, or lower pools.web-server.reserved-threads.
            pools.web-server.reserved-threads=0           | pools.web-server.reserved-threads | 0    | at least one thread must be kept for the connector       | Set pools.web-server.reserved-threads to 1 or more
            pools.instances.http.queue-capacity=100       | pools.web-server.pool             | http | pool 'http' has queue-capacity 100, fewer than the 8192 connections the server keeps open (server.tomcat.max-connections): when its queue is full, Tomcat's poller waits for a thread | Set pools.instances.http.queue-capacity to at least 8192, or to 2147483647 (unbounded, as Tomcat's own executor), or lower server.tomcat.max-connections.
            server.tomcat.max-connections=-1              | pools.web-server.pool             | http | pool 'http' has queue-capacity 8192, fewer than the unlimited connections the server keeps open | Set pools.instances.http.queue-capacity to 2147483647 (unbounded, as Tomcat's own executor), or set server.tomcat.max-connections to a limit no larger than the queue.
            pools.web-server.retry-after=-1s              | pools.web-server.retry-after      | -1s   | the Retry-After of a 503 cannot be negative             | Set pools.web-server.retry-after to 0s or more
            """)
    void badWebServerPoolFailsStartupWithPropertyValueAndFix(String setting, String property, String value,
            String reason, String fix, CapturedOutput output) {
        assertThatException().isThrownBy(() -> new SpringApplicationBuilder(WebServerPoolTestApplication.class)
            .properties("server.address=127.0.0.1", "server.port=0", "spring.jmx.enabled=false",
                    "pools.instances.http.capacity=6", "pools.instances.http.queue-capacity=8192",
                    "pools.web-server.pool=http", setting)
            .run());
        assertThat(output).contains("APPLICATION FAILED TO START")
            .contains("Invalid value '" + value + "' for property '" + property + "': " + reason)
            .contains(fix);
    }

    @Test
    void aMultiPoolBean_failsStartupWithPropertyValueAndFix(CapturedOutput output) {
        // Helper-105: a MultiPool queues a request in the sub-pool it picks, behind that one's busy
        // threads, while another has a free one: no 503 at once.
        assertThatException().isThrownBy(() -> new SpringApplicationBuilder(WebServerPoolTestApplication.class,
                MultiPoolConfiguration.class)
            .properties("server.address=127.0.0.1", "server.port=0", "spring.jmx.enabled=false",
                    "pools.instances.http.capacity=6", "pools.instances.http.queue-capacity=8192",
                    "pools.web-server.pool=multi")
            .run());
        assertThat(output).contains("APPLICATION FAILED TO START")
            .contains("Invalid value 'multi' for property 'pools.web-server.pool': pool 'multi' is a MultiPool, whose "
                    + "sub-pools queue a request behind their own busy threads while another sub-pool has a free one")
            .contains("Set pools.web-server.pool to a pool from pools.instances or a WorkerPool bean.");
    }

    @Configuration(proxyBeanMethods = false)
    static class MultiPoolConfiguration {

        @Bean(destroyMethod = "close")
        MultiPool multi() {
            return MultiPool.of(2, WorkerPool.builder().capacity(4).queueCapacity(Integer.MAX_VALUE),
                    MultiPool.LoadBalancing.ROUND_ROBIN);
        }

    }

    @Test
    void anUnboundedPool_needsNoQueue(CapturedOutput output) {
        // Found by a review: a hand-off pool of capacity -1 was refused for a queue it never uses.
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(WebServerPoolTestApplication.class)
            .properties("server.address=127.0.0.1", "server.port=0", "spring.jmx.enabled=false",
                    "pools.instances.http.capacity=-1", "pools.web-server.pool=http")
            .run()) {
            assertThat(context.getBean("http", Pool.class).config().queueCapacity()).isZero();
            // Helper-119: the log said it admits 2147483647 requests, "the others get a 503".
            assertThat(output).contains("its capacity is unbounded, so it admits every request (none gets a 503 while "
                    + "it stays unbounded)")
                .doesNotContain("2147483647 requests");
        }
    }


    @Test
    void theDefaultPoolOnTheWebServersPool_isWarnedAbout(CapturedOutput output) {
        // helper-105: plain @Async on the request threads' pool starts, but its tasks take threads
        // that requests need; the README says to keep other work off it.
        String warning = "pools.default-pool=httpPool is the web server's pool (pools.web-server.pool=httpPool): plain "
                + "@Async tasks hold its threads, which the admission filter does not count, so requests wait in its "
                + "queue instead of getting a 503. Set pools.default-pool to a pool of its own.";
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(WebServerPoolTestApplication.class)
            .properties("server.address=127.0.0.1", "server.port=0", "spring.jmx.enabled=false",
                    "pools.instances.httpPool.capacity=-1", "pools.instances.other.capacity=2",
                    "pools.web-server.pool=httpPool", "pools.default-pool=other")
            .run()) {
            assertThat(output).doesNotContain("is the web server's pool");
        }
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(WebServerPoolTestApplication.class)
            .properties("server.address=127.0.0.1", "server.port=0", "spring.jmx.enabled=false",
                    "pools.instances.httpPool.capacity=-1", "pools.web-server.pool=httpPool",
                    "pools.default-pool=httpPool")
            .run()) {
            assertThat(output).contains(warning);
        }
    }

}
