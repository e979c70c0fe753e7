package io.github.workerpool.sample.demo;

import java.util.concurrent.atomic.AtomicLong;

import org.springframework.scheduling.annotation.Async;
import org.springframework.stereotype.Service;

/**
 * Renders reports with a plain {@code @Async} method: it runs on {@code pools.default-pool}
 * ({@code reports} in application.yml).
 */
@Service
public class ReportService {

    private final DemoProperties properties;

    private final AtomicLong rendered = new AtomicLong();

    ReportService(DemoProperties properties) {
        this.properties = properties;
    }

    /**
     * Renders report number {@code n}, in the background.
     * @param n the report's number
     * @throws InterruptedException if the pool shuts down while rendering
     */
    @Async
    public void render(int n) throws InterruptedException {
        DemoProperties.work(this.properties.getReportTime());
        this.rendered.incrementAndGet();
    }

    /** Returns how many reports were rendered. */
    public long rendered() {
        return this.rendered.get();
    }
}
