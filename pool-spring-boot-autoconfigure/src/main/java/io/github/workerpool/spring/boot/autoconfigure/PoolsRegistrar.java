package io.github.workerpool.spring.boot.autoconfigure;

import java.util.ArrayList;
import java.util.List;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanClassLoaderAware;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.beans.factory.support.AutowireCandidateQualifier;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.context.EnvironmentAware;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.env.Environment;
import org.springframework.core.task.TaskDecorator;
import org.springframework.core.task.support.CompositeTaskDecorator;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.util.ClassUtils;

/**
 * Registers one bean per entry of {@code pools.instances}, named after it, and checks the whole
 * {@code pools} configuration before any bean is created.
 */
class PoolsRegistrar implements ImportBeanDefinitionRegistrar, EnvironmentAware, BeanFactoryAware, BeanClassLoaderAware {

    /*
     * The pool beans are not default candidates: Spring Boot creates its applicationTaskExecutor
     * only when no Executor bean is a default candidate (and MVC async, WebFlux and GraphQL need
     * it), and an ordinary Executor bean would also make by-type injection of Executor ambiguous.
     * A non-default candidate is still injected where it is asked for by name: @Async("mail"),
     * @Qualifier("mail") WorkerPool or TaskExecutor, and the qualifier added here makes the name
     * an explicit qualifier too.
     */

    static final String CONTEXT_PROPAGATION_CLASS = "io.micrometer.context.ContextSnapshotFactory";

    private static final Log logger = LogFactory.getLog(PoolsRegistrar.class);

    private Environment environment;

    private BeanFactory beanFactory;

    private ClassLoader classLoader;

    @Override
    public void setBeanClassLoader(ClassLoader classLoader) {
        this.classLoader = classLoader;
    }

    @Override
    public void setEnvironment(Environment environment) {
        this.environment = environment;
    }

    @Override
    public void setBeanFactory(BeanFactory beanFactory) throws BeansException {
        this.beanFactory = beanFactory;
    }

    @Override
    public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
        PoolsProperties properties = PoolsPropertiesBinding.bind(this.environment);
        if (properties.isPropagateContext()
                && !ClassUtils.isPresent(CONTEXT_PROPAGATION_CLASS, this.classLoader)) {
            throw new PoolConfigurationException("pools.propagate-context", true,
                    "context propagation needs io.micrometer:context-propagation, which is not on the classpath",
                    "Add the io.micrometer:context-propagation dependency, or set pools.propagate-context to false.");
        }
        PoolSettings.checkDefaults(properties.getDefaults());
        List<PoolSettings> pools = new ArrayList<>();
        properties.getInstances().forEach((name, pool) -> {
            PoolSettings settings = new PoolSettings(name, pool, properties.getDefaults());
            settings.builder(); // fail now, with the property's name, rather than when the bean is made
            pools.add(settings);
        });
        String defaultPool = properties.getDefaultPool();
        if (defaultPool != null && !properties.getInstances().containsKey(defaultPool)
                && !registry.containsBeanDefinition(defaultPool)) {
            throw new PoolConfigurationException("pools.default-pool", defaultPool,
                    "there is no pool named '" + defaultPool + "'; configured pools: "
                            + properties.getInstances().keySet(),
                    "Set pools.default-pool to one of " + properties.getInstances().keySet()
                            + ", or add pools.instances." + defaultPool + ".capacity to create it.");
        }
        boolean propagateContext = properties.isPropagateContext();
        for (PoolSettings settings : pools) {
            if (registry.containsBeanDefinition(settings.name())) {
                logger.debug("Pool '" + settings.name() + "' not created: the application defines a bean of that name");
                continue;
            }
            RootBeanDefinition definition = new RootBeanDefinition(SpringPool.class,
                    () -> SpringPool.create(settings, taskDecorator(propagateContext)));
            definition.setTargetType(SpringPool.class);
            definition.setDefaultCandidate(false);
            definition.addQualifier(new AutowireCandidateQualifier(Qualifier.class, settings.name()));
            definition.setDescription("Worker pool '" + settings.name() + "' from pools.instances." + settings.name());
            registry.registerBeanDefinition(settings.name(), definition);
        }
    }

    /** The application's TaskDecorator beans in order, plus context propagation if asked for. */
    private TaskDecorator taskDecorator(boolean propagateContext) {
        List<TaskDecorator> decorators = new ArrayList<>(
                this.beanFactory.getBeanProvider(TaskDecorator.class).orderedStream().toList());
        if (propagateContext && decorators.stream().noneMatch(ContextPropagation::isPropagating)) {
            decorators.add(ContextPropagation.decorator());
        }
        if (decorators.isEmpty()) {
            return null;
        }
        return (decorators.size() == 1) ? decorators.get(0) : new CompositeTaskDecorator(decorators);
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
