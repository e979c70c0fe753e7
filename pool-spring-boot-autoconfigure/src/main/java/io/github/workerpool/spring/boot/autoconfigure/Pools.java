package io.github.workerpool.spring.boot.autoconfigure;

import java.util.Map;

import io.github.workerpool.Pool;

import org.springframework.beans.factory.ListableBeanFactory;

/**
 * Finds the worker pools of an application: every {@link Pool} bean ({@code WorkerPool},
 * {@code FunctionPool}, {@code MultiPool}), whether made from {@code pools.instances} or defined by
 * the application.
 */
final class Pools {

    private Pools() {
    }

    /** Returns the pool beans by bean name; pools made by the starter are not default candidates, but count. */
    static Map<String, Pool> in(ListableBeanFactory beanFactory) {
        return beanFactory.getBeansOfType(Pool.class, false, true);
    }

}
