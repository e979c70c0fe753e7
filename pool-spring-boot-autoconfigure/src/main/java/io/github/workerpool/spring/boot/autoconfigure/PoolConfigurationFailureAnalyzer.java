package io.github.workerpool.spring.boot.autoconfigure;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;

/**
 * Reports a {@link PoolConfigurationException} at startup: the property, its value, and the fix.
 * First of all analyzers: the exception may carry Boot's BindException as its cause, which Boot's
 * own analyzers would otherwise report first, with a generic fix, whenever their jar comes first
 * on the classpath.
 */
@Order(Ordered.HIGHEST_PRECEDENCE)
class PoolConfigurationFailureAnalyzer extends AbstractFailureAnalyzer<PoolConfigurationException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, PoolConfigurationException cause) {
        return new FailureAnalysis(cause.getMessage(), cause.getAction(), cause);
    }

}
