package io.github.workerpool.spring.boot.autoconfigure;

import java.util.function.BooleanSupplier;
import java.util.function.Predicate;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.EndpointAccessResolver;
import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.web.PathMappedEndpoints;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.autoconfigure.endpoint.expose.EndpointExposure;
import org.springframework.boot.actuate.autoconfigure.web.server.ConditionalOnManagementPort;
import org.springframework.boot.actuate.autoconfigure.web.server.ManagementPortType;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.ImportRuntimeHints;

/**
 * {@link org.springframework.boot.autoconfigure.EnableAutoConfiguration Auto-configuration} for
 * the {@link PoolsEndpoint}, when Spring Boot's actuator is on the classpath.
 */
@AutoConfiguration(after = PoolsAutoConfiguration.class)
@ConditionalOnClass(name = { "org.springframework.boot.actuate.endpoint.annotation.Endpoint",
        "org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint" })
@ImportRuntimeHints(PoolsEndpointRuntimeHints.class)
public final class PoolsEndpointAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnAvailableEndpoint
    PoolsEndpoint poolsEndpoint(ListableBeanFactory beanFactory, ApplicationEventPublisher events,
            org.springframework.core.env.Environment environment) {
        PoolsEndpoint endpoint = new PoolsEndpoint(() -> Pools.in(beanFactory), events);
        endpoint.webServerGuard(WebServerGuard.of(environment, beanFactory));
        return endpoint;
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(PoolsEndpoint.class)
    @ConditionalOnAvailableEndpoint(exposure = EndpointExposure.WEB)
    PoolsEndpointWebExtension poolsEndpointWebExtension(PoolsEndpoint poolsEndpoint) {
        return new PoolsEndpointWebExtension(poolsEndpoint);
    }

    private static final EndpointId POOLS = EndpointId.of("pools");

    /** The actuator's base path as configured ({@code management.endpoints.web.base-path}). */
    static String actuatorBasePath(org.springframework.core.env.Environment environment) {
        return environment.getProperty("management.endpoints.web.base-path", "/actuator");
    }

    /**
     * The endpoint's path below the actuator's base path: {@code pools}, or what
     * {@code management.endpoints.web.path-mapping.pools} maps it to.
     */
    static String poolsRootPath(ObjectProvider<PathMappedEndpoints> endpoints) {
        PathMappedEndpoints mapped = endpoints.getIfAvailable();
        String root = (mapped != null) ? mapped.getRootPath(POOLS) : null;
        return (root != null) ? root : "pools";
    }

    /** Whether the endpoint's writes are mapped (its access is unrestricted), asked per request. */
    static BooleanSupplier writable(ObjectProvider<EndpointAccessResolver> access) {
        return () -> {
            EndpointAccessResolver resolver = access.getIfAvailable();
            return resolver != null && resolver.accessFor(POOLS, Access.READ_ONLY) == Access.UNRESTRICTED;
        };
    }

    /**
     * The same refusal on a reactive web server that serves the actuator (for a management server
     * of its own: PoolsEndpointReactiveChildContextConfiguration).
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
    @ConditionalOnManagementPort(ManagementPortType.SAME)
    @ConditionalOnClass(name = "org.springframework.web.server.WebFilter")
    @ConditionalOnAvailableEndpoint(endpoint = PoolsEndpoint.class, exposure = EndpointExposure.WEB)
    static class ReactiveBodyFilterConfiguration {

        @Bean
        PoolsEndpointBodyWebFilter poolsEndpointBodyWebFilter(ListableBeanFactory beanFactory,
                ObjectProvider<EndpointAccessResolver> access, ObjectProvider<PathMappedEndpoints> endpoints,
                org.springframework.core.env.Environment environment) {
            return new PoolsEndpointBodyWebFilter(actuatorBasePath(environment), () -> poolsRootPath(endpoints),
                    (name) -> Pools.in(beanFactory).containsKey(name), writable(access));
        }

    }

    /**
     * The refusal of tune bodies with a nested value or a field no option has, on a servlet web
     * server that serves the actuator (a management server of its own has its own filter:
     * PoolsEndpointChildContextConfiguration; here it would tell, on the application's port,
     * which pools exist).
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
    @ConditionalOnManagementPort(ManagementPortType.SAME)
    @ConditionalOnClass(name = { "jakarta.servlet.Filter", "org.springframework.web.filter.OncePerRequestFilter" })
    @ConditionalOnAvailableEndpoint(endpoint = PoolsEndpoint.class, exposure = EndpointExposure.WEB)
    static class BodyFilterConfiguration {

        @Bean
        FilterRegistrationBean<PoolsEndpointBodyFilter> poolsEndpointBodyFilter(ListableBeanFactory beanFactory,
                ObjectProvider<EndpointAccessResolver> access, ObjectProvider<PathMappedEndpoints> endpoints,
                org.springframework.core.env.Environment environment) {
            return registration(PoolsEndpointBodyFilter.actuatorPath(environment.getProperty("spring.mvc.servlet.path", "/"),
                    actuatorBasePath(environment)), endpoints,
                    (name) -> Pools.in(beanFactory).containsKey(name), access);
        }

        /**
         * The filter on the actuator's path of one server (the endpoint's own path below it is
         * known once the endpoints are discovered; the filter matches it on the decoded segments).
         */
        static FilterRegistrationBean<PoolsEndpointBodyFilter> registration(String actuatorPath,
                ObjectProvider<PathMappedEndpoints> endpoints, Predicate<String> poolExists,
                ObjectProvider<EndpointAccessResolver> access) {
            FilterRegistrationBean<PoolsEndpointBodyFilter> registration = new FilterRegistrationBean<>(
                    new PoolsEndpointBodyFilter(actuatorPath, () -> poolsRootPath(endpoints), poolExists,
                            writable(access)));
            registration.addUrlPatterns(actuatorPath + "/*");
            registration.setName("poolsEndpointBodyFilter");
            return registration;
        }

    }

}
