package io.github.workerpool.sample.security;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link SameOriginFilter#sameOrigin}: a browser's Origin against the request's own scheme, host
 * and port.
 */
class SameOriginFilterTests {

    @ParameterizedTest(name = "{0} vs {1}://{2}:{3} -> {4}")
    @CsvSource({
            "http://127.0.0.1:8080, http, 127.0.0.1, 8080, true",
            "http://LOCALHOST:8080, http, localhost, 8080, true",
            "http://localhost:3000, http, localhost, 8080, false", // another port of the same host
            "http://localhost, http, localhost, 80, true",
            "http://localhost, http, localhost, 8080, false",
            "https://example.com, https, example.com, 443, true",
            "https://example.com, http, example.com, 80, false", // same name, another scheme and port
            "http://example.com, https, example.com, 443, false",
            "http://example.com., http, example.com, 80, true",
            "http://[::1]:8080, http, [::1], 8080, true",
            "http://[::1]:8080, http, ::1, 8080, true",
            "http://[::1], http, [::1], 8080, false",
            "null, http, localhost, 8080, false", // a sandboxed frame or a file
            "http://elsewhere.example, http, localhost, 8080, false",
            "'not a uri at all', http, localhost, 8080, false",
    })
    void anOriginIsTheRequestsOwn_onlyWithTheSameSchemeHostAndPort(String origin, String scheme, String host, int port,
            boolean same) {
        assertThat(SameOriginFilter.sameOrigin(origin, scheme, host, port)).isEqualTo(same);
    }

}
