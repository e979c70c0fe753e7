package io.github.workerpool.sample.demo;

import java.util.concurrent.CompletableFuture;

import org.springframework.scheduling.annotation.Async;
import org.springframework.stereotype.Service;

/**
 * Sends mail on the {@code mail} pool: {@code @Async("mail")} returning a
 * {@link CompletableFuture}. The caller blocks while the pool and its queue are full, and is
 * rejected when {@code max-blocking-tasks} callers already wait.
 */
@Service
public class MailService {

    private final DemoProperties properties;

    MailService(DemoProperties properties) {
        this.properties = properties;
    }

    /**
     * Sends mail number {@code n}.
     * @param n the mail's number
     * @return a receipt naming the worker thread
     * @throws InterruptedException if the pool shuts down while sending
     */
    @Async("mail")
    public CompletableFuture<String> send(int n) throws InterruptedException {
        DemoProperties.work(this.properties.getMailTime());
        return CompletableFuture.completedFuture("mail " + n + " sent by " + Thread.currentThread().getName());
    }
}
