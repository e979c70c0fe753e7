package io.github.workerpool.spring.boot.autoconfigure;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import io.github.workerpool.PoolConfig;
import io.github.workerpool.WorkerPool;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.BeanClassLoaderAware;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.thread.Threading;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationContextAware;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.support.AbstractApplicationContext;
import org.springframework.core.env.Environment;
import org.springframework.core.task.TaskDecorator;
import org.springframework.core.task.support.CompositeTaskDecorator;

/**
 * Makes the pool beans of {@code pools.instances}: {@link PoolsRegistrar} registers one bean
 * definition per pool that names this bean's {@link #create(String)} and the pool's name, and
 * nothing else. A pool's builder gets, in this order: the pool's properties, a panic handler
 * that logs with the pool's name, the {@code TaskDecorator} beans, then every
 * {@link WorkerPoolBuilderCustomizer} bean in order.
 *
 * <p>{@code spring.threads.virtual.enabled=true} makes virtual workers the default of the pools
 * that set {@code virtual-threads} neither themselves nor in {@code pools.defaults}, when the JVM
 * is Java 21 or later; see {@link #virtualThreadsByDefault}.
 */
final class SpringPoolFactory
        implements BeanClassLoaderAware, SmartLifecycle, ApplicationContextAware {

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

    private static final String VIRTUAL_THREADS_ENABLED = "spring.threads.virtual.enabled";

    private static final Log logger = LogFactory.getLog(SpringPoolFactory.class);

    private final Environment environment;

    /** The pools made so far, not yet destroyed (a failed startup stops them together). */
    private final SpringPool.Siblings made = new SpringPool.Siblings();

    private final ObjectProvider<TaskDecorator> taskDecorators;

    private final ObjectProvider<WorkerPoolBuilderCustomizer> customizers;

    private ClassLoader classLoader = SpringPoolFactory.class.getClassLoader();

    private PoolsProperties properties;

    private TaskDecorator taskDecorator;

    /** The names pools.web-server.pool designates (see isWebServerPool); null until first asked. */
    private Set<String> webServerPoolNames;

    private boolean virtualThreadsUnavailableLogged;

    SpringPoolFactory(Environment environment, ObjectProvider<TaskDecorator> taskDecorators,
            ObjectProvider<WorkerPoolBuilderCustomizer> customizers) {
        this.environment = environment;
        this.taskDecorators = taskDecorators;
        this.customizers = customizers;
    }

    /*
     * The last shutdown phase. A pool still draining when its own phase (SpringPool.PHASE) timed
     * out was forced only when its bean was destroyed, after the beans that depend on it: those
     * went away while its tasks still ran. Stopped after every other phase and before any bean is
     * destroyed, this forces such pools (interrupts their running tasks, cancels the queued ones)
     * and waits for them to end, within this phase's own timeout; it also waits for pools whose
     * await period forced them while their tasks still finish. Only when the context closes
     * (its closed flag is set before the lifecycle stops) or fails to start after starting its
     * lifecycle beans (a web server that cannot bind its port, a ContextRefreshedEvent listener
     * that throws: the lifecycle is stopped from within refresh(), and no event says so): after
     * context.stop() a pool keeps draining for its await period, and start() reopens it unforced.
     */

    private volatile boolean running;

    private ApplicationContext context;

    @Override
    public void setApplicationContext(ApplicationContext context) {
        this.context = context;
    }

    /**
     * Whether the context is closing: marked before its ContextClosedEvent and its lifecycle's
     * stop. (A listener of that event missed it when an earlier listener threw: helper-162.)
     */
    private static boolean closed(ApplicationContext context) {
        return context instanceof ConfigurableApplicationContext configurable && configurable.isClosed();
    }

    /** Whether the lifecycle stops from within the context's refresh(): a startup that failed. */
    private static boolean inRefresh() {
        return StackWalker.getInstance().walk((frames) -> frames.anyMatch((frame) -> frame.getMethodName()
            .equals("refresh") && frame.getClassName().equals(AbstractApplicationContext.class.getName())));
    }

    @Override
    public void start() {
        this.running = true;
    }

    @Override
    public void stop() {
        forceAndAwait(draining());
    }

    /** At close, forces the pools still draining and waits for their tasks, on a thread of its own. */
    @Override
    public void stop(Runnable callback) {
        List<SpringPool> draining = draining();
        if (draining.isEmpty()) {
            callback.run();
            return;
        }
        Thread stopper = new Thread(() -> {
            try {
                forceAndAwait(draining); // the lifecycle waits no longer than this phase's timeout
            }
            finally {
                callback.run();
            }
        }, "pools-last-phase");
        stopper.setDaemon(true);
        stopper.start();
    }

    /**
     * The pools whose lifecycle stop has not seen them terminate, if the context closes or failed
     * to start (else none, and this bean stays running: a close after context.stop() still comes
     * here).
     */
    private List<SpringPool> draining() {
        List<SpringPool> draining = new ArrayList<>();
        if (closed(this.context) || inRefresh()) {
            this.running = false;
            for (SpringPool pool : this.made.pools) {
                if (pool.isDraining()) {
                    draining.add(pool);
                }
            }
        }
        return draining;
    }

    /** Forces them all, then waits for them together: each until its await period counted from now. */
    private static void forceAndAwait(List<SpringPool> pools) {
        long from = System.nanoTime();
        for (SpringPool pool : pools) {
            pool.forceIfDraining();
        }
        for (SpringPool pool : pools) {
            pool.awaitForcedEnd(from);
        }
    }

    @Override
    public boolean isRunning() {
        return this.running;
    }

    @Override
    public int getPhase() {
        return Integer.MIN_VALUE;
    }

    /** Not stopped by a pause, as the pools are not (SpringPool.isPauseable). */
    @Override
    public boolean isPauseable() {
        return false;
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
        PoolsProperties.Pool instance = properties.getInstances().get(name);
        PoolSettings settings = new PoolSettings(name, instance, properties.getDefaults(), this.classLoader);
        WorkerPool.Builder builder = settings.builder();
        boolean virtualByDefault = leavesVirtualThreadsUnset(instance, properties.getDefaults())
                && virtualThreadsByDefault(name);
        if (virtualByDefault) {
            builder.virtualThreads(true);
        }
        boolean webServers = isWebServerPool(name);
        builder.panicHandler((ex) -> logger.error("Task on pool '" + name + "' threw an exception", ex));
        if (!webServers) {
            builder.taskDecorator(new PoolTaskDecorator(name, taskDecorator())); // a customizer may replace it
        }
        this.customizers.orderedStream().forEach((customizer) -> customizer.customize(name, builder));
        if (webServers) {
            // After the customizers, so none replaces it: the connector's tasks are decorated on its
            // poller thread, inside execute(), where a decorator that throws closes the connection.
            builder.taskDecorator(new PoolTaskDecorator(name, (task) -> task));
        }
        WorkerPool built = build(builder, virtualByDefault);
        if (AdaptiveSupport.isPresent(this.classLoader)) {
            try {
                checkCustomizedForAdaptive(name, built.config(), settings.adaptive());
            }
            catch (PoolConfigurationException ex) {
                built.close();
                throw ex;
            }
        }
        SpringPool pool = new SpringPool(built, settings.awaitTerminationPeriod(), this.made);
        if (AdaptiveSupport.isPresent(this.classLoader)) {
            pool.adaptive(AdaptiveSupport.attach(pool, settings.adaptive()));
        }
        return pool;
    }

    /**
     * What a customizer set against adaptive sizing, which the properties' checks cannot see:
     * preAlloc(true) fixes the capacity (the sizing was dropped without a word), and aimd with
     * no run timeout would only grow. Also what a refresh tells of the next restart (PoolsRefresher).
     */
    static void checkCustomizedForAdaptive(String name, PoolConfig config, PoolSettings.AdaptiveSettings adaptive) {
        checkCustomizedPreAlloc(name, config, adaptive);
        if (adaptive.enabled() && adaptive.algorithm().equals("aimd") && config.runTimeout() == null) {
            throw new PoolConfigurationException(adaptive.algorithmProperty(), "aimd", "aimd backs off only when a task "
                    + "runs longer than the pool's run timeout, and a WorkerPoolBuilderCustomizer set runTimeout(null) on "
                    + "pool '" + name + "', so the capacity would only grow", customizerFix(name, adaptive));
        }
    }

    /** A customizer's preAlloc(true), which fixes the capacity adaptive sizing would change (also a refresh's check). */
    static void checkCustomizedPreAlloc(String name, PoolConfig config, PoolSettings.AdaptiveSettings adaptive) {
        if (adaptive.enabled() && config.preAlloc()) {
            throw new PoolConfigurationException(adaptive.enabledProperty(), true, "adaptive capacity changes the "
                    + "capacity, but a WorkerPoolBuilderCustomizer set preAlloc(true) on pool '" + name
                    + "', which fixes it", customizerFix(name, adaptive));
        }
    }

    private static String customizerFix(String name, PoolSettings.AdaptiveSettings adaptive) {
        return "Change the customizer for pool '" + name + "', or set " + adaptive.enabledProperty() + " to false.";
    }

    /**
     * Builds the pool. Virtual threads by default and a thread factory set by a customizer
     * contradict each other; the thread factory, which the application asked for, wins.
     */
    private static WorkerPool build(WorkerPool.Builder builder, boolean virtualByDefault) {
        if (!virtualByDefault) {
            return builder.build();
        }
        try {
            return builder.build();
        }
        catch (IllegalArgumentException ex) {
            // A thread factory is the one option that conflicts with virtual threads and that the
            // properties cannot set. If something else is wrong, this build reports it.
            return builder.virtualThreads(false).build();
        }
    }

    private static boolean leavesVirtualThreadsUnset(PoolsProperties.Pool instance, PoolsProperties.Pool defaults) {
        return (instance == null || instance.getVirtualThreads() == null) && defaults.getVirtualThreads() == null;
    }

    /**
     * Whether a pool that leaves {@code virtual-threads} unset gets virtual workers: when
     * {@code spring.threads.virtual.enabled} is true and the JVM has virtual threads, exactly when
     * Spring Boot's own executors and web servers use them. On Java 17 the property is a wish
     * Spring Boot does not fail on either, so the pools keep platform threads and say so once.
     */
    private synchronized boolean virtualThreadsByDefault(String name) {
        if (Threading.VIRTUAL.isActive(this.environment)) {
            return true;
        }
        if (!this.virtualThreadsUnavailableLogged
                && this.environment.getProperty(VIRTUAL_THREADS_ENABLED, Boolean.class, false)) {
            this.virtualThreadsUnavailableLogged = true;
            logger.info(VIRTUAL_THREADS_ENABLED + " is true, but virtual threads need Java 21 or later and this JVM is "
                    + "Java " + Runtime.version().feature() + ": pool '" + name + "' and every other pool that does not "
                    + "set virtual-threads keep platform threads");
        }
        return false;
    }

    private synchronized PoolsProperties properties() {
        if (this.properties == null) {
            PoolsProperties bound = PoolsPropertiesBinding.bind(this.environment);
            PoolsRegistrar.checkContextPropagation(bound, this.classLoader);
            this.properties = bound;
        }
        return this.properties;
    }

    /**
     * Whether the pool is the web server's (pools.web-server.pool): its tasks are the connector's,
     * submitted by its poller with no request, and a TaskDecorator written for @Async (one that
     * reads the request's attributes, say) would throw there and drop every connection. Spring
     * Boot applies none to its server's own threads either.
     */
    private synchronized boolean isWebServerPool(String name) {
        if (this.webServerPoolNames == null) {
            // The pool's name and its other spellings (its aliases, as WebServerPool takes them),
            // found once for all the pools.
            String named = PoolsPropertiesBinding.webServerPool(this.environment);
            this.webServerPoolNames = (named == null) ? Set.of()
                    : PoolsRegistrar.forms(properties().getInstances().keySet()).values().stream()
                        .filter((names) -> names.contains(named))
                        .findFirst()
                        .<Set<String>>map(Set::copyOf)
                        .orElse(Set.of(named));
        }
        return this.webServerPoolNames.contains(name);
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
