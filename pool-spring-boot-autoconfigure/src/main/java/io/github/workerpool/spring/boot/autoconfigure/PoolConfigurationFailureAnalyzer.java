package io.github.workerpool.spring.boot.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Reports a {@link PoolConfigurationException} at startup: the property, its value, and the fix.
 */
class PoolConfigurationFailureAnalyzer extends AbstractFailureAnalyzer<PoolConfigurationException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, PoolConfigurationException cause) {
        return new FailureAnalysis(cause.getMessage(), cause.getAction(), cause);
    }

}
