package io.github.workerpool.sample.demo;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLong;

import io.github.workerpool.FunctionPool;
import io.github.workerpool.PoolStats;
import io.github.workerpool.WorkerPool;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.stereotype.Service;

/**
 * Makes thumbnails with a {@link FunctionPool} (ants {@code PoolWithFunc}): a pool bound to one
 * function, given only the argument of each call.
 */
@Service
public class ThumbnailService implements DisposableBean {

    private final FunctionPool<Integer> pool;

    private final AtomicLong made = new AtomicLong();

    ThumbnailService(DemoProperties properties) {
        // Nonblocking: a full pool refuses at once, and make() counts what it accepted, rather than
        // holding the web request's thread until the queue has room (minutes for a big count).
        this.pool = FunctionPool.of(WorkerPool.builder().name("thumbnails").capacity(4).queueCapacity(2_000)
                .nonblocking(true),
                (Integer image) -> {
                    try {
                        DemoProperties.work(properties.getThumbnailTime());
                        this.made.incrementAndGet();
                    }
                    catch (InterruptedException ex) {
                        Thread.currentThread().interrupt();
                    }
                });
    }

    /**
     * Queues thumbnails for images 1 to {@code count}.
     * @param count how many
     * @return how many the pool accepted
     */
    public int make(int count) {
        int accepted = 0;
        for (int image = 1; image <= count; image++) {
            try {
                this.pool.invoke(image);
                accepted++;
            }
            catch (RejectedExecutionException ex) {
                // full or closed: count it and go on, as a user of a nonblocking pool would
            }
        }
        return accepted;
    }

    /** The function pool, for the {@code thumbnails} bean that puts it on the dashboard. */
    FunctionPool<Integer> pool() {
        return this.pool;
    }

    /** Returns the function pool's counts. */
    public PoolStats stats() {
        return this.pool.stats();
    }

    /** Returns how many thumbnails were made. */
    public long made() {
        return this.made.get();
    }

    @Override
    public void destroy() {
        this.pool.close();
    }
}
