package io.github.workerpool.sample.etl;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The ETL job's NLP service; tests replace it with a {@code @Primary} bean. */
@Configuration(proxyBeanMethods = false)
class EtlConfiguration {

    @Bean
    NlpService nlpService(EtlProperties properties) {
        return new NlpService.Simulated(properties.getAnalyseTime());
    }
}
