package io.github.workerpool.spring.boot.autoconfigure.e2e;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;

/**
 * A small web application with actuator for the end-to-end tests; no component scanning, so the
 * other tests' configurations stay out.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
class PoolsTestApplication {

}
