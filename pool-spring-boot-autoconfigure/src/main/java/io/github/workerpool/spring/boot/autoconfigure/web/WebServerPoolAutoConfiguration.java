package io.github.workerpool.spring.boot.autoconfigure.web;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import jakarta.servlet.DispatcherType;
import io.github.workerpool.spring.boot.autoconfigure.PoolConfigurationException;
import io.github.workerpool.spring.boot.autoconfigure.PoolsAutoConfiguration;
import io.github.workerpool.spring.boot.autoconfigure.PoolsProperties;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.actuate.autoconfigure.endpoint.PropertiesEndpointAccessResolver;
import org.springframework.boot.actuate.autoconfigure.endpoint.expose.IncludeExcludeEndpointFilter;
import org.springframework.boot.actuate.autoconfigure.web.server.ManagementPortType;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.web.ExposableWebEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication.Type;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration Auto-configuration} that
 * runs the servlet web server's request processing on the pool named by
 * {@code pools.web-server.pool} (Tomcat or Jetty), and answers 503 with {@code Retry-After} when
 * that pool has no room for another request.
 */
@AutoConfiguration(after = PoolsAutoConfiguration.class)
@ConditionalOnWebApplication(type = Type.SERVLET)
@ConditionalOnClass(
        name = { "jakarta.servlet.Filter", "org.springframework.boot.web.server.WebServerFactoryCustomizer" })
@ConditionalOnProperty("pools.web-server.pool")
@Import({ WebServerPoolAutoConfiguration.TomcatConfiguration.class,
        WebServerPoolAutoConfiguration.JettyConfiguration.class })
public final class WebServerPoolAutoConfiguration {

    /*
     * The admission filter runs right after Spring Boot's request observation filter
     * (HIGHEST_PRECEDENCE + 1), so a 503 is counted in http.server.requests, and before every
     * other filter (security, sessions), so a refused request costs next to nothing.
     */

    static final int FILTER_ORDER = Ordered.HIGHEST_PRECEDENCE + 10;

    /**
     * The name of the bean that puts the web server's requests on the pool: defined only where
     * this auto-configuration applies (a servlet web application with pools.web-server.pool set).
     */
    public static final String WEB_SERVER_POOL_BEAN_NAME = "poolsWebServerPool";

    private static final Log logger = LogFactory.getLog(WebServerPoolAutoConfiguration.class);

    @Bean(WEB_SERVER_POOL_BEAN_NAME)
    WebServerPool poolsWebServerPool(ListableBeanFactory beanFactory, Environment environment) {
        WebServerPoolProperties properties = properties(environment);
        PoolsProperties pools = pools(environment); // the registrar has already refused what cannot be bound
        WebServerKind server = WebServerKind.made(beanFactory, WebServerPoolAutoConfiguration.class.getClassLoader());
        if (server == null) {
            throw new PoolConfigurationException(WebServerPool.POOL_PROPERTY, properties.getPool(),
                    "the request threads can be put on a pool when the web server is Tomcat or Jetty, and neither is "
                            + "on the classpath",
                    "Use Tomcat (spring-boot-starter-tomcat) or Jetty (spring-boot-starter-jetty), or remove "
                            + WebServerPool.POOL_PROPERTY + ".");
        }
        WebServerPool pool = resolve(properties, pools, server, beanFactory, environment);
        int admitted = pool.admissionLimit();
        logger.info(server.displayName() + "'s request threads run on pool '" + pool.name() + "' ("
                + server.threadsProperties() + " no longer apply); "
                + ((admitted == Integer.MAX_VALUE) ? "its capacity is unbounded, so it admits every request (none gets "
                        + "a 503 while it stays unbounded)" : "it admits " + admitted + " requests at once (its capacity minus "
                                + pool.reservedThreads() + " " + WebServerPool.RESERVED_PROPERTY + "), the others get a 503"));
        warnIfDefaultPool(beanFactory, pools.getDefaultPool(), pool);
        return pool;
    }

    /**
     * Why a restart with the environment's {@code pools.web-server} values would fail, judged as
     * startup judges them on the pools as they run now (a refresh warns with it: those values take
     * a restart, and raising reserved-threads to the pool's capacity, or naming a nonblocking pool,
     * would fail the next one); null if it would not, or where the web server runs on no pool.
     * The refresh's, not API.
     */
    public static @Nullable String restartFailure(Environment environment, ListableBeanFactory beanFactory) {
        if (!beanFactory.containsBean(WEB_SERVER_POOL_BEAN_NAME)) {
            return null;
        }
        WebServerPool running = beanFactory.getBean(WEB_SERVER_POOL_BEAN_NAME, WebServerPool.class);
        try {
            WebServerPoolProperties properties = properties(environment);
            if (properties.getPool() == null || "false".equalsIgnoreCase(properties.getPool())) {
                return null; // off: the refresh says that takes a restart
            }
            running.checkWithConnectorsOf(resolve(properties, pools(environment), running.server(), beanFactory,
                    environment));
            return null;
        }
        catch (PoolConfigurationException ex) {
            return ex.getMessage() + " (" + ex.getAction() + ")";
        }
        catch (RuntimeException ex) {
            return null; // a value that cannot be bound: the refresh warns of it on its own
        }
    }

    /** pools.*, read, not injected: it is no bean (see PoolsAutoConfiguration). */
    private static PoolsProperties pools(Environment environment) {
        return Binder.get(environment).bind("pools", Bindable.of(PoolsProperties.class)).orElseGet(PoolsProperties::new);
    }

    /** The pool {@code properties} name, found and checked against the server's connection limit. */
    private static WebServerPool resolve(WebServerPoolProperties properties, PoolsProperties pools,
            WebServerKind server, ListableBeanFactory beanFactory, Environment environment) {
        int maxConnections = environment.getProperty(server.maxConnectionsProperty(), Integer.class,
                server.defaultMaxConnections());
        return WebServerPool.resolve(properties, beanFactory, pools.getInstances().keySet(), server, maxConnections,
                adaptiveMinimum(pools, properties.getPool()));
    }

    /**
     * pools.default-pool naming the web server's pool: plain @Async tasks would hold threads the
     * admission filter does not count, using up the reserve. Allowed (a small application may
     * want one pool), but said once at startup.
     */
    private static void warnIfDefaultPool(ListableBeanFactory beanFactory, String defaultPool, WebServerPool pool) {
        if (defaultPool != null && beanFactory.containsBean(defaultPool) && beanFactory.isSingleton(defaultPool)
                && beanFactory.getBean(defaultPool) == pool.pool()) {
            logger.warn("pools.default-pool=" + defaultPool + " is the web server's pool (" + WebServerPool.POOL_PROPERTY
                    + "=" + pool.name() + "): plain @Async tasks hold its threads, which the admission filter does not "
                    + "count, so requests wait in its queue instead of getting a 503. Set pools.default-pool to a "
                    + "pool of its own.");
        }
    }

    /**
     * The least capacity adaptive sizing may give the pool, and the property that sets it; null if
     * it is not sized adaptively (its own value, else pools.defaults', as the pool itself reads them).
     */
    private static WebServerPool.AdaptiveMinimum adaptiveMinimum(PoolsProperties pools, String name) {
        PoolsProperties.Pool instance = pools.getInstances().get(name);
        if (instance == null) {
            return null; // a pool the application built: its adaptive sizing, if any, is its own
        }
        PoolsProperties.Adaptive own = instance.getAdaptive();
        PoolsProperties.Adaptive defaults = pools.getDefaults().getAdaptive();
        Boolean enabled = (own.getEnabled() != null) ? own.getEnabled() : defaults.getEnabled();
        if (!Boolean.TRUE.equals(enabled)) {
            return null;
        }
        if (own.getMinCapacity() == null && defaults.getMinCapacity() != null) {
            return new WebServerPool.AdaptiveMinimum(defaults.getMinCapacity(), "pools.defaults.adaptive.min-capacity");
        }
        return new WebServerPool.AdaptiveMinimum((own.getMinCapacity() != null) ? own.getMinCapacity() : 1,
                "pools.instances." + name + ".adaptive.min-capacity");
    }

    /**
     * pools.web-server, bound where it is read: as a @ConfigurationProperties bean, Spring Cloud
     * would rebind it on every refresh and fail the whole refresh on a bad value (it is read at
     * startup only; a refresh that changes it is warned about).
     */
    private static WebServerPoolProperties properties(Environment environment) {
        return Binder.get(environment).bindOrCreate("pools.web-server", WebServerPoolProperties.class);
    }

    @Bean
    WebServerKindCheck poolsWebServerKindCheck(WebServerPool pool) {
        return new WebServerKindCheck(pool);
    }

    @Bean
    FilterRegistrationBean<AdmissionFilter> poolsWebServerAdmissionFilter(WebServerPool pool, Environment environment) {
        String exempt = exemptPath(environment);
        AdmissionFilter filter = new AdmissionFilter(pool, properties(environment).getRetryAfter(), exempt,
                probePaths(environment), tuneRequest(environment, exempt, pool.name()), System::nanoTime);
        FilterRegistrationBean<AdmissionFilter> registration = new FilterRegistrationBean<>(filter);
        registration.setName("poolsWebServerAdmissionFilter");
        registration.setDispatcherTypes(DispatcherType.REQUEST, DispatcherType.ERROR);
        registration.setAsyncSupported(true);
        registration.setOrder(FILTER_ORDER);
        return registration;
    }

    /**
     * The 503s as a meter of the web server's pool: the pool refuses none of the connector's
     * tasks, so pool.tasks.rejected never counts them, and an alert on it would miss an
     * overloaded web server.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "io.micrometer.core.instrument.binder.MeterBinder")
    static class AdmissionMetricsConfiguration {

        @Bean
        io.micrometer.core.instrument.binder.MeterBinder poolsWebServerAdmissionMeters(
                FilterRegistrationBean<AdmissionFilter> poolsWebServerAdmissionFilter, WebServerPool pool) {
            AdmissionFilter filter = poolsWebServerAdmissionFilter.getFilter();
            return (registry) -> io.micrometer.core.instrument.FunctionCounter
                .builder(REFUSED_METER, filter, AdmissionFilter::refused)
                .tag("name", pool.name())
                .description("Requests the web server answered with a 503 because the pool had no room for them")
                .register(registry);
        }

    }

    /** The meter of the 503s (Prometheus: pool_requests_refused_total). */
    static final String REFUSED_METER = "pool.requests.refused";

    /**
     * The actuator's path when its endpoints are served by this web server, else null: its
     * requests are admitted uncounted (up to reserved-threads - 1 at once), so the pool can be
     * watched and tuned while it is full.
     */
    static String exemptPath(Environment environment) {
        String path = actuatorPath(environment);
        return (path != null && Management.sharesTheServer(environment)) ? path : null;
    }

    /**
     * Boot's additional health paths on this server, below the DispatcherServlet's path: /livez
     * and /readyz with {@code management.endpoint.health.probes.add-additional-paths}, and each
     * health group's {@code additional-path} in the {@code server:} namespace. They are served on
     * the main port even when the actuator has one of its own, and are admitted as the actuator's
     * requests are: a probe refused while the pool is full would get the instance restarted.
     */
    static List<String> probePaths(Environment environment) {
        if (!ClassUtils.isPresent(Management.PORT_TYPE, WebServerPoolAutoConfiguration.class.getClassLoader())) {
            return List.of();
        }
        Binder binder = Binder.get(environment);
        Set<String> paths = new java.util.LinkedHashSet<>();
        if (binder.bind("management.endpoint.health.probes.add-additional-paths", Boolean.class).orElse(false)) {
            paths.add("/livez");
            paths.add("/readyz");
        }
        binder.bind("management.endpoint.health.group", Bindable.mapOf(String.class, HealthGroupPath.class))
            .orElse(java.util.Map.of())
            .values()
            .forEach((group) -> {
                String path = group.getAdditionalPath();
                if (path != null && path.regionMatches(true, 0, "server:", 0, 7)) {
                    paths.add(normalized(path.substring(7)));
                }
            });
        String servletPath = normalized(environment.getProperty("spring.mvc.servlet.path", "/"));
        List<String> result = new ArrayList<>();
        for (String path : paths) { // normalized: "/x", or "" for the root
            if (!path.isEmpty()) { // the root would exempt every request
                result.add(servletPath + path);
            }
        }
        return result;
    }

    /** The one property of a health group read here. */
    static class HealthGroupPath {

        private String additionalPath;

        public String getAdditionalPath() {
            return this.additionalPath;
        }

        public void setAdditionalPath(String additionalPath) {
            this.additionalPath = additionalPath;
        }

    }

    /**
     * How to tune the pool live, for the overload message, with {@code {}} where the body goes;
     * null if no web endpoint can. Names what to set first when the endpoint is not exposed or
     * takes no writes (by default it is neither: the request would answer 404).
     */
    static String tuneRequest(Environment environment, String exemptPath, String pool) {
        String request;
        if (exemptPath != null) {
            request = "POST " + normalized(environment.getProperty("server.servlet.context-path", "")) + exemptPath
                    + poolsPath(environment) + "/" + pool + "/tune {}";
        }
        else if (actuatorPath(environment) == null || !Management.hasItsOwnServer(environment)) {
            return null;
        }
        else {
            // The management server's own paths: its base path, not the DispatcherServlet's.
            request = "POST " + normalized(environment.getProperty("management.server.base-path", ""))
                    + normalized(environment.getProperty("management.endpoints.web.base-path", "/actuator"))
                    + poolsPath(environment) + "/" + pool + "/tune {} on the management port";
        }
        List<String> missing = Management.whatToSetForWrites(environment);
        return missing.isEmpty() ? request : request + ", once you set " + String.join(" and ", missing);
    }

    /** The pools endpoint's path below the actuator's: /pools, or as its path-mapping maps it. */
    private static String poolsPath(Environment environment) {
        return normalized(environment.getProperty("management.endpoints.web.path-mapping.pools", "pools"));
    }

    /**
     * Where the actuator's endpoints are, below the DispatcherServlet's path
     * ({@code spring.mvc.servlet.path}); null without the actuator, or at the root (no path to
     * exempt without exempting every request).
     */
    static String actuatorPath(Environment environment) {
        if (!ClassUtils.isPresent(Management.PORT_TYPE, WebServerPoolAutoConfiguration.class.getClassLoader())) {
            return null;
        }
        String basePath = normalized(environment.getProperty("management.endpoints.web.base-path", "/actuator"));
        if (basePath.isEmpty()) {
            return null;
        }
        return normalized(environment.getProperty("spring.mvc.servlet.path", "/")) + basePath;
    }

    /** "/x/" and "x" as "/x"; "/" as "". */
    private static String normalized(String path) {
        String p = path.trim();
        while (p.endsWith("/")) {
            p = p.substring(0, p.length() - 1);
        }
        return (p.isEmpty() || p.startsWith("/")) ? p : "/" + p;
    }

    /** Boot's own rule, loaded only with the actuator: a management port of 0 is a port of its own. */
    private static final class Management {

        static final String PORT_TYPE = "org.springframework.boot.actuate.autoconfigure.web.server.ManagementPortType";

        static boolean sharesTheServer(Environment environment) {
            return ManagementPortType.get(environment) == ManagementPortType.SAME;
        }

        static boolean hasItsOwnServer(Environment environment) {
            return ManagementPortType.get(environment) == ManagementPortType.DIFFERENT;
        }

        /**
         * What to set before the pools endpoint takes a tune over HTTP: nothing if it is exposed and
         * writable, as Spring Boot's own rules read the properties (lists, the deprecated enabled
         * flags, the max-permitted cap). By default it is neither, and the tune answers 404.
         */
        static List<String> whatToSetForWrites(Environment environment) {
            EndpointId pools = EndpointId.of("pools");
            List<String> missing = new ArrayList<>();
            // Exposed: in the include list (default health) and not in the exclude list, each
            // matched as Boot matches ids; each cause named on its own.
            Set<String> exclude = exposure(environment, "exclude", Set.of());
            if (!new IncludeExcludeEndpointFilter<>(ExposableWebEndpoint.class, Set.of("*"), exclude).match(pools)) {
                missing.add("pools out of management.endpoints.web.exposure.exclude");
            }
            Set<String> include = exposure(environment, "include", Set.of("health"));
            if (!new IncludeExcludeEndpointFilter<>(ExposableWebEndpoint.class, include, Set.of()).match(pools)) {
                missing.add("management.endpoints.web.exposure.include=pools");
            }
            if (new PropertiesEndpointAccessResolver(environment).accessFor(pools, Access.READ_ONLY) != Access.UNRESTRICTED) {
                // Each cause on its own: the endpoint's own access (or the deprecated flag, or the
                // default), and the cap over every endpoint.
                String own = environment.getProperty("management.endpoint.pools.access");
                String enabled = environment.getProperty("management.endpoint.pools.enabled");
                String byDefault = environment.getProperty("management.endpoints.access.default");
                boolean ownUnrestricted = (own != null) ? unrestricted(own)
                        : (enabled != null) ? Boolean.parseBoolean(enabled.trim()) : unrestricted(byDefault);
                if (!ownUnrestricted) {
                    missing.add((enabled != null && own == null)
                            ? "management.endpoint.pools.access=unrestricted (in place of management.endpoint.pools.enabled)"
                            : "management.endpoint.pools.access=unrestricted");
                }
                String max = environment.getProperty("management.endpoints.access.max-permitted");
                if (max != null && !unrestricted(max)) {
                    missing.add("management.endpoints.access.max-permitted=unrestricted");
                }
            }
            return missing;
        }

        /** management.endpoints.web.exposure.{@code list} as Boot binds it (a list or a comma-separated value). */
        private static Set<String> exposure(Environment environment, String list, Set<String> byDefault) {
            return Binder.get(environment)
                .bind("management.endpoints.web.exposure." + list, Bindable.setOf(String.class))
                .orElse(byDefault);
        }

        private static boolean unrestricted(String access) {
            return access != null && access.trim().equalsIgnoreCase("unrestricted");
        }

    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = { "org.apache.catalina.startup.Tomcat",
            "org.springframework.boot.tomcat.ConfigurableTomcatWebServerFactory" })
    static class TomcatConfiguration {

        @Bean
        TomcatWebServerPoolCustomizer poolsTomcatWebServerPoolCustomizer(WebServerPool pool) {
            return new TomcatWebServerPoolCustomizer(pool);
        }

    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = { "org.eclipse.jetty.server.Server",
            "org.springframework.boot.jetty.ConfigurableJettyWebServerFactory" })
    static class JettyConfiguration {

        @Bean
        JettyWebServerPoolCustomizer poolsJettyWebServerPoolCustomizer(WebServerPool pool) {
            return new JettyWebServerPoolCustomizer(pool);
        }

    }

}
