package io.github.workerpool.sample.demo;

import java.time.Duration;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Simulated latencies of the demo services, bound from {@code sample.demo}.
 */
@ConfigurationProperties("sample.demo")
public class DemoProperties {

    /** Time to send one mail. */
    private Duration mailTime = Duration.ofMillis(100);

    /** Time to render one report. */
    private Duration reportTime = Duration.ofMillis(200);

    /** Time to write one export. */
    private Duration exportTime = Duration.ofMillis(50);

    /** Time to fetch one page (each page takes one to three times this). */
    private Duration pageTime = Duration.ofMillis(30);

    /** Time to make one thumbnail. */
    private Duration thumbnailTime = Duration.ofMillis(10);

    public Duration getMailTime() {
        return this.mailTime;
    }

    public void setMailTime(Duration mailTime) {
        this.mailTime = mailTime;
    }

    public Duration getReportTime() {
        return this.reportTime;
    }

    public void setReportTime(Duration reportTime) {
        this.reportTime = reportTime;
    }

    public Duration getExportTime() {
        return this.exportTime;
    }

    public void setExportTime(Duration exportTime) {
        this.exportTime = exportTime;
    }

    public Duration getPageTime() {
        return this.pageTime;
    }

    public void setPageTime(Duration pageTime) {
        this.pageTime = pageTime;
    }

    public Duration getThumbnailTime() {
        return this.thumbnailTime;
    }

    public void setThumbnailTime(Duration thumbnailTime) {
        this.thumbnailTime = thumbnailTime;
    }

    /** Sleeps for {@code d}: the simulated I/O of a demo task. */
    static void work(Duration d) throws InterruptedException {
        Thread.sleep(d.toMillis());
    }
}
