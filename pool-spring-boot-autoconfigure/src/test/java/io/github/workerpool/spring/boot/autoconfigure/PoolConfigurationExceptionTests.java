package io.github.workerpool.spring.boot.autoconfigure;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tests for {@link PoolConfigurationException}'s message: a value as the user writes it.
 */
class PoolConfigurationExceptionTests {

    @Test
    void aDurationIsShownInItsLargestExactUnit() {
        assertThat(PoolConfigurationException.shown(Duration.ofSeconds(-2))).isEqualTo("-2s");
        assertThat(PoolConfigurationException.shown(Duration.ofMillis(1500))).isEqualTo("1500ms");
        assertThat(PoolConfigurationException.shown(Duration.ofSeconds(90))).isEqualTo("90s");
        assertThat(PoolConfigurationException.shown(Duration.ofHours(2))).isEqualTo("2h");
        assertThat(PoolConfigurationException.shown(Duration.ofNanos(-7))).isEqualTo("-7ns");
        assertThat(PoolConfigurationException.shown(Duration.ZERO)).isEqualTo("0s");
        assertThat(PoolConfigurationException.shown(Duration.ofDays(99_999_999_999L))).isEqualTo("99999999999d");
        // No unit counts it in a long: as Java writes it
        Duration longest = Duration.ofSeconds(Long.MAX_VALUE, 999_999_999);
        assertThat(PoolConfigurationException.shown(longest)).isEqualTo(longest.toString());
    }

    @Test
    void theMessageShowsTheDurationAsWrittenInTheProperties() {
        PoolConfigurationException ex = new PoolConfigurationException("pools.defaults.expiry", Duration.ofSeconds(-1),
                "must not be negative", "Set it to 1s or more.");
        assertThat(ex.getMessage())
            .isEqualTo("Invalid value '-1s' for property 'pools.defaults.expiry': must not be negative");
        assertThat(ex.getValue()).isEqualTo(Duration.ofSeconds(-1));
    }

    @Test
    void otherValuesAreShownAsTheyAre() {
        assertThat(PoolConfigurationException.shown(42)).isEqualTo("42");
        assertThat(PoolConfigurationException.shown("many")).isEqualTo("many");
    }

}
