package io.github.workerpool.sample;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.interactions.Actions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The dashboard in headless Chromium (Debian's {@code chromium} and {@code chromium-driver}):
 * a uPlot chart for every pool {@code /actuator/pools} lists, with a tooltip; Tune refused before
 * logging in, then the login form, a load button and Tune as ops (their POSTs carry the session
 * and the CSRF token), a POST without the token refused, and logging out. Leaves a screenshot at
 * {@code target/dashboard.png}.
 *
 * <p>Skipped when Chromium is not installed, unless {@code -Dsample.requireBrowser=true};
 * {@code .ci/run} installs it.
 */
class DashboardBrowserTests extends BrowserTestSupport {

    private static final Duration PATIENCE = Duration.ofSeconds(30);

    DashboardBrowserTests() {
        super(1400, 1900);
    }

    @Test
    void everyPoolHasAChart_andTuneNeedsTheFormLogin() throws Exception {
        TestHttp http = http();
        Set<String> listed = new TreeSet<>(http.get("/actuator/pools").json().get("pools").propertyNames());
        assertThat(listed).contains("mail", "crawler", "etl", "reports", "thumbnails", "etl-pipeline");
        int capacity = http.pool("reports").get("capacity").asInt();
        int tuned = capacity + 3;

        this.browser.get(http.base() + "/dashboard");
        WebDriverWait wait = new WebDriverWait(this.browser, PATIENCE);
        // The dashboard updates its cards on every poll: an element found a moment ago may be
        // replaced before it is read, so such a read is retried, not failed.
        wait.ignoring(StaleElementReferenceException.class);
        // A uPlot chart (its canvas) on a card for every pool the endpoint lists, each with samples.
        for (String pool : listed) {
            wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector(card(pool) + " .chart .uplot canvas")));
        }
        List<WebElement> cards = this.browser.findElements(By.cssSelector(".pool[data-pool]"));
        assertThat(cards).extracting((c) -> c.getDomAttribute("data-pool")).containsExactlyInAnyOrderElementsOf(listed);
        for (String pool : listed) {
            wait.until((d) -> samples(pool) >= 3);
        }
        assertThat(this.browser.findElements(By.cssSelector(card("mail") + " .u-axis"))).as("time, counts, rejected/s")
                .hasSize(3);

        // Not logged in: the page says so, and why Tune fails; nothing changes.
        assertThat(this.browser.findElement(By.id("who")).getText()).startsWith("not logged in");
        WebElement reports = this.browser.findElement(By.cssSelector(card("reports")));
        reports.findElement(By.cssSelector("[data-action=tune-input]")).sendKeys(Integer.toString(tuned));
        reports.findElement(By.cssSelector("[data-action=tune]")).click();
        wait.until((d) -> field(reports, "message").getText().contains("401"));
        assertThat(http.pool("reports").get("capacity").asInt()).isEqualTo(capacity);

        // Log in through the form: Spring Security's login page, then back on the dashboard.
        this.browser.findElement(By.id("log-in")).click();
        wait.until(ExpectedConditions.presenceOfElementLocated(By.name("username"))).sendKeys("ops");
        this.browser.findElement(By.name("password")).sendKeys(OPS_PASSWORD);
        this.browser.findElement(By.cssSelector("button[type=submit]")).click();
        wait.until((d) -> d.findElement(By.id("who")).getText().equals("logged in as ops (ops: tune, purge)"));
        assertThat(this.browser.manage().getCookieNamed("JSESSIONID")).as("the login lives in the session").isNotNull();

        try {
            // A load button: a POST from the logged-in page, with the token; the mail pool's chart follows.
            this.browser.findElement(By.cssSelector("[data-load^='demo/mail']")).click();
            wait.until((d) -> d.findElement(By.id("load-result")).getText().contains("\"pool\":\"mail\""));
            wait.until((d) -> Long.parseLong(field(d.findElement(By.cssSelector(card("mail"))), "completed").getText()) > 0);
            // The run lasts about a second, which a poll a second after the last may miss on a
            // loaded machine; the workers it started stay idle for the pool's expiry (30 s).
            wait.until((d) -> maxOf("mail", "running") > 0 || maxOf("mail", "idle") > 0);

            // Tune as ops: the new capacity on the card, in the pool, and on the chart's next poll.
            WebElement tunedCard = this.browser.findElement(By.cssSelector(card("reports")));
            WebElement input = tunedCard.findElement(By.cssSelector("[data-action=tune-input]"));
            input.clear();
            input.sendKeys(Integer.toString(tuned));
            tunedCard.findElement(By.cssSelector("[data-action=tune]")).click();
            wait.until((d) -> field(tunedCard, "message").getText().equals("tuned to " + tuned));
            wait.until((d) -> field(tunedCard, "capacity").getText().equals(Integer.toString(tuned)));
            assertThat(http.pool("reports").get("capacity").asInt()).isEqualTo(tuned);
            wait.until((d) -> lastOf("reports", "capacity") == tuned);

            // helper-117: the card's kind line was set once, when the card was made; a tune from
            // elsewhere (curl, Spring Boot Admin, a refresh) changes it live.
            assertThat(field(tunedCard, "kind").getText()).isEqualTo("queue 200");
            http.post("/actuator/pools/reports/tune", "{\"queueCapacity\": 300, \"nonblocking\": true}", "ops",
                    OPS_PASSWORD);
            wait.until((d) -> field(tunedCard, "kind").getText().equals("nonblocking, queue 300"));

            // The same session without the token: refused, and the answer says why.
            Map<?, ?> forged = (Map<?, ?>) this.browser.executeAsyncScript("""
                    const done = arguments[arguments.length - 1];
                    fetch('/actuator/pools/reports/purge', { method: 'POST', headers: { 'X-Requested-With': 'XMLHttpRequest' } })
                      .then(async (r) => done({ status: r.status, body: await r.text() }), (e) => done({ status: -1, body: String(e) }));
                    """);
            assertThat(forged.get("status")).isEqualTo(403L);
            assertThat((String) forged.get("body")).contains("CSRF token");

            // Point at the mail chart: the tooltip shows that second's figures.
            WebElement over = this.browser.findElement(By.cssSelector(card("mail") + " .u-over"));
            new Actions(this.browser).moveToElement(over, over.getSize().getWidth() / 2 - 20, 0).perform();
            WebElement tooltip = this.browser.findElement(By.cssSelector(card("mail") + " .chart-tooltip"));
            wait.until((d) -> tooltip.isDisplayed() && tooltip.getText().contains("running"));
            assertThat(tooltip.getText()).contains("capacity 8").contains("rejected / s");
            screenshot();

            // Log out: back to reads only, and Tune refused again.
            this.browser.findElement(By.id("log-out")).click();
            wait.until((d) -> d.findElement(By.id("who")).getText().startsWith("not logged in"));
            // Log out reloads the page: "who" can be answered before the first poll makes the cards.
            WebElement after = wait.until((d) -> d.findElement(By.cssSelector(card("reports"))));
            after.findElement(By.cssSelector("[data-action=tune-input]")).sendKeys(Integer.toString(capacity));
            after.findElement(By.cssSelector("[data-action=tune]")).click();
            wait.until((d) -> field(after, "message").getText().contains("401"));
            assertThat(http.pool("reports").get("capacity").asInt()).isEqualTo(tuned);

            // The app unreachable: the button says so (found by a review: only the console did).
            this.browser.executeScript("window.fetch = () => Promise.reject(new TypeError('Failed to fetch'));");
            WebElement down = this.browser.findElement(By.cssSelector(card("reports")));
            down.findElement(By.cssSelector("[data-action=tune]")).click();
            wait.until((d) -> field(down, "message").getText().equals("tune failed: Failed to fetch"));
        }
        finally {
            http.post("/actuator/pools/reports/tune",
                    "{\"capacity\": " + capacity + ", \"queueCapacity\": 200, \"nonblocking\": false}", "ops",
                    OPS_PASSWORD);
        }
    }

    @Test
    void runAgain_afterItsConfirm_runsTheEtlJobFromTheStart() {
        // Review helper-70: the button had no test. A run done first, through the API.
        TestHttp http = http();
        if (!http.get("/etl/progress").json().get("state").asString().equals("DONE")) {
            assertThat(http.post("/etl/start?restart=true").status()).isEqualTo(202);
            org.awaitility.Awaitility.await().atMost(PATIENCE)
                .until(() -> http.get("/etl/progress").json().get("state").asString().equals("DONE"));
        }
        double stepsBefore = pipelineSteps(http);

        this.browser.get(http.base() + "/dashboard");
        WebDriverWait wait = new WebDriverWait(this.browser, PATIENCE);
        wait.until((d) -> d.findElement(By.id("etl-state")).getText().equals("DONE"));
        WebElement runAgain = this.browser.findElement(By.id("etl-restart"));
        assertThat(runAgain.isEnabled()).as("enabled once the run is done").isTrue();
        runAgain.click();
        wait.until(ExpectedConditions.alertIsPresent()).accept();

        // Every batch through the pipeline again, from the first review.
        org.awaitility.Awaitility.await().atMost(PATIENCE).until(() -> pipelineSteps(http) >= stepsBefore
                + SampleAppTestSupport.ROWS / SampleAppTestSupport.BATCH
                && http.get("/etl/progress").json().get("state").asString().equals("DONE"));
        wait.until((d) -> d.findElement(By.id("etl-state")).getText().equals("DONE"));
        assertThat(this.browser.findElement(By.id("etl-message")).getText()).isEmpty();
        assertThat(http.get("/etl/progress").json().get("rowsDone").asLong()).isEqualTo(SampleAppTestSupport.ROWS);
    }

    @Test
    void rejectedPerSecond_isPerSecondOfTheTimeBetweenSamples() {
        // Found by a review: it was the rejections since the last poll, however long ago (a failed
        // poll, a background tab's slowed timer: 60 s read as 600 "per second").
        TestHttp http = http();
        this.browser.get(http.base() + "/dashboard");
        WebDriverWait wait = new WebDriverWait(this.browser, PATIENCE);
        wait.until((d) -> samples("mail") >= 1);
        // Two samples 60 s apart, and the rate read, in one script: no poll of the page's own
        // comes between them.
        Number rate = (Number) this.browser.executeScript("""
                const pool = { capacity: 8, running: 0, idle: 0, waiting: 0, queued: 0, rejected: 1000, completed: 0 };
                record('mail', pool, 4e9);
                record('mail', { ...pool, rejected: 1600 }, 4e9 + 60);
                const c = workerpoolDashboard.charts.get('mail');
                const i = c.plot.series.findIndex((s) => s.label === 'rejected / s');
                return c.data[i][c.data[i].length - 1];
                """);
        assertThat(rate.doubleValue()).isEqualTo(10.0);
    }

    @Test
    void aPoolThatCannotBeRead_isShownWithItsError_notGreyedAsGone() {
        // Found by a review (helper-155): /actuator/pools lists such a pool under "unreadable",
        // which the dashboard ignored: its card was greyed out as if the pool had been removed.
        this.browser.get(http().base() + "/dashboard");
        WebDriverWait wait = new WebDriverWait(this.browser, PATIENCE);
        wait.until((d) -> samples("mail") >= 1);
        // The answers rendered in one script each: no poll of the page's own comes between them.
        @SuppressWarnings("unchecked")
        Map<String, Object> unreadable = (Map<String, Object>) this.browser.executeScript("""
                const pool = { capacity: 8, running: 0, idle: 0, waiting: 0, queued: 0, rejected: 0, completed: 0 };
                render({ pools: { crawler: pool }, unreadable: { mail: 'IllegalStateException: no target' } }, 4e9);
                const card = (name) => document.querySelector(`.pool[data-pool="${name}"]`);
                const mail = card('mail');
                return { mail: mail.className, message: mail.querySelector('[data-field="message"]').textContent,
                    capacity: mail.querySelector('[data-field="capacity"]').textContent, reports: card('reports').className };
                """);
        assertThat(unreadable.get("mail")).asString().contains("unreadable").doesNotContain("gone");
        assertThat(unreadable.get("message")).isEqualTo("cannot be read: IllegalStateException: no target");
        assertThat(unreadable.get("capacity")).as("no stale figures").isEqualTo("-");
        assertThat(unreadable.get("reports")).asString().as("a pool in neither list is gone").contains("gone");
        @SuppressWarnings("unchecked")
        Map<String, Object> readable = (Map<String, Object>) this.browser.executeScript("""
                const pool = { capacity: 8, running: 0, idle: 0, waiting: 0, queued: 0, rejected: 0, completed: 0 };
                render({ pools: { mail: pool }, unreadable: {} }, 4e9 + 1);
                const mail = document.querySelector('.pool[data-pool="mail"]');
                return { mail: mail.className, message: mail.querySelector('[data-field="message"]').textContent,
                    capacity: mail.querySelector('[data-field="capacity"]').textContent };
                """);
        assertThat(readable.get("mail")).asString().doesNotContain("unreadable").doesNotContain("gone");
        assertThat(readable.get("message")).isEqualTo("");
        assertThat(readable.get("capacity")).isEqualTo("8");
    }

    /** Batches the ETL pipeline's pool has run so far, by its executor timer. */
    private static double pipelineSteps(TestHttp http) {
        return http.get("/actuator/metrics/executor?tag=name:etl-pipeline").json().get("measurements").get(0)
            .get("value").asDouble();
    }

    /** How many samples the pool's chart holds. */
    private long samples(String pool) {
        return (Long) this.browser.executeScript(
                "const c = workerpoolDashboard.charts.get(arguments[0]); return c ? c.data[0].length : 0;", pool);
    }

    /** The largest value of one of the chart's lines, over the samples it holds. */
    private long maxOf(String pool, String series) {
        return ((Number) this.browser.executeScript("""
                const c = workerpoolDashboard.charts.get(arguments[0]);
                const i = c.plot.series.findIndex((s) => s.label === arguments[1]);
                return Math.max(0, ...c.data[i].filter((v) => v != null));
                """, pool, series)).longValue();
    }

    /** The newest value of one of the chart's lines. */
    private long lastOf(String pool, String series) {
        return ((Number) this.browser.executeScript("""
                const c = workerpoolDashboard.charts.get(arguments[0]);
                const i = c.plot.series.findIndex((s) => s.label === arguments[1]);
                return c.data[i][c.data[i].length - 1];
                """, pool, series)).longValue();
    }

    private static String card(String pool) {
        return ".pool[data-pool='" + pool + "']";
    }

    private static WebElement field(WebElement card, String name) {
        return card.findElement(By.cssSelector("[data-field=" + name + "]"));
    }

    private void screenshot() throws Exception {
        this.chromium.screenshot("dashboard.png");
    }
}
