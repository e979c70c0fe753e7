package io.github.workerpool.spring.boot.autoconfigure.web;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.util.ClassUtils;

/**
 * The servlet web servers whose request processing can run on a named pool, with what the
 * startup checks and their messages need to know of each.
 */
enum WebServerKind {

    /** Tomcat: the pool is the protocol handler's executor. */
    TOMCAT("Tomcat", "org.apache.catalina.startup.Tomcat",
            "org.springframework.boot.tomcat.ConfigurableTomcatWebServerFactory", "server.tomcat.max-connections",
            8192, "poller", "server.tomcat.threads.*", "spring-boot-starter-tomcat"),

    /** Jetty: the pool is the server's ThreadPool (acceptors and selectors keep their own threads). */
    JETTY("Jetty", "org.eclipse.jetty.server.Server",
            "org.springframework.boot.jetty.ConfigurableJettyWebServerFactory", "server.jetty.max-connections", -1,
            "selector", "server.jetty.threads.*", "spring-boot-starter-jetty");

    static final String SERVLET_FACTORY_CLASS = "org.springframework.boot.web.server.servlet.ServletWebServerFactory";

    private final String displayName;

    private final String serverClass;

    private final String factoryClass;

    private final String maxConnectionsProperty;

    private final int defaultMaxConnections;

    private final String dispatcher;

    private final String threadsProperties;

    private final String starter;

    WebServerKind(String displayName, String serverClass, String factoryClass, String maxConnectionsProperty,
            int defaultMaxConnections, String dispatcher, String threadsProperties, String starter) {
        this.displayName = displayName;
        this.serverClass = serverClass;
        this.factoryClass = factoryClass;
        this.maxConnectionsProperty = maxConnectionsProperty;
        this.defaultMaxConnections = defaultMaxConnections;
        this.dispatcher = dispatcher;
        this.threadsProperties = threadsProperties;
        this.starter = starter;
    }

    /** "Tomcat" or "Jetty". */
    String displayName() {
        return this.displayName;
    }

    /** A class that is on the classpath when the server is. */
    String serverClass() {
        return this.serverClass;
    }

    /** The interface of Spring Boot's factories of this server. */
    String factoryClass() {
        return this.factoryClass;
    }

    /** The property that limits the connections the server keeps open. */
    String maxConnectionsProperty() {
        return this.maxConnectionsProperty;
    }

    /** Spring Boot's default of {@link #maxConnectionsProperty()}; -1 for no limit. */
    int defaultMaxConnections() {
        return this.defaultMaxConnections;
    }

    /** The server's thread that hands socket events to the executor: Tomcat's poller, Jetty's selector. */
    String dispatcher() {
        return this.dispatcher;
    }

    /** Spring Boot's properties of the server's own threads, which no longer apply. */
    String threadsProperties() {
        return this.threadsProperties;
    }

    /** The starter that brings the server. */
    String starter() {
        return this.starter;
    }

    /**
     * The server the application's servlet web server factory bean makes, read from its bean
     * definition without making it; else the first of these on the classpath; null for none.
     */
    static WebServerKind made(ListableBeanFactory beanFactory, ClassLoader classLoader) {
        if (ClassUtils.isPresent(SERVLET_FACTORY_CLASS, classLoader)) {
            Class<?> servletFactory = ClassUtils.resolveClassName(SERVLET_FACTORY_CLASS, classLoader);
            for (String name : beanFactory.getBeanNamesForType(servletFactory, false, false)) {
                Class<?> type = beanFactory.getType(name, false);
                for (WebServerKind kind : values()) {
                    if (type != null && ClassUtils.isPresent(kind.factoryClass, classLoader)
                            && ClassUtils.resolveClassName(kind.factoryClass, classLoader).isAssignableFrom(type)) {
                        return kind;
                    }
                }
            }
        }
        return onClasspath(classLoader);
    }

    /** The first of these servers on the classpath; null for none. */
    static WebServerKind onClasspath(ClassLoader classLoader) {
        for (WebServerKind kind : values()) {
            if (ClassUtils.isPresent(kind.serverClass, classLoader)
                    && ClassUtils.isPresent(kind.factoryClass, classLoader)) {
                return kind;
            }
        }
        return null;
    }

    /** The server a factory makes; null for another one. */
    static WebServerKind of(Object factory) {
        ClassLoader classLoader = factory.getClass().getClassLoader();
        for (WebServerKind kind : values()) {
            if (ClassUtils.isPresent(kind.factoryClass, classLoader)
                    && ClassUtils.resolveClassName(kind.factoryClass, classLoader)
                        .isInstance(factory)) {
                return kind;
            }
        }
        return null;
    }

}
