package io.github.workerpool.spring.boot.autoconfigure.web;

import org.springframework.boot.tomcat.ConfigurableTomcatWebServerFactory;
import org.springframework.boot.web.server.WebServerFactoryCustomizer;
import org.springframework.core.Ordered;

/**
 * Runs Tomcat's request processing on the web server pool: the pool becomes the executor of
 * every connector's protocol handler, as Spring Boot's own customizer does for virtual threads.
 */
final class TomcatWebServerPoolCustomizer
        implements WebServerFactoryCustomizer<ConfigurableTomcatWebServerFactory>, Ordered {

    /*
     * Ordered after Spring Boot's customizers (0, and 1 for the virtual-thread executor that
     * spring.threads.virtual.enabled sets), so that this executor is the one Tomcat keeps when
     * both are configured. Tomcat does not shut down an executor it was given: the pool stops in
     * its own lifecycle phase, after the web server.
     */

    static final int ORDER = 10;

    private final WebServerPool pool;

    TomcatWebServerPoolCustomizer(WebServerPool pool) {
        this.pool = pool;
    }

    @Override
    public void customize(ConfigurableTomcatWebServerFactory factory) {
        factory.addProtocolHandlerCustomizers((protocolHandler) -> protocolHandler.setExecutor(this.pool.executor()));
    }

    @Override
    public int getOrder() {
        return ORDER;
    }

}
