package io.github.workerpool.spring.boot.autoconfigure;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.SecurityContext;
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

    private static final Log logger = LogFactory.getLog(PoolsEndpointWebExtension.class);

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
     * @return the pool, a 404 naming the pool if there is none of that name, or a 503 with the
     *         error if it cannot be read
     */
    @ReadOperation
    public WebEndpointResponse<Object> pool(@Selector String name) {
        Object pool;
        try {
            pool = this.delegate.pool(name);
        }
        catch (RuntimeException ex) {
            // Its stats() threw (a refresh-scoped bean that could not be rebuilt): said, where Boot's
            // default 500 body leaves the message out.
            return error(503, "Service Unavailable", "Pool '" + name + "' could not be read: " + ex);
        }
        return (pool != null) ? new WebEndpointResponse<>(pool) : notFound(name);
    }

    /**
     * Runs {@code tune} or {@code purge} on one pool; see {@link PoolsEndpoint#action}.
     * @param name the pool's bean name
     * @param action {@code tune} or {@code purge}
     * @param capacity most tasks that may run at once
     * @param queueCapacity tasks held while every worker is busy
     * @param expiry idle worker lifetime
     * @param disablePurge whether idle workers never expire
     * @param nonblocking whether a full pool rejects at once
     * @param maxBlockingTasks most callers that may wait
     * @param blockingTimeout longest a caller waits
     * @param queueTimeout submit-to-start time beyond which a task is reported
     * @param runTimeout run time beyond which a task is reported
     * @param preAlloc refused: fixed when the pool is built
     * @param virtualThreads refused: fixed when the pool is built
     * @param adaptive true or false: switches adaptive capacity on or off
     * @param securityContext who asks, for the audit
     * @return the action's result, a 404 if there is no pool of that name, or a 503 with the error
     *         if it cannot be reached
     */
    @WriteOperation
    public WebEndpointResponse<Object> action(@Selector String name, @Selector String action,
            @Nullable Object capacity, @Nullable Object queueCapacity, @Nullable Object expiry,
            @Nullable Object disablePurge, @Nullable Object nonblocking, @Nullable Object maxBlockingTasks,
            @Nullable Object blockingTimeout, @Nullable Object queueTimeout, @Nullable Object runTimeout,
            @Nullable Object preAlloc, @Nullable Object virtualThreads, @Nullable Object adaptive,
            SecurityContext securityContext) {
        return answer(name, action, () -> this.delegate.action(name, action, capacity, queueCapacity, expiry, disablePurge,
                nonblocking, maxBlockingTasks, blockingTimeout, queueTimeout, runTimeout, preAlloc, virtualThreads,
                adaptive, securityContext));
    }

    /**
     * Runs an action sent without a body: {@code purge}, or a {@code tune} that is then refused
     * for having nothing to change. (An operation with a {@link SecurityContext} parameter takes a
     * body, so the principal is read from Spring Security, when it is there.)
     * @param name the pool's bean name
     * @param action {@code tune} or {@code purge}
     * @return the action's result, or a 404 if there is no pool of that name
     */
    @WriteOperation
    public WebEndpointResponse<Object> actionWithoutBody(@Selector String name, @Selector String action) {
        return answer(name, action, () -> this.delegate.action(name, action, new java.util.EnumMap<>(PoolOption.class),
                SpringSecurityPrincipal.current()));
    }

    /** The name of Spring Security's current principal, if Spring Security is on the classpath. */
    private static final class SpringSecurityPrincipal {

        private static final boolean PRESENT = org.springframework.util.ClassUtils.isPresent(
                "org.springframework.security.core.context.SecurityContextHolder",
                PoolsEndpointWebExtension.class.getClassLoader());

        static String current() {
            String name = PRESENT ? Holder.name() : null;
            return (name != null) ? name : "anonymous";
        }

        /** Loaded only when Spring Security is on the classpath. */
        private static final class Holder {

            static @Nullable String name() {
                org.springframework.security.core.Authentication authentication =
                        org.springframework.security.core.context.SecurityContextHolder.getContext().getAuthentication();
                return (authentication != null) ? authentication.getName() : null;
            }

        }

    }

    /**
     * The action's result; a 404 naming the pool if there is none; a 400 with the reason if
     * refused; a 503 with the error if the pool cannot be reached.
     */
    private static WebEndpointResponse<Object> answer(String name, String action, Supplier<Object> run) {
        Object result;
        try {
            result = run.get();
        }
        catch (InvalidEndpointRequestException ex) {
            return badRequest(ex);
        }
        catch (PoolsEndpoint.PoolUnreachableException ex) {
            // A refresh-scoped pool whose target could not be rebuilt: said, as its GET says it,
            // where Boot's default 500 body leaves the message out. Logged: a write that failed is
            // rare and someone will ask why.
            logger.warn("Pool '" + name + "': " + action + " refused", ex);
            return error(503, "Service Unavailable", ex.getMessage());
        }
        return (result != null) ? new WebEndpointResponse<>(result) : notFound(name);
    }

    /**
     * A 400 whose body says what is wrong and how to fix it, shaped like Spring Boot's error
     * answers. Thrown, the reason would reach the client only with
     * {@code spring.web.error.include-message=always}: Boot's default leaves it out.
     */
    private static WebEndpointResponse<Object> badRequest(InvalidEndpointRequestException ex) {
        return error(WebEndpointResponse.STATUS_BAD_REQUEST, "Bad Request", ex.getReason());
    }

    /** A 404 whose body says which pool is missing, shaped like Spring Boot's error answers. */
    private static WebEndpointResponse<Object> notFound(String name) {
        return error(WebEndpointResponse.STATUS_NOT_FOUND, "Not Found", "No pool named '" + name + "'");
    }

    /** An answer of {@code status} whose body is shaped like Spring Boot's error answers. */
    private static WebEndpointResponse<Object> error(int status, String error, String message) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("status", status);
        body.put("error", error);
        body.put("message", message);
        return new WebEndpointResponse<>(body, status);
    }

}
