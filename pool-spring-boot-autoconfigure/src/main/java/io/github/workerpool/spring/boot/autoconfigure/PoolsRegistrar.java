package io.github.workerpool.spring.boot.autoconfigure;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import io.github.workerpool.Pool;
import io.github.workerpool.WorkerPool;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.BeanClassLoaderAware;
import org.springframework.beans.factory.FactoryBean;
import org.springframework.beans.factory.annotation.AnnotatedBeanDefinition;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.support.BeanDefinitionRegistry;
import org.springframework.beans.factory.support.RootBeanDefinition;
import org.springframework.boot.autoconfigure.task.TaskExecutionAutoConfiguration;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.EnvironmentAware;
import org.springframework.context.annotation.ImportBeanDefinitionRegistrar;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotationMetadata;
import org.springframework.scheduling.annotation.ScheduledAnnotationBeanPostProcessor;
import org.springframework.util.ClassUtils;

/**
 * Registers one bean per entry of {@code pools.instances}, named after it, and checks the whole
 * {@code pools} configuration before any bean is created.
 */
class PoolsRegistrar implements ImportBeanDefinitionRegistrar, EnvironmentAware, BeanClassLoaderAware {

    /*
     * The pool beans are not default candidates: Spring Boot creates its applicationTaskExecutor
     * only when no Executor bean is a default candidate (and MVC async, WebFlux and GraphQL need
     * it), and an ordinary Executor bean would also make by-type injection of Executor ambiguous.
     * A non-default candidate is still injected where it is asked for by name: @Async("mail"),
     * @Qualifier("mail") Pool, ExecutorService or TaskExecutor, by its name or an alias (another
     * form of the key, see forms()). No explicit qualifier: one would match its one value only,
     * never an alias.
     *
     * Each definition is the factory method SpringPoolFactory.create(name) with the name as a
     * constant argument: ahead-of-time processing writes such a definition as code (it cannot
     * write an instance supplier), and the options are read when the pool is made.
     */

    static final String CONTEXT_PROPAGATION_CLASS = "io.micrometer.context.ContextSnapshotFactory";

    private static final Log logger = LogFactory.getLog(PoolsRegistrar.class);

    private Environment environment;

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
    public void registerBeanDefinitions(AnnotationMetadata metadata, BeanDefinitionRegistry registry) {
        PoolsProperties properties = PoolsPropertiesBinding.bind(this.environment);
        PoolsPropertiesBinding.checkGroupsBoundElsewhere(this.environment);
        checkContextPropagation(properties, this.classLoader);
        PoolSettings.checkDefaults(properties.getDefaults(), this.classLoader);
        List<PoolSettings> pools = new ArrayList<>();
        properties.getInstances().forEach((name, pool) -> {
            checkName(name);
            PoolSettings settings = new PoolSettings(name, pool, properties.getDefaults(), this.classLoader);
            settings.builder(); // fail now, with the property's name, rather than when the bean is made
            checkAdaptive(settings, this.classLoader);
            pools.add(settings);
        });
        String defaultPool = properties.getDefaultPool();
        if (defaultPool != null && !properties.getInstances().containsKey(defaultPool)
                && !registry.containsBeanDefinition(defaultPool)) {
            throw PoolsAsyncConfigurer.noSuchPool(defaultPool, properties.getInstances().keySet());
        }
        Map<String, List<String>> forms = forms(properties.getInstances().keySet());
        forms.values().stream().filter((names) -> names.size() > 1).forEach((names) -> logger.info(describeForms(names)));
        for (PoolSettings settings : pools) {
            List<String> names = forms.get(settings.name());
            if (names == null) {
                continue; // another form of a pool made under its first name
            }
            if (registry.containsBeanDefinition(settings.name())) {
                checkShadowingBeanIsAPool(settings.name(), registry.getBeanDefinition(settings.name()), this.classLoader);
                logger.info("Pool '" + settings.name() + "' of " + PoolSettings.instance(settings.name())
                        + " not created: the application defines a bean of that name, which takes its place");
                continue;
            }
            registerFactory(registry);
            registry.registerBeanDefinition(settings.name(), definition(settings.name()));
            for (String other : names.subList(1, names.size())) {
                if (!registry.containsBeanDefinition(other) && !registry.isAlias(other)) {
                    registry.registerAlias(settings.name(), other);
                } else {
                    logger.warn("'" + other + "' is not a name of pool '" + settings.name() + "' of "
                            + PoolSettings.instance(other) + ": the application defines a bean of that name,"
                            + " which @Async(\"" + other + "\") and @Qualifier(\"" + other + "\") get; use '"
                            + settings.name() + "' to mean the pool, or rename that bean");
                }
            }
        }
    }

    /**
     * The entries of pools.instances by the name their pool gets, each with its other names first
     * to last: keys that are one property name in other forms (order-events, orderEvents, and
     * orderevents from an environment variable) are one pool, which Spring Boot binds under each
     * key with the same values. Its name is the first key written with a dash or a capital (an
     * environment variable's key is all lower case), else the first; the others become aliases.
     */
    static Map<String, List<String>> forms(java.util.Collection<String> keys) {
        Map<ConfigurationPropertyName, List<String>> byName = new LinkedHashMap<>();
        for (String key : keys) {
            byName.computeIfAbsent(ConfigurationPropertyName.adapt(key, '.'), (n) -> new ArrayList<>()).add(key);
        }
        Map<String, List<String>> forms = new LinkedHashMap<>();
        for (List<String> names : byName.values()) {
            List<String> ordered = new ArrayList<>(names);
            String first = names.stream().filter((n) -> !n.equals(n.toLowerCase(Locale.ROOT).replace("-", "")))
                .findFirst().orElse(names.get(0));
            ordered.remove(first);
            ordered.add(0, first);
            forms.put(first, ordered);
        }
        return forms;
    }

    private static String describeForms(List<String> names) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < names.size(); i++) {
            out.append((i == 0) ? "" : (i == names.size() - 1) ? " and " : ", ").append(PoolSettings.instance(names.get(i)));
        }
        return out.append(" are one pool, '").append(names.get(0)).append("' (one property name in ")
            .append(names.size()).append(" forms, which Spring Boot binds alike); the other names are its aliases")
            .toString();
    }

    /** Characters that a pool's name cannot have and be reached at {@code <endpoint>/<name>}. */
    private static final String UNADDRESSABLE = "/\\%;";

    /**
     * Fails for a pool named after a bean of Spring's own task infrastructure: Boot's executor
     * definition then fails startup with a bare "illegally overridden" error, Boot's scheduler
     * backs off silently (a pool is no TaskScheduler: {@code @Scheduled} methods ran on Spring's
     * single fallback thread), and the context takes an Executor named bootstrapExecutor for its
     * background bean initialization; and for a name the endpoint's paths cannot carry.
     * @throws PoolConfigurationException naming the pool's entry and the fix
     */
    static void checkName(String name) {
        if (TaskExecutionAutoConfiguration.APPLICATION_TASK_EXECUTOR_BEAN_NAME.equals(name)) {
            throw new PoolConfigurationException(PoolSettings.instance(name), name,
                    "it is the bean name of Spring Boot's own executor (MVC async, WebFlux, plain @Async)",
                    "Give the pool another name. To run plain @Async methods on a pool, set pools.default-pool "
                            + "to its name.");
        }
        if (ConfigurableApplicationContext.BOOTSTRAP_EXECUTOR_BEAN_NAME.equals(name)) {
            throw new PoolConfigurationException(PoolSettings.instance(name), name,
                    "it is the bean name of Spring's bootstrap executor: the context would run its background "
                            + "bean initialization on the pool, and a full pool would refuse it",
                    "Give the pool another name.");
        }
        if (name.equals(".") || name.equals("..")) {
            throw new PoolConfigurationException(PoolSettings.instance(name), name,
                    "a path removes '" + name + "' as a segment, so /actuator/pools/<name> could not reach the pool",
                    "Give the pool a name with letters, digits, '-', '_' or '.' (not '.' or '..' alone).");
        }
        for (char c : UNADDRESSABLE.toCharArray()) {
            if (name.indexOf(c) >= 0) {
                throw new PoolConfigurationException(PoolSettings.instance(name), name,
                        "its '" + c + "' cannot be sent in /actuator/pools/<name> (servlet containers refuse an "
                                + "encoded '/', Spring Security's firewall '\\', '%' and ';'), so the endpoint would "
                                + "list the pool but could not show, tune or purge it",
                        "Give the pool a name without '/', '\\', '%' or ';' (letters, digits, '-', '_' and '.' go "
                                + "everywhere: paths, meter tags, thread names).");
            }
        }
        if (ScheduledAnnotationBeanPostProcessor.DEFAULT_TASK_SCHEDULER_BEAN_NAME.equals(name)) {
            throw new PoolConfigurationException(PoolSettings.instance(name), name,
                    "it is the bean name of Spring's task scheduler: Spring Boot would not create its scheduler, "
                            + "and @Scheduled methods would run on a single fallback thread",
                    "Give the pool another name.");
        }
    }

    /**
     * Fails if the application's bean that has the name of a pool of {@code pools.instances} is
     * known to be no pool: the pool was not made, silently, and what asked for it by name got the
     * other bean, or none (a {@code @Component class Crawler} is the bean {@code crawler}). A bean
     * whose type cannot be told from its definition (a factory bean, a supplier) is taken as the
     * application's pool, as before.
     * @throws PoolConfigurationException naming the pool's entry, the bean and its class, and the fix
     */
    static void checkShadowingBeanIsAPool(String name, BeanDefinition definition, ClassLoader classLoader) {
        String typeName;
        if (definition instanceof AnnotatedBeanDefinition annotated && annotated.getFactoryMethodMetadata() != null) {
            typeName = annotated.getFactoryMethodMetadata().getReturnTypeName();
        }
        else if (definition.getFactoryMethodName() != null) {
            return; // made by a factory method (XML, BeanDefinitionBuilder): its class is the factory's, not the bean's
        }
        else {
            typeName = definition.getBeanClassName();
        }
        if (typeName == null || !ClassUtils.isPresent(typeName, classLoader)) {
            return;
        }
        Class<?> type = ClassUtils.resolveClassName(typeName, classLoader);
        // A declared interface, or a class a pool extends (a @Bean ExecutorService mail()), may be a pool.
        if (type.isInterface() || Pool.class.isAssignableFrom(type) || type.isAssignableFrom(WorkerPool.class)
                || FactoryBean.class.isAssignableFrom(type)) {
            return;
        }
        throw new PoolConfigurationException(PoolSettings.instance(name), name,
                "the application defines a bean named '" + name + "' (" + type.getName()
                        + "), which is no pool, so the pool of that name cannot be made, and what asks for the "
                        + "pool by name (@Async(\"" + name + "\"), @Qualifier(\"" + name + "\")) would get that bean",
                "Give the pool or the bean another name (pools.instances.<other-name>, or @Component(\"...\") / "
                        + "@Bean(\"...\")).");
    }

    /**
     * Fails if context propagation is asked for without its library.
     * @throws PoolConfigurationException if {@code pools.propagate-context} is true and
     *         io.micrometer:context-propagation is missing
     */
    static void checkContextPropagation(PoolsProperties properties, ClassLoader classLoader) {
        if (properties.isPropagateContext() && !ClassUtils.isPresent(CONTEXT_PROPAGATION_CLASS, classLoader)) {
            throw new PoolConfigurationException("pools.propagate-context", true,
                    "context propagation needs io.micrometer:context-propagation, which is not on the classpath",
                    "Add the io.micrometer:context-propagation dependency, or set pools.propagate-context to false.");
        }
    }

    /**
     * Fails if adaptive capacity is asked for without its library.
     * @throws PoolConfigurationException if the pool's adaptive.enabled is true and
     *         io.github.workerpool:pool-adaptive is missing
     */
    static void checkAdaptive(PoolSettings settings, ClassLoader classLoader) {
        PoolSettings.AdaptiveSettings adaptive = settings.adaptive();
        if (adaptive.enabled() && !AdaptiveSupport.isPresent(classLoader)) {
            throw new PoolConfigurationException(adaptive.enabledProperty(), true,
                    "adaptive capacity needs " + AdaptiveSupport.DEPENDENCY + ", which is not on the classpath",
                    "Add the " + AdaptiveSupport.DEPENDENCY + " dependency (pool-spring-boot-starter has it), or set "
                            + adaptive.enabledProperty() + " to false.");
        }
    }

    private static void registerFactory(BeanDefinitionRegistry registry) {
        if (!registry.containsBeanDefinition(SpringPoolFactory.BEAN_NAME)) {
            RootBeanDefinition factory = new RootBeanDefinition(SpringPoolFactory.class);
            factory.setRole(BeanDefinition.ROLE_INFRASTRUCTURE);
            factory.setAutowireCandidate(false);
            registry.registerBeanDefinition(SpringPoolFactory.BEAN_NAME, factory);
        }
    }

    private static RootBeanDefinition definition(String name) {
        RootBeanDefinition definition = new RootBeanDefinition();
        definition.setFactoryBeanName(SpringPoolFactory.BEAN_NAME);
        definition.setFactoryMethodName("create");
        definition.getConstructorArgumentValues().addIndexedArgumentValue(0, name);
        definition.setTargetType(SpringPool.class);
        definition.setDefaultCandidate(false);
        definition.setDescription("Worker pool '" + name + "' from pools.instances." + name);
        return definition;
    }

}
