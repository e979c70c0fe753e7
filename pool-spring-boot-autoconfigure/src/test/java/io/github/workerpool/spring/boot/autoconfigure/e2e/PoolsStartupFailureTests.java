package io.github.workerpool.spring.boot.autoconfigure.e2e;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

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

    /** Spring Boot's own report for these says only "Update your application's configuration". */
    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(delimiter = '|', textBlock = """
            pools.instances.mail.capacity    | abc         | expected a whole number      | set it to a number >= 1
            pools.instances.mail.expiry      | soon        | expected a duration          | set it to a positive duration
            pools.propagate-context          | maybe       | expected true or false       | set true or false
            """)
    void valueOfWrongTypeIsReportedWithPropertyValueAndFix(String property, String value, String reason, String fix,
            CapturedOutput output) {
        assertThatException().isThrownBy(() -> new SpringApplicationBuilder(PoolsTestApplication.class)
            .web(WebApplicationType.NONE)
            .properties("pools.instances.mail.capacity=2", property + "=" + value, "spring.jmx.enabled=false")
            .run());
        assertThat(output).contains("APPLICATION FAILED TO START")
            .contains("Invalid value '" + value + "' for property '" + property + "': " + reason)
            .contains("Update " + property + ": " + fix)
            .doesNotContain("Update your application's configuration");
    }

}
