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
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;


/**
 * The tune body filter on a reactive management server of its own ({@code management.server.port}),
 * as {@link PoolsEndpointChildContextConfiguration} for a servlet one: the pools are the
 * application's (the parent's beans), and the management server's base path is its context path,
 * outside the path the filter compares.
 */
@ManagementContextConfiguration(value = ManagementContextType.CHILD, proxyBeanMethods = false)
@ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
@ConditionalOnClass(name = "org.springframework.web.server.WebFilter")
@ConditionalOnAvailableEndpoint(endpoint = PoolsEndpoint.class, exposure = EndpointExposure.WEB)
class PoolsEndpointReactiveChildContextConfiguration {

    @Bean
    PoolsEndpointBodyWebFilter poolsEndpointBodyWebFilter(ListableBeanFactory beanFactory,
            ObjectProvider<EndpointAccessResolver> access, ObjectProvider<PathMappedEndpoints> endpoints,
            Environment environment) {
        return new PoolsEndpointBodyWebFilter(PoolsEndpointAutoConfiguration.actuatorBasePath(environment),
                () -> PoolsEndpointAutoConfiguration.poolsRootPath(endpoints),
                (name) -> Pools.existsHereOrAbove(beanFactory, name),
                PoolsEndpointAutoConfiguration.writable(access));
    }

}
