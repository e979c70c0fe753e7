package io.github.workerpool.spring.boot.autoconfigure.web;

import java.io.IOException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.http.HttpServletResponse;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * A web application whose {@code /slow} requests hold their thread until the test opens the
 * gate (10 s at most), and answer with the name of the thread that served them.
 */
@SpringBootConfiguration
@EnableAutoConfiguration(excludeName = { "org.springframework.boot.security.autoconfigure.SecurityAutoConfiguration",
        "org.springframework.boot.security.autoconfigure.UserDetailsServiceAutoConfiguration",
        "org.springframework.boot.security.autoconfigure.web.servlet.ServletWebSecurityAutoConfiguration",
        "org.springframework.boot.security.autoconfigure.web.servlet.SecurityFilterAutoConfiguration",
        "org.springframework.boot.security.autoconfigure.actuate.web.servlet.ManagementWebSecurityAutoConfiguration" })
class WebServerPoolTestApplication {

    @Bean
    Gate gate() {
        return new Gate();
    }

    /**
     * The error page of {@code /broken}: holds the gate in the ERROR dispatch, as a slow custom
     * error page would (one that looks something up).
     */
    @Bean
    FilterRegistrationBean<Filter> slowErrorPage(Gate gate) {
        Filter filter = (request, response, chain) -> {
            if ("/broken".equals(request.getAttribute(RequestDispatcher.ERROR_REQUEST_URI))) {
                gate.entered.incrementAndGet();
                try {
                    gate.open.await(60, TimeUnit.SECONDS);
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
            }
            chain.doFilter(request, response);
        };
        FilterRegistrationBean<Filter> registration = new FilterRegistrationBean<>(filter);
        registration.setDispatcherTypes(DispatcherType.ERROR);
        return registration;
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
            this.gate.open.await(60, TimeUnit.SECONDS);
            return Thread.currentThread().getName();
        }

        /** A request that holds its thread for {@code ms} milliseconds, as one waiting on I/O would. */
        @GetMapping("/work")
        String work(@RequestParam(defaultValue = "50") long ms) throws InterruptedException {
            Thread.sleep(ms);
            return "done";
        }

        /** Fails with a 500 through the server's error page (an ERROR dispatch after this one). */
        @GetMapping("/broken")
        void broken(HttpServletResponse response) throws IOException {
            response.sendError(HttpServletResponse.SC_INTERNAL_SERVER_ERROR);
        }

        @GetMapping("/fast")
        String fast() {
            return Thread.currentThread().getName();
        }

        /** Answers 202 without reading the body, as a fire-and-forget endpoint may. */
        @org.springframework.web.bind.annotation.PostMapping("/accept")
        @org.springframework.web.bind.annotation.ResponseStatus(org.springframework.http.HttpStatus.ACCEPTED)
        void accept() {
        }

        /** Reads the whole body, as a JSON endpoint does. */
        @org.springframework.web.bind.annotation.PostMapping("/echo")
        String echo(@org.springframework.web.bind.annotation.RequestBody String body) {
            return Integer.toString(body.length());
        }

    }

}
