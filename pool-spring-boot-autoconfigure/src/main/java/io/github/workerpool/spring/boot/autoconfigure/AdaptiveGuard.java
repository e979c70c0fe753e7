package io.github.workerpool.spring.boot.autoconfigure;

import java.util.Arrays;

import org.jspecify.annotations.Nullable;

import io.github.workerpool.spring.boot.autoconfigure.web.WebServerPoolAutoConfiguration;
import io.github.workerpool.spring.boot.autoconfigure.web.WebServerPoolProperties;

import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.core.env.Environment;

/**
 * Refuses to switch a pool's adaptive sizing on, from the endpoint or a refresh, where startup
 * would have refused it: the web server's pool ({@code pools.web-server.pool}) sized down to no
 * more than {@code pools.web-server.reserved-threads} admits one request at a time and answers 503
 * to the rest. Startup checks this rule when the pool starts adaptive; without this, a pool
 * switched on later went there unchecked. Where the web server does not run on a pool (no servlet
 * web server, so {@code pools.web-server.pool} is not applied) startup checks nothing, and neither
 * does this.
 */
@FunctionalInterface
interface AdaptiveGuard {

    /** Allows everything. */
    AdaptiveGuard NONE = (pool, minCapacity) -> null;

    /**
     * Why adaptive sizing down to {@code minCapacity} must not be switched on for the pool, with
     * the fix; null if it may.
     */
    @Nullable String refusal(String pool, int minCapacity);

    /** The web server pool's rule, from {@code pools.web-server.*} (read at startup, as they are). */
    static AdaptiveGuard of(Environment environment, ListableBeanFactory beanFactory) {
        String webServerPool = PoolsPropertiesBinding.webServerPool(environment);
        if (webServerPool == null || webServerPool.isBlank()
                || !beanFactory.containsBeanDefinition(WebServerPoolAutoConfiguration.WEB_SERVER_POOL_BEAN_NAME)) {
            return NONE;
        }
        // Only the two properties read (a bad retry-after is not this rule's), the default the
        // properties class's own.
        int reserved = environment.getProperty("pools.web-server.reserved-threads", Integer.class,
                new WebServerPoolProperties().getReservedThreads());
        // The pool the property names as WebServerPool resolves it: the bean of that name, or the
        // one it is an alias of (another spelling of a pools.instances key). A spelling that is an
        // application bean of its own names that bean, not the starter's pool.
        return (pool, minCapacity) -> (!(pool.equals(webServerPool)
                || Arrays.asList(beanFactory.getAliases(pool)).contains(webServerPool)) || minCapacity > reserved) ? null
                : "pool '" + pool + "' runs the web server's requests (pools.web-server.pool): sized adaptively down to "
                        + minCapacity + " it would leave no thread for requests beyond the " + reserved
                        + " kept for the connector's own tasks (pools.web-server.reserved-threads). Set "
                        + PoolSettings.property(pool, "adaptive.min-capacity") + " to at least " + (reserved + 1)
                        + " first";
    }

}
