package io.github.workerpool.spring.boot.autoconfigure;

import java.util.ArrayList;
import java.util.List;

import io.github.workerpool.WorkerPool;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.BeanClassLoaderAware;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.env.Environment;
import org.springframework.core.task.TaskDecorator;
import org.springframework.core.task.support.CompositeTaskDecorator;

/**
 * Makes the pool beans of {@code pools.instances}: {@link PoolsRegistrar} registers one bean
 * definition per pool that names this bean's {@link #create(String)} and the pool's name, and
 * nothing else. A pool's builder gets, in this order: the pool's properties, a panic handler
 * that logs with the pool's name, the {@code TaskDecorator} beans, then every
 * {@link WorkerPoolBuilderCustomizer} bean in order.
 */
final class SpringPoolFactory implements BeanClassLoaderAware {

    /*
     * Why a factory bean and not an instance supplier: a bean definition with an instance
     * supplier (a lambda) cannot be written as code by ahead-of-time processing, while a factory
     * method with a constant argument can. The set of pools is fixed when the bean definitions
     * are registered (at build time under AOT); everything else is read here, when the first pool
     * is made: pools.* are bound again from the environment, so an AOT-processed application
     * takes the options it is started with, and the TaskDecorator beans are looked up once.
     */

    /** The bean name under which {@link PoolsRegistrar} registers this factory. */
    static final String BEAN_NAME = "io.github.workerpool.spring.boot.autoconfigure.SpringPoolFactory";

    private static final Log logger = LogFactory.getLog(SpringPoolFactory.class);

    private final Environment environment;

    private final ObjectProvider<TaskDecorator> taskDecorators;

    private final ObjectProvider<WorkerPoolBuilderCustomizer> customizers;

    private ClassLoader classLoader = SpringPoolFactory.class.getClassLoader();

    private PoolsProperties properties;

    private TaskDecorator taskDecorator;

    SpringPoolFactory(Environment environment, ObjectProvider<TaskDecorator> taskDecorators,
            ObjectProvider<WorkerPoolBuilderCustomizer> customizers) {
        this.environment = environment;
        this.taskDecorators = taskDecorators;
        this.customizers = customizers;
    }

    @Override
    public void setBeanClassLoader(ClassLoader classLoader) {
        this.classLoader = classLoader;
    }

    /**
     * Makes the pool {@code pools.instances.<name>}.
     * @param name the pool's name, also its bean name
     * @return the pool
     * @throws PoolConfigurationException if an option of the pool is invalid
     */
    SpringPool create(String name) {
        PoolsProperties properties = properties();
        PoolSettings settings = new PoolSettings(name, properties.getInstances().get(name), properties.getDefaults());
        WorkerPool.Builder builder = settings.builder()
            .panicHandler((ex) -> logger.error("Task on pool '" + name + "' threw an exception", ex))
            .taskDecorator(new PoolTaskDecorator(name, taskDecorator()));
        this.customizers.orderedStream().forEach((customizer) -> customizer.customize(name, builder));
        return new SpringPool(builder.build(), settings.awaitTerminationPeriod());
    }

    private synchronized PoolsProperties properties() {
        if (this.properties == null) {
            PoolsProperties bound = PoolsPropertiesBinding.bind(this.environment);
            PoolsRegistrar.checkContextPropagation(bound, this.classLoader);
            this.properties = bound;
        }
        return this.properties;
    }

    /** The application's TaskDecorator beans in order, plus context propagation if asked for. */
    private synchronized TaskDecorator taskDecorator() {
        if (this.taskDecorator == null) {
            List<TaskDecorator> decorators = new ArrayList<>(this.taskDecorators.orderedStream().toList());
            if (properties().isPropagateContext() && decorators.stream().noneMatch(ContextPropagation::isPropagating)) {
                decorators.add(ContextPropagation.decorator());
            }
            this.taskDecorator = switch (decorators.size()) {
                case 0 -> (task) -> task;
                case 1 -> decorators.get(0);
                default -> new CompositeTaskDecorator(decorators);
            };
        }
        return this.taskDecorator;
    }

    /** Kept apart so that context-propagation classes load only when it is on the classpath. */
    private static final class ContextPropagation {

        static boolean isPropagating(TaskDecorator decorator) {
            return decorator instanceof org.springframework.core.task.support.ContextPropagatingTaskDecorator;
        }

        static TaskDecorator decorator() {
            return new org.springframework.core.task.support.ContextPropagatingTaskDecorator();
        }

    }

}
