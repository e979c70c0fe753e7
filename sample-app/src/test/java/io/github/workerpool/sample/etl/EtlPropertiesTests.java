package io.github.workerpool.sample.etl;

import java.util.Map;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;

import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/** The ETL settings a run cannot work with are refused at startup, naming the property and the fix. */
class EtlPropertiesTests {

    @ParameterizedTest
    @ValueSource(strings = { "batch-size", "enrich-concurrency", "analyse-concurrency", "load-concurrency", "users" })
    void zero_isRefusedWithThePropertyAndTheFix(String property) {
        // helper-117: a batch size of 0 read no rows and recorded the job done, for good;
        // helper-163: 0 users failed the data's generation with SQL's division by zero.
        Binder binder = new Binder(new MapConfigurationPropertySource(Map.of("sample.etl." + property, "0")));
        assertThatExceptionOfType(BindException.class)
            .isThrownBy(() -> binder.bind("sample.etl", EtlProperties.class))
            .havingRootCause()
            .withMessage("sample.etl." + property + " is 0; set it to 1 or more");
    }

}
