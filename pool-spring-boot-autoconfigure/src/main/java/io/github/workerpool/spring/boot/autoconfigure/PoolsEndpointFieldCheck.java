package io.github.workerpool.spring.boot.autoconfigure;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

import org.springframework.boot.actuate.endpoint.EndpointId;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationType;
import org.springframework.boot.actuate.endpoint.invoke.OperationInvoker;
import org.springframework.boot.actuate.endpoint.invoke.OperationInvokerAdvisor;
import org.springframework.boot.actuate.endpoint.invoke.OperationParameter;
import org.springframework.boot.actuate.endpoint.invoke.OperationParameters;

/**
 * Refuses a write to {@code /actuator/pools} that carries a field no option has, such as
 * {@code {"capacty": 50}}, with a 400 naming it and the option it most likely meant: actuator
 * binds a body's fields to the operation's parameters by name and drops the others, so the typo
 * was ignored and the rest applied, where a misspelt property is refused. Over HTTP on MVC and
 * WebFlux alike; a JMX client cannot send a name the operation does not declare. A request for a
 * pool that does not exist goes on, to its 404.
 */
final class PoolsEndpointFieldCheck implements OperationInvokerAdvisor {

    private static final EndpointId POOLS = EndpointId.of("pools");

    private final Predicate<String> poolExists;

    /**
     * @param poolExists whether a pool of that name exists (looked up at each refused request)
     */
    PoolsEndpointFieldCheck(Predicate<String> poolExists) {
        this.poolExists = poolExists;
    }

    @Override
    public OperationInvoker apply(EndpointId endpointId, OperationType operationType, OperationParameters parameters,
            OperationInvoker invoker) {
        if (!POOLS.equals(endpointId) || operationType != OperationType.WRITE) {
            return invoker;
        }
        Set<String> declared = new HashSet<>();
        for (OperationParameter parameter : parameters) {
            declared.add(parameter.getName());
        }
        return (context) -> {
            List<String> unknown = new ArrayList<>();
            for (String argument : context.getArguments().keySet()) {
                if (!declared.contains(argument)) {
                    unknown.add(argument);
                }
            }
            Object name = context.getArguments().get("name");
            if (!unknown.isEmpty() && name != null && this.poolExists.test(name.toString())) {
                String message = message(name.toString(), String.valueOf(context.getArguments().get("action")),
                        unknown.get(0));
                throw new InvalidEndpointRequestException(message, message);
            }
            return invoker.invoke(context);
        };
    }

    private static String message(String pool, String action, String field) {
        if (!"tune".equals(action)) {
            return "Cannot " + action + " pool '" + pool + "': " + action + " takes no fields, but was sent " + field;
        }
        List<String> options = new ArrayList<>();
        for (PoolOption option : PoolOption.values()) {
            options.add(option.field());
        }
        options.add("adaptive");
        String meant = PoolsPropertiesBinding.closest(field, options);
        return "Cannot tune pool '" + pool + "': " + field + " is no option of a pool"
                + ((meant != null) ? "; did you mean " + meant + "?" : "") + " Live options: "
                + PoolsEndpoint.liveFields() + ", adaptive; nothing was changed";
    }

}
