package io.github.workerpool.spring.boot.autoconfigure;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.autoconfigure.endpoint.expose.EndpointExposure;
import org.springframework.boot.actuate.autoconfigure.web.ManagementContextConfiguration;
import org.springframework.boot.actuate.autoconfigure.web.ManagementContextType;
import org.springframework.boot.actuate.endpoint.EndpointAccessResolver;
import org.springframework.boot.actuate.endpoint.web.PathMappedEndpoints;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;


/**
 * The tune body filter on the management server's own port ({@code management.server.port}):
 * that server is a child context, which takes no filter from the application's, so a misspelt
 * field was ignored there and the rest applied. The actuator's path is the base path below the
 * management server's context path ({@code management.server.base-path}), and the pools are the
 * application's (the parent's beans).
 */
@ManagementContextConfiguration(value = ManagementContextType.CHILD, proxyBeanMethods = false)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
@ConditionalOnClass(name = { "jakarta.servlet.Filter", "org.springframework.web.filter.OncePerRequestFilter" })
@ConditionalOnAvailableEndpoint(endpoint = PoolsEndpoint.class, exposure = EndpointExposure.WEB)
class PoolsEndpointChildContextConfiguration {

    @Bean
    FilterRegistrationBean<PoolsEndpointBodyFilter> poolsEndpointBodyFilter(ListableBeanFactory beanFactory,
            ObjectProvider<EndpointAccessResolver> access, ObjectProvider<PathMappedEndpoints> endpoints,
            Environment environment) {
        return PoolsEndpointAutoConfiguration.BodyFilterConfiguration.registration(
                PoolsEndpointBodyFilter.actuatorPath("/",
                        PoolsEndpointAutoConfiguration.actuatorBasePath(environment)),
                endpoints, (name) -> Pools.existsHereOrAbove(beanFactory, name), access);
    }

}
