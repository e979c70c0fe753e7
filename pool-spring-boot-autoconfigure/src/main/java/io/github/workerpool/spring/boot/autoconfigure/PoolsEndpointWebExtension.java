package io.github.workerpool.spring.boot.autoconfigure;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;

/**
 * The HTTP side of {@link PoolsEndpoint}: an action on an unknown pool answers 404 (it never
 * creates a pool), where the plain endpoint could only answer "no content"; and an action also
 * works without a request body ({@code curl -X POST .../purge}), which a JSON-consuming operation
 * would refuse with 415.
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
        if (result == null) {
            return new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
        }
        return new WebEndpointResponse<>(result);
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

}
