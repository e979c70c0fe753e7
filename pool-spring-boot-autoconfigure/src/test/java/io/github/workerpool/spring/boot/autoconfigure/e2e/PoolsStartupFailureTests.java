package io.github.workerpool.spring.boot.autoconfigure.e2e;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatException;

/**
 * A real application start with a bad {@code pools.*} value: the failure analyzer is registered
 * and its report names the property, the value and the fix.
 */
@ExtendWith(OutputCaptureExtension.class)
class PoolsStartupFailureTests {

    @Test
    void badCapacityIsReportedByTheFailureAnalyzer(CapturedOutput output) {
        assertThatException().isThrownBy(() -> new SpringApplicationBuilder(PoolsTestApplication.class)
            .web(WebApplicationType.NONE)
            .properties("pools.instances.mail.capacity=0", "spring.jmx.enabled=false")
            .run());
        assertThat(output).contains("APPLICATION FAILED TO START")
            .contains("Invalid value '0' for property 'pools.instances.mail.capacity'")
            .contains("Update pools.instances.mail.capacity: set it to a number >= 1, or -1 for an unbounded pool.");
    }

}
