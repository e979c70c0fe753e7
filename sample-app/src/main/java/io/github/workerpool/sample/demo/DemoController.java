package io.github.workerpool.sample.demo;

import java.util.List;
import java.util.Map;

import io.github.workerpool.PoolStats;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Endpoints that put load on each pool, one per way of using a pool:
 * {@code POST /demo/mail?count=500} ({@code @Async("mail")}), {@code /demo/reports} (plain
 * {@code @Async}), {@code /demo/export} ({@code TaskExecutor} by qualifier), {@code /demo/crawl}
 * ({@code TaskGroup}), {@code /demo/thumbnails} ({@code FunctionPool}). {@code GET /demo/runs}
 * shows what the load callers saw.
 */
@RestController
@RequestMapping("/demo")
class DemoController {

    private static final int MAX_COUNT = 100_000;

    private final LoadDriver driver;

    private final MailService mail;

    private final ReportService reports;

    private final ExportService exports;

    private final CrawlerService crawler;

    private final ThumbnailService thumbnails;

    DemoController(LoadDriver driver, MailService mail, ReportService reports, ExportService exports,
            CrawlerService crawler, ThumbnailService thumbnails) {
        this.driver = driver;
        this.mail = mail;
        this.reports = reports;
        this.exports = exports;
        this.crawler = crawler;
        this.thumbnails = thumbnails;
    }

    @PostMapping("/mail")
    ResponseEntity<LoadDriver.RunView> mail(@RequestParam(defaultValue = "500") int count,
            @RequestParam(defaultValue = "8") int callers) {
        check("count", count, MAX_COUNT);
        check("callers", callers, 64);
        return accepted(this.driver.start("mail", count, callers, this.mail::send));
    }

    @PostMapping("/reports")
    ResponseEntity<LoadDriver.RunView> reports(@RequestParam(defaultValue = "100") int count,
            @RequestParam(defaultValue = "4") int callers) {
        check("count", count, MAX_COUNT);
        check("callers", callers, 64);
        return accepted(this.driver.start("reports", count, callers, this.reports::render));
    }

    @PostMapping("/export")
    ResponseEntity<LoadDriver.RunView> export(@RequestParam(defaultValue = "200") int count,
            @RequestParam(defaultValue = "4") int callers) {
        check("count", count, MAX_COUNT);
        check("callers", callers, 64);
        return accepted(this.driver.start("reports", count, callers, this.exports::export));
    }

    @PostMapping("/crawl")
    CrawlerService.CrawlReport crawl(@RequestParam(defaultValue = "300") int pages,
            @RequestParam(defaultValue = "0") int failAt) throws InterruptedException {
        check("pages", pages, 10_000);
        if (failAt < 0 || failAt > pages) { // else a crawl meant to fail would quietly succeed
            throw new IllegalArgumentException("failAt must be between 0 (no failure) and pages (" + pages
                    + "), but was " + failAt);
        }
        return this.crawler.crawl(pages, failAt);
    }

    @PostMapping("/thumbnails")
    Map<String, Object> thumbnails(@RequestParam(defaultValue = "1000") int count) {
        check("count", count, MAX_COUNT);
        int accepted = this.thumbnails.make(count);
        return Map.of("pool", "thumbnails", "count", count, "accepted", accepted, "stats", this.thumbnails.stats());
    }

    @GetMapping("/thumbnails")
    PoolStats thumbnailStats() {
        return this.thumbnails.stats();
    }

    @GetMapping("/runs")
    List<LoadDriver.RunView> runs() {
        return this.driver.runs().stream().map(LoadDriver.LoadRun::view).toList();
    }

    @ExceptionHandler(IllegalArgumentException.class)
    ResponseEntity<Map<String, String>> badRequest(IllegalArgumentException ex) {
        return ResponseEntity.badRequest().body(Map.of("error", ex.getMessage()));
    }

    @ExceptionHandler(LoadDriver.Busy.class)
    ResponseEntity<Map<String, String>> busy(LoadDriver.Busy ex) {
        return ResponseEntity.status(HttpStatus.TOO_MANY_REQUESTS).body(Map.of("error", ex.getMessage()));
    }

    private static void check(String name, int value, int max) {
        if (value < 1 || value > max) {
            throw new IllegalArgumentException(name + " must be between 1 and " + max + ", but was " + value);
        }
    }

    private static ResponseEntity<LoadDriver.RunView> accepted(LoadDriver.LoadRun run) {
        return ResponseEntity.status(HttpStatus.ACCEPTED).body(run.view());
    }
}
