package io.github.workerpool.spring.boot.autoconfigure;

import java.nio.charset.StandardCharsets;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import java.util.function.Supplier;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.core.Ordered;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferLimitException;
import org.springframework.core.io.buffer.DataBufferUtils;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.server.PathContainer;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpRequestDecorator;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebFilter;
import org.springframework.web.server.WebFilterChain;

/**
 * {@link PoolsEndpointBodyFilter} on a reactive web server: refuses, with a 400 that names the
 * field, a {@code tune} body with a field no option has, or whose field holds an object or an
 * array (actuator drops an unknown field and applies the rest), or a query parameter that is an
 * option misspelt; and, for every action, a {@code name} or {@code action} in the body or the
 * query (it would override the path's). POSTs to {@code <endpoint>/<name>/<action>} are read,
 * matched as Spring routes them (decoded, without {@code ;parameters}; the endpoint's path as
 * {@code management.endpoints.web.path-mapping} maps it), and only while writes are allowed; a
 * pool that does not exist is a 404 as the endpoint answers it. The body is handed on unchanged.
 * Ordered last, so that a security filter chain decides first who may write.
 */
final class PoolsEndpointBodyWebFilter implements WebFilter, Ordered {

    private final TuneBody.Endpoint endpoint;

    private final Predicate<String> poolExists;

    private final BooleanSupplier writable;

    /**
     * @param actuatorPath the actuator's path within the application, such as {@code /actuator}
     *        ({@code spring.webflux.base-path} and a management server's base path are the
     *        application's context path, outside it)
     * @param endpointRoot the endpoint's path below it ({@code pools}, or its path-mapping), asked
     *        on the first request (it needs the endpoints discovered)
     * @param poolExists whether a pool of that name exists
     * @param writable whether the endpoint's writes are mapped (its access is unrestricted)
     */
    PoolsEndpointBodyWebFilter(String actuatorPath, Supplier<String> endpointRoot, Predicate<String> poolExists,
            BooleanSupplier writable) {
        this.endpoint = new TuneBody.Endpoint(actuatorPath, endpointRoot);
        this.poolExists = poolExists;
        this.writable = writable;
    }

    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }

    @Override
    public Mono<Void> filter(ServerWebExchange exchange, WebFilterChain chain) {
        ServerHttpRequest request = exchange.getRequest();
        PathContainer within = request.getPath().pathWithinApplication();
        String path = within.value();
        TuneBody.Target target = HttpMethod.POST.equals(request.getMethod()) ? this.endpoint.target(within) : null;
        if (target == null || !this.writable.getAsBoolean()) {
            return chain.filter(exchange);
        }
        return DataBufferUtils.join(request.getBody(), TuneBody.MAX_BODY).map((joined) -> {
            byte[] bytes = new byte[joined.readableByteCount()];
            joined.read(bytes);
            DataBufferUtils.release(joined);
            return bytes;
        }).defaultIfEmpty(new byte[0]).onErrorResume(DataBufferLimitException.class, (ex) -> Mono.just(TOO_LARGE))
            .flatMap((body) -> {
            if (body == TOO_LARGE) {
                return answer(exchange.getResponse(), TuneBody.tooLarge(path));
            }
            TuneBody.Refusal refusal = TuneBody.refusal(path, target, body, request.getQueryParams().keySet(),
                    this.poolExists);
            if (refusal != null) {
                return answer(exchange.getResponse(), refusal);
            }
            return chain.filter(exchange.mutate().request(new CachedBody(request, body)).build());
        });
    }

    /** Marks a body over TuneBody.MAX_BODY, which is read no further. */
    private static final byte[] TOO_LARGE = new byte[0];

    private static Mono<Void> answer(ServerHttpResponse response, TuneBody.Refusal refusal) {
        response.setStatusCode(HttpStatus.valueOf(refusal.status()));
        response.getHeaders().setContentType(MediaType.APPLICATION_JSON);
        byte[] json = refusal.json().getBytes(StandardCharsets.UTF_8);
        return response.writeWith(Mono.fromSupplier(() -> response.bufferFactory().wrap(json)));
    }

    /** The request with its body read once and served again (to each subscriber). */
    private static final class CachedBody extends ServerHttpRequestDecorator {

        private final byte[] body;

        private final HttpHeaders headers;

        /** A request sent without a body is handed on with TuneBody.EMPTY_OBJECT, as JSON. */
        CachedBody(ServerHttpRequest request, byte[] body) {
            super(request);
            if (body.length == 0) {
                this.body = TuneBody.EMPTY_OBJECT;
                HttpHeaders headers = new HttpHeaders();
                headers.addAll(request.getHeaders());
                headers.setContentType(MediaType.APPLICATION_JSON);
                headers.setContentLength(this.body.length);
                this.headers = HttpHeaders.readOnlyHttpHeaders(headers);
            }
            else {
                this.body = body;
                this.headers = request.getHeaders();
            }
        }

        @Override
        public HttpHeaders getHeaders() {
            return this.headers;
        }

        @Override
        public Flux<DataBuffer> getBody() {
            return Flux.defer(() -> Flux.just(org.springframework.core.io.buffer.DefaultDataBufferFactory.sharedInstance
                    .wrap(this.body)));
        }

    }

}
