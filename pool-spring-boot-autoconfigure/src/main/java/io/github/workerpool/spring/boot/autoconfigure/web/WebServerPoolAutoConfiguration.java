package io.github.workerpool.spring.boot.autoconfigure.web;

import java.util.Objects;

import jakarta.servlet.DispatcherType;
import io.github.workerpool.spring.boot.autoconfigure.PoolConfigurationException;
import io.github.workerpool.spring.boot.autoconfigure.PoolsAutoConfiguration;
import io.github.workerpool.spring.boot.autoconfigure.PoolsProperties;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication.Type;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
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
@EnableConfigurationProperties(WebServerPoolProperties.class)
@Import({ WebServerPoolAutoConfiguration.TomcatConfiguration.class,
        WebServerPoolAutoConfiguration.JettyConfiguration.class })
public final class WebServerPoolAutoConfiguration {

    /*
     * The admission filter runs right after Spring Boot's request observation filter
     * (HIGHEST_PRECEDENCE + 1), so a 503 is counted in http.server.requests, and before every
     * other filter (security, sessions), so a refused request costs next to nothing.
     */

    static final int FILTER_ORDER = Ordered.HIGHEST_PRECEDENCE + 10;

    private static final Log logger = LogFactory.getLog(WebServerPoolAutoConfiguration.class);

    @Bean
    WebServerPool poolsWebServerPool(WebServerPoolProperties properties, ListableBeanFactory beanFactory,
            PoolsProperties pools, Environment environment) {
        WebServerKind server = WebServerKind.made(beanFactory, WebServerPoolAutoConfiguration.class.getClassLoader());
        if (server == null) {
            throw new PoolConfigurationException(WebServerPool.POOL_PROPERTY, properties.getPool(),
                    "the request threads can be put on a pool when the web server is Tomcat or Jetty, and neither is "
                            + "on the classpath",
                    "Use Tomcat (spring-boot-starter-tomcat) or Jetty (spring-boot-starter-jetty), or remove "
                            + WebServerPool.POOL_PROPERTY + ".");
        }
        int maxConnections = environment.getProperty(server.maxConnectionsProperty(), Integer.class,
                server.defaultMaxConnections());
        WebServerPool pool = WebServerPool.resolve(properties, beanFactory, pools.getInstances().keySet(), server,
                maxConnections);
        logger.info(server.displayName() + "'s request threads run on pool '" + pool.name() + "' ("
                + server.threadsProperties() + " no longer apply); it admits " + pool.admissionLimit()
                + " requests at once (its capacity minus " + pool.reservedThreads() + " "
                + WebServerPool.RESERVED_PROPERTY + "), the others get a 503");
        return pool;
    }

    @Bean
    WebServerKindCheck poolsWebServerKindCheck(WebServerPool pool) {
        return new WebServerKindCheck(pool);
    }

    @Bean
    FilterRegistrationBean<AdmissionFilter> poolsWebServerAdmissionFilter(WebServerPool pool,
            WebServerPoolProperties properties, Environment environment) {
        AdmissionFilter filter = new AdmissionFilter(pool, properties.getRetryAfter(), exemptPath(environment),
                System::nanoTime);
        FilterRegistrationBean<AdmissionFilter> registration = new FilterRegistrationBean<>(filter);
        registration.setName("poolsWebServerAdmissionFilter");
        registration.setDispatcherTypes(DispatcherType.REQUEST);
        registration.setAsyncSupported(true);
        registration.setOrder(FILTER_ORDER);
        return registration;
    }

    /**
     * The actuator's base path when actuator endpoints are served by this web server, else null:
     * its requests are always admitted, so the pool can be watched and tuned while it is full.
     */
    static String exemptPath(Environment environment) {
        if (!ClassUtils.isPresent("org.springframework.boot.actuate.endpoint.annotation.Endpoint",
                WebServerPoolAutoConfiguration.class.getClassLoader())) {
            return null;
        }
        String managementPort = environment.getProperty("management.server.port");
        if (managementPort != null
                && !Objects.equals(managementPort, environment.getProperty("server.port", "8080"))) {
            return null;
        }
        String basePath = environment.getProperty("management.endpoints.web.base-path", "/actuator");
        while (basePath.endsWith("/")) {
            basePath = basePath.substring(0, basePath.length() - 1);
        }
        return basePath.isEmpty() ? null : (basePath.startsWith("/") ? basePath : "/" + basePath);
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
