package io.github.workerpool.spring.boot.autoconfigure;

import java.util.Map;

import io.github.workerpool.WorkerPool;

import org.springframework.beans.factory.ListableBeanFactory;

/**
 * Finds the worker pools of an application: every {@link WorkerPool} bean, whether made from
 * {@code pools.instances} or defined by the application.
 */
final class Pools {

    private Pools() {
    }

    /** Returns the pool beans by bean name; pools made by the starter are not default candidates, but count. */
    static Map<String, WorkerPool> in(ListableBeanFactory beanFactory) {
        return beanFactory.getBeansOfType(WorkerPool.class, false, true);
    }

}
