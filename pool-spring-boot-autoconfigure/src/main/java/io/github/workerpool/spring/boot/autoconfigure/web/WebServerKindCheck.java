package io.github.workerpool.spring.boot.autoconfigure.web;

import io.github.workerpool.spring.boot.autoconfigure.PoolConfigurationException;

import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.boot.web.server.servlet.ConfigurableServletWebServerFactory;
import org.springframework.core.Ordered;
import org.springframework.util.ClassUtils;

/**
 * Fails startup when the servlet web server that is being made is not Tomcat: the admission
 * filter would answer 503s while the requests ran on the server's own threads, not on the pool.
 */
final class WebServerKindCheck implements WebServerFactoryCustomizer<ConfigurableServletWebServerFactory>, Ordered {

    /** As the Tomcat customizer's; the two act on one factory, in either order. */
    static final int ORDER = 10;

    static final String TOMCAT_FACTORY_CLASS = "org.springframework.boot.tomcat.ConfigurableTomcatWebServerFactory";

    private final WebServerPool pool;

    WebServerKindCheck(WebServerPool pool) {
        this.pool = pool;
    }

    @Override
    public void customize(ConfigurableServletWebServerFactory factory) {
        ClassLoader classLoader = factory.getClass().getClassLoader();
        if (!ClassUtils.isPresent(TOMCAT_FACTORY_CLASS, classLoader)
                || !ClassUtils.resolveClassName(TOMCAT_FACTORY_CLASS, classLoader).isInstance(factory)) {
            throw new PoolConfigurationException(WebServerPool.POOL_PROPERTY, this.pool.name(),
                    "the request threads can be put on a pool when the web server is Tomcat, and this one is made by "
                            + factory.getClass().getName(),
                    "Use Tomcat (spring-boot-starter-tomcat), or remove " + WebServerPool.POOL_PROPERTY + ".");
        }
    }

    @Override
    public int getOrder() {
        return ORDER;
    }

}
