package io.github.workerpool.spring.boot.autoconfigure.web;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * A web application (copied from pool-spring-boot-autoconfigure's WebServerPoolTestApplication, whose
 * test classes are not shared) whose {@code /slow} requests hold their thread until the test opens the
 * gate (10 s at most), and answer with the name of the thread that served them.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
class JettyWebServerPoolTestApplication {

    @Bean
    Gate gate() {
        return new Gate();
    }

    /** Holds the slow requests. */
    static final class Gate {

        final AtomicInteger entered = new AtomicInteger();

        final CountDownLatch open = new CountDownLatch(1);

    }

    /** A member class, so registered with its configuration. */
    @RestController
    static final class SlowController {

        private final Gate gate;

        SlowController(Gate gate) {
            this.gate = gate;
        }

        @GetMapping("/slow")
        String slow() throws InterruptedException {
            this.gate.entered.incrementAndGet();
            this.gate.open.await(10, TimeUnit.SECONDS);
            return Thread.currentThread().getName();
        }

        /** A request that holds its thread for {@code ms} milliseconds, as one waiting on I/O would. */
        @GetMapping("/work")
        String work(@RequestParam(defaultValue = "50") long ms) throws InterruptedException {
            Thread.sleep(ms);
            return "done";
        }

        @GetMapping("/fast")
        String fast() {
            return Thread.currentThread().getName();
        }

    }

}
