package io.github.workerpool.spring.boot.autoconfigure;

import java.util.Arrays;
import java.util.function.BiFunction;

import org.jspecify.annotations.Nullable;

import io.github.workerpool.PoolConfig;
import io.github.workerpool.spring.boot.autoconfigure.web.WebServerPoolAutoConfiguration;
import io.github.workerpool.spring.boot.autoconfigure.web.WebServerPoolProperties;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.core.env.Environment;

/**
 * Refuses a live change to the web server's pool ({@code pools.web-server.pool}), from the
 * endpoint or a refresh, that startup would have refused: adaptive sizing switched on down to no
 * more than {@code pools.web-server.reserved-threads} (it would admit one request at a time and
 * answer 503 to the rest), and options that break the server's rules (a capacity not above the
 * reserved threads, nonblocking, a queue shorter than the connections...). Without this a pool
 * changed later went there unchecked. Where the web server does not run on a pool (no servlet web
 * server, so {@code pools.web-server.pool} is not applied) startup checks nothing, and neither
 * does this.
 */
interface WebServerGuard {

    /** Allows everything. */
    WebServerGuard NONE = new WebServerGuard() {
    };

    /**
     * Why adaptive sizing down to {@code minCapacity} must not be switched on for the pool, with
     * the fix; null if it may.
     */
    default @Nullable String adaptiveRefusal(String pool, int minCapacity) {
        return null;
    }

    /** Why the pool's options must not become {@code next}, with the fix; null if they may. */
    default @Nullable String configRefusal(String pool, PoolConfig next) {
        return null;
    }

    /**
     * Why a restart with the environment's {@code pools.web-server} values would fail, judged on
     * the pools as they run now; null if it would not.
     */
    default @Nullable String restartFailure() {
        return null;
    }

    /**
     * The web server pool's rules: adaptive sizing's from {@code pools.web-server.*} (read at
     * startup, as they are), the options' from the web server's pool bean, which checks them as
     * startup did.
     */
    static WebServerGuard of(Environment environment, ListableBeanFactory beanFactory) {
        String webServerPool = PoolsPropertiesBinding.webServerPool(environment);
        if (webServerPool == null || webServerPool.isBlank()
                || !beanFactory.containsBeanDefinition(WebServerPoolAutoConfiguration.WEB_SERVER_POOL_BEAN_NAME)) {
            return NONE;
        }
        // Only the two properties read (a bad retry-after is not this rule's), the default the
        // properties class's own.
        int reserved = environment.getProperty("pools.web-server.reserved-threads", Integer.class,
                new WebServerPoolProperties().getReservedThreads());
        return new WebServerGuard() {

            @Override
            public @Nullable String adaptiveRefusal(String pool, int minCapacity) {
                // The pool the property names as WebServerPool resolves it: the bean of that name,
                // or the one it is an alias of (another spelling of a pools.instances key). A
                // spelling that is an application bean of its own names that bean, not the
                // starter's pool.
                boolean webServers = pool.equals(webServerPool)
                        || Arrays.asList(beanFactory.getAliases(pool)).contains(webServerPool);
                return (!webServers || minCapacity > reserved) ? null
                        : "pool '" + pool + "' runs the web server's requests (pools.web-server.pool): sized adaptively "
                                + "down to " + minCapacity + " it would leave no thread for requests beyond the "
                                + reserved + " kept for the connector's own tasks (pools.web-server.reserved-threads). "
                                + "Set " + PoolSettings.property(pool, "adaptive.min-capacity") + " to at least "
                                + (reserved + 1) + " first";
            }

            @Override
            @SuppressWarnings("unchecked")
            public @Nullable String configRefusal(String pool, PoolConfig next) {
                // The bean is of a class of the web package; it checks a pool's options as a
                // BiFunction (pool name, options) -> refusal or null.
                return ((BiFunction<String, PoolConfig, String>) beanFactory
                    .getBean(WebServerPoolAutoConfiguration.WEB_SERVER_POOL_BEAN_NAME)).apply(pool, next);
            }

            @Override
            public @Nullable String restartFailure() {
                return WebServerPoolAutoConfiguration.restartFailure(environment, beanFactory);
            }

        };
    }

}
