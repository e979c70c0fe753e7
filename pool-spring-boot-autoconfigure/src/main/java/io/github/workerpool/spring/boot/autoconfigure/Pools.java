package io.github.workerpool.spring.boot.autoconfigure;

import java.util.Map;

import io.github.workerpool.Pool;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryUtils;
import org.springframework.beans.factory.ListableBeanFactory;

/**
 * Finds the worker pools of an application: every {@link Pool} bean ({@code WorkerPool},
 * {@code FunctionPool}, {@code MultiPool}), whether made from {@code pools.instances} or defined by
 * the application.
 */
final class Pools {

    private Pools() {
    }

    /**
     * Returns the pool beans by bean name; pools made by the starter are not default candidates, but count.
     * Singletons only: listing a prototype would make a pool just to show it, and never close it.
     */
    static Map<String, Pool> in(ListableBeanFactory beanFactory) {
        return beanFactory.getBeansOfType(Pool.class, false, true);
    }

    /** Whether a pool bean of that name is in this factory or an ancestor's (a management child context's view). */
    static boolean existsHereOrAbove(ListableBeanFactory beanFactory, String name) {
        return BeanFactoryUtils.beansOfTypeIncludingAncestors(beanFactory, Pool.class, false, true).containsKey(name);
    }

    /**
     * Whether a pool just initialized under that bean name is one {@link #in} lists, so the meters
     * bind it: a singleton bean. An instance of a prototype or scoped bean ({@code scopedTarget.*})
     * is not: each getBean() makes another under the same name, all would get the first one's
     * meters (a registry keeps the first meter of a name and tags), and the container never
     * destroys them, so binding one would keep it for good. Nor is a pool the factory has no bean
     * of that name for (made by createBean(), an inner bean), for the same reasons. With no bean
     * factory (a binder made by hand), every pool counts.
     */
    static boolean isListed(BeanFactory beanFactory, String beanName) {
        return beanFactory == null || (beanFactory.containsBean(beanName) && beanFactory.isSingleton(beanName));
    }

}
