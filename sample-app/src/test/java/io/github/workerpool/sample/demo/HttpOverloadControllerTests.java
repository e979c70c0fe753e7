package io.github.workerpool.sample.demo;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.mock.env.MockEnvironment;
import org.springframework.test.util.ReflectionTestUtils;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/** The overload button's burst, without a web server: to a port nobody listens on. */
class HttpOverloadControllerTests {

    @Test
    void aBurstThatCouldNotBeSent_doesNotBlockTheNextOne() throws Exception {
        // Found by a review: the burst counted as running before its requests were built, so one
        // that failed there (a 400) answered every later one with 409, for good.
        MockEnvironment environment = new MockEnvironment().withProperty("server.address", "not a host");
        HttpOverloadController controller = controller(environment);
        assertThatIllegalArgumentException().isThrownBy(() -> controller.overload(1, 0));
        environment.setProperty("server.address", "127.0.0.1");
        assertThat(controller.overload(1, 0).getStatusCode()).isEqualTo(HttpStatus.ACCEPTED);
        awaitDone(controller);
    }

    @Test
    void anIpv6ServerAddress_isWrittenInBrackets() throws Exception {
        // Found by a review: http://::1:PORT/ is no URI a request can be made of.
        HttpOverloadController controller = controller(new MockEnvironment().withProperty("server.address", "::1"));
        assertThat(controller.overload(1, 0).getStatusCode()).isEqualTo(HttpStatus.ACCEPTED);
        awaitDone(controller);
        assertThat(controller.overload(1, 0).getStatusCode()).as("the next burst, once that one ended")
            .isEqualTo(HttpStatus.ACCEPTED);
        awaitDone(controller);
    }

    private static HttpOverloadController controller(MockEnvironment environment) throws Exception {
        HttpOverloadController controller = new HttpOverloadController(environment);
        int closed;
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            closed = socket.getLocalPort(); // nobody listens there once closed: each request fails fast
        }
        ReflectionTestUtils.setField(controller, "port", closed);
        return controller;
    }

    private static void awaitDone(HttpOverloadController controller) {
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            ResponseEntity<Map<String, Object>> last = controller.lastOverload();
            return last.getBody() != null && Boolean.TRUE.equals(last.getBody().get("done"));
        });
    }

}
