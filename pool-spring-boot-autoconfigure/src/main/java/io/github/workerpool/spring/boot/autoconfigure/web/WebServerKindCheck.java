package io.github.workerpool.spring.boot.autoconfigure.web;

import io.github.workerpool.spring.boot.autoconfigure.PoolConfigurationException;

import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.boot.web.server.servlet.ConfigurableServletWebServerFactory;
import org.springframework.core.Ordered;

/**
 * Fails startup when the servlet web server that is being made is not the one the pool was
 * checked for (Tomcat or Jetty): the admission filter would answer 503s while the requests ran on
 * the server's own threads, not on the pool.
 */
final class WebServerKindCheck implements WebServerFactoryCustomizer<ConfigurableServletWebServerFactory>, Ordered {

    /** As the server customizers'; they act on one factory, in either order. */
    static final int ORDER = 10;

    private final WebServerPool pool;

    WebServerKindCheck(WebServerPool pool) {
        this.pool = pool;
    }

    @Override
    public void customize(ConfigurableServletWebServerFactory factory) {
        WebServerKind made = WebServerKind.of(factory);
        WebServerKind checked = this.pool.server();
        if (made == null) {
            throw new PoolConfigurationException(WebServerPool.POOL_PROPERTY, this.pool.name(),
                    "the request threads can be put on a pool when the web server is Tomcat or Jetty, and this one "
                            + "is made by " + factory.getClass().getName(),
                    "Use Tomcat (spring-boot-starter-tomcat) or Jetty (spring-boot-starter-jetty), or remove "
                            + WebServerPool.POOL_PROPERTY + ".");
        }
        if (made != checked) {
            // Both servers on the classpath, and the application made the one Spring Boot does not prefer.
            throw new PoolConfigurationException(WebServerPool.POOL_PROPERTY, this.pool.name(),
                    "the pool was checked for " + checked.displayName() + ", which is on the classpath, and the web "
                            + "server is " + made.displayName() + " (made by " + factory.getClass().getName() + ")",
                    "Keep one web server on the classpath: exclude " + checked.starter() + " to use "
                            + made.displayName() + ", or remove " + WebServerPool.POOL_PROPERTY + ".");
        }
    }

    @Override
    public int getOrder() {
        return ORDER;
    }

}
