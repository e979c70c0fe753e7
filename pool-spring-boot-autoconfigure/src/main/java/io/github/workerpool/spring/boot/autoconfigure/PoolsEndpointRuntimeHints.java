package io.github.workerpool.spring.boot.autoconfigure;

import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;

/**
 * Reflection hints for the JSON answers of the {@link PoolsEndpoint}, for a native image: the
 * write operations return {@code Object}, so the answer types cannot be found from the operations'
 * signatures.
 */
class PoolsEndpointRuntimeHints implements RuntimeHintsRegistrar {

    private final BindingReflectionHintsRegistrar bindingRegistrar = new BindingReflectionHintsRegistrar();

    @Override
    public void registerHints(RuntimeHints hints, ClassLoader classLoader) {
        this.bindingRegistrar.registerReflectionHints(hints.reflection(), PoolsEndpoint.PoolsDescriptor.class,
                PoolsEndpoint.PoolDescriptor.class, PoolsEndpoint.PurgeDescriptor.class);
    }

}
