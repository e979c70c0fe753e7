package io.github.workerpool.sample;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

/**
 * The dashboard in headless Chromium (Debian's {@code chromium} and {@code chromium-driver}):
 * it shows every configured pool, a load button moves a pool's numbers, and Tune changes a pool's
 * capacity (refused without the ops login). Leaves a screenshot at
 * {@code target/dashboard.png}.
 *
 * <p>Skipped when Chromium is not installed, unless {@code -Dsample.requireBrowser=true};
 * {@code .ci/run} installs it.
 */
class DashboardBrowserTests extends SampleAppTestSupport {

    private static final File CHROMIUM = new File("/usr/bin/chromium");

    private static final File CHROMEDRIVER = new File("/usr/bin/chromedriver");

    private static final Duration PATIENCE = Duration.ofSeconds(30);

    private ChromeDriver browser;

    private Path profile;

    @BeforeEach
    void openBrowser() throws Exception {
        if (!Boolean.getBoolean("sample.requireBrowser")) {
            assumeThat(CHROMIUM.canExecute() && CHROMEDRIVER.canExecute())
                    .as("Chromium and ChromeDriver in /usr/bin (apt-get install chromium chromium-driver)").isTrue();
        }
        this.profile = Files.createTempDirectory("sample-chromium-");
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM);
        // The flags this machine's closed network needs: no background connections, fresh profile.
        options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
                "--disable-quic", "--window-size=1400,1600", "--user-data-dir=" + this.profile);
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER)
                .usingAnyFreePort().build();
        this.browser = new ChromeDriver(service, options);
    }

    @AfterEach
    void closeBrowser() {
        if (this.browser != null) {
            this.browser.quit();
        }
        if (this.profile != null) {
            this.profile.toFile().deleteOnExit();
        }
    }

    @Test
    void dashboardShowsEveryPool_andTuneChangesTheCapacity() throws Exception {
        TestHttp http = http();
        Set<String> configured = new TreeSet<>(http.get("/actuator/pools").json().get("pools").propertyNames());
        assertThat(configured).contains("mail", "crawler", "etl", "reports");
        int capacity = http.pool("reports").get("capacity").asInt();
        int tuned = capacity + 3;

        this.browser.get(http.base() + "/dashboard");
        WebDriverWait wait = new WebDriverWait(this.browser, PATIENCE);
        // The dashboard redraws its cards and charts on every poll: an element found a moment ago
        // may be replaced before it is read, so such a read is retried, not failed.
        wait.ignoring(StaleElementReferenceException.class);
        for (String pool : configured) {
            wait.until(ExpectedConditions.presenceOfElementLocated(card(pool)));
        }
        List<WebElement> cards = this.browser.findElements(By.cssSelector(".pool[data-pool]"));
        assertThat(cards).extracting((c) -> c.getDomAttribute("data-pool")).containsExactlyInAnyOrderElementsOf(configured);

        // A load button puts work on the mail pool; its card and chart follow.
        WebElement mail = this.browser.findElement(card("mail"));
        this.browser.findElement(By.cssSelector("[data-load^='/demo/mail']")).click();
        wait.until((d) -> d.findElement(By.id("load-result")).getText().contains("\"pool\":\"mail\""));
        wait.until((d) -> Long.parseLong(field(mail, "completed").getText()) > 0);
        wait.until((d) -> d.findElement(card("mail")).findElement(By.cssSelector("svg polyline.running")).getDomAttribute("points")
                .split(" ").length >= 3);

        WebElement reports = this.browser.findElement(card("reports"));
        wait.until((d) -> field(reports, "capacity").getText().equals(Integer.toString(capacity)));

        // Without the password: the page says why, nothing changes.
        reports.findElement(By.cssSelector("[data-action=tune-input]")).sendKeys(Integer.toString(tuned));
        reports.findElement(By.cssSelector("[data-action=tune]")).click();
        wait.until((d) -> field(reports, "message").getText().contains("401"));
        assertThat(http.pool("reports").get("capacity").asInt()).isEqualTo(capacity);

        // Logged in as ops: the capacity changes, on the page and in the pool.
        this.browser.findElement(By.id("ops-password")).sendKeys(OPS_PASSWORD);
        try {
            reports.findElement(By.cssSelector("[data-action=tune]")).click();
            wait.until((d) -> field(reports, "message").getText().equals("tuned to " + tuned));
            wait.until((d) -> field(reports, "capacity").getText().equals(Integer.toString(tuned)));
            assertThat(http.pool("reports").get("capacity").asInt()).isEqualTo(tuned);
            // The next poll of /actuator/pools shows the same.
            wait.until((d) -> d.findElement(By.id("status")).getText().startsWith("live"));
            screenshot();
        }
        finally {
            http.post("/actuator/pools/reports/tune", "{\"capacity\": " + capacity + "}", "ops", OPS_PASSWORD);
        }
    }

    private static By card(String pool) {
        return By.cssSelector(".pool[data-pool='" + pool + "']");
    }

    private static WebElement field(WebElement card, String name) {
        return card.findElement(By.cssSelector("[data-field=" + name + "]"));
    }

    private void screenshot() throws Exception {
        File shot = this.browser.getScreenshotAs(OutputType.FILE);
        Path target = Path.of("target", "dashboard.png");
        Files.createDirectories(target.getParent());
        Files.copy(shot.toPath(), target, StandardCopyOption.REPLACE_EXISTING);
    }
}
