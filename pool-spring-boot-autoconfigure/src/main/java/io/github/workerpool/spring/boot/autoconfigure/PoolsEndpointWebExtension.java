package io.github.workerpool.spring.boot.autoconfigure;

import java.util.LinkedHashMap;
import java.util.Map;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;

/**
 * The HTTP side of {@link PoolsEndpoint}: an unknown pool answers 404 with a message naming it
 * (an action never creates a pool), where the plain endpoint could only answer "no content" or an
 * empty 404; and an action also works without a request body ({@code curl -X POST .../purge}),
 * which a JSON-consuming operation would refuse with 415.
 */
@EndpointWebExtension(endpoint = PoolsEndpoint.class)
public class PoolsEndpointWebExtension {

    private final PoolsEndpoint delegate;

    /**
     * Creates the extension.
     * @param delegate the endpoint it extends
     */
    public PoolsEndpointWebExtension(PoolsEndpoint delegate) {
        this.delegate = delegate;
    }

    /**
     * Returns one pool; see {@link PoolsEndpoint#pool}.
     * @param name the pool's bean name
     * @return the pool, or a 404 naming the pool if there is none of that name
     */
    @ReadOperation
    public WebEndpointResponse<Object> pool(@Selector String name) {
        Object pool = this.delegate.pool(name);
        return (pool != null) ? new WebEndpointResponse<>(pool) : notFound(name);
    }

    /**
     * Runs {@code tune} or {@code purge} on one pool; see {@link PoolsEndpoint#action}.
     * @param name the pool's bean name
     * @param action {@code tune} or {@code purge}
     * @param capacity the new capacity for {@code tune}
     * @return the action's result, or a 404 if there is no pool of that name
     */
    @WriteOperation
    public WebEndpointResponse<Object> action(@Selector String name, @Selector String action,
            @Nullable Object capacity) {
        Object result = this.delegate.action(name, action, capacity);
        return (result != null) ? new WebEndpointResponse<>(result) : notFound(name);
    }

    /**
     * Runs an action sent without a body: {@code purge}, or a {@code tune} that is then refused
     * for its missing capacity.
     * @param name the pool's bean name
     * @param action {@code tune} or {@code purge}
     * @return the action's result, or a 404 if there is no pool of that name
     */
    @WriteOperation
    public WebEndpointResponse<Object> actionWithoutBody(@Selector String name, @Selector String action) {
        return action(name, action, null);
    }

    /** A 404 whose body says which pool is missing, shaped like Spring Boot's error answers. */
    private static WebEndpointResponse<Object> notFound(String name) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("status", WebEndpointResponse.STATUS_NOT_FOUND);
        body.put("error", "Not Found");
        body.put("message", "No pool named '" + name + "'");
        return new WebEndpointResponse<>(body, WebEndpointResponse.STATUS_NOT_FOUND);
    }

}
