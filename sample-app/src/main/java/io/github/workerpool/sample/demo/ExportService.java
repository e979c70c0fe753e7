package io.github.workerpool.sample.demo;

import java.util.concurrent.atomic.AtomicLong;

import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.core.task.TaskExecutor;
import org.springframework.stereotype.Service;

/**
 * Writes exports through a Spring {@link TaskExecutor} injected by qualifier: the
 * {@code reports} pool's bean is also a {@code TaskExecutor}, so no workerpool type appears here.
 */
@Service
public class ExportService {

    private final TaskExecutor executor;

    private final DemoProperties properties;

    private final AtomicLong written = new AtomicLong();

    ExportService(@Qualifier("reports") TaskExecutor executor, DemoProperties properties) {
        this.executor = executor;
        this.properties = properties;
    }

    /**
     * Queues export number {@code n}.
     * @param n the export's number
     * @throws org.springframework.core.task.TaskRejectedException if the pool refuses it
     */
    public void export(int n) {
        this.executor.execute(() -> {
            try {
                DemoProperties.work(this.properties.getExportTime());
                this.written.incrementAndGet();
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        });
    }

    /** Returns how many exports were written. */
    public long written() {
        return this.written.get();
    }
}
