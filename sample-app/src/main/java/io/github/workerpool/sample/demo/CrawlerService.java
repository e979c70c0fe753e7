package io.github.workerpool.sample.demo;

import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeoutException;

import io.github.workerpool.TaskGroup;
import java.util.concurrent.ExecutorService;

import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.stereotype.Service;

/**
 * Crawls pages as one {@link TaskGroup} on the {@code crawler} pool: fan out, collect the results
 * in page order, and on the first failure cancel every page not yet fetched.
 */
@Service
public class CrawlerService {

    private final ExecutorService crawler;

    private final DemoProperties properties;

    CrawlerService(@Qualifier("crawler") ExecutorService crawler, DemoProperties properties) {
        this.crawler = crawler;
        this.properties = properties;
    }

    /**
     * Crawls pages 1 to {@code pages}.
     * @param pages  how many pages
     * @param failAt the page whose fetch fails (an HTTP 503), or 0 for none
     * @return what happened to the pages
     * @throws InterruptedException if interrupted while waiting for the pages
     */
    public CrawlReport crawl(int pages, int failAt) throws InterruptedException {
        long start = System.nanoTime();
        TaskGroup<String> group = TaskGroup.builder(this.crawler).failFast(true).deadline(Duration.ofSeconds(60)).build();
        int refused = 0;
        for (int page = 1; page <= pages; page++) {
            int p = page;
            try {
                group.submit(() -> fetch(p, failAt));
            }
            catch (RejectedExecutionException ex) {
                refused++; // the nonblocking pool's queue is full: the group records it as failed
            }
        }
        String error = null;
        List<String> bodies = null;
        try {
            bodies = group.awaitAll();
        }
        catch (InterruptedException ex) {
            group.cancel(); // the caller gives up: so does its work (helper-151: it ran on to the deadline)
            throw ex;
        }
        catch (ExecutionException ex) {
            error = String.valueOf(ex.getCause());
        }
        catch (TimeoutException ex) {
            error = ex.getMessage();
        }
        TaskGroup.Counts counts = group.counts();
        String sample = (bodies != null && !bodies.isEmpty()) ? bodies.get(0) : null;
        return new CrawlReport(pages, counts.succeeded(), counts.failed(), counts.cancelled(), refused, error,
                sample, (System.nanoTime() - start) / 1_000_000);
    }

    private String fetch(int page, int failAt) throws IOException, InterruptedException {
        DemoProperties.work(this.properties.getPageTime().multipliedBy(1 + page % 3));
        if (page == failAt) {
            throw new IOException("GET /page/" + page + ": HTTP 503 Service Unavailable");
        }
        return "page " + page + " fetched by " + Thread.currentThread();
    }

    /**
     * The outcome of one crawl.
     * @param pages     pages asked for
     * @param succeeded pages fetched
     * @param failed    pages that failed, refused ones included
     * @param cancelled pages cancelled by the first failure
     * @param refused   pages the crawler pool refused (queue full): a refusal fails the crawl fast, as a
     *                  page's failure does, so the pages after it are cancelled, not refused
     * @param error     the failure that stopped the crawl, if any
     * @param sample    the first page's result, naming the thread that fetched it
     * @param millis    time taken
     */
    public record CrawlReport(int pages, int succeeded, int failed, int cancelled, int refused, String error,
            String sample, long millis) {
    }
}
