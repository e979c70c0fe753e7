package io.github.workerpool.sample;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

/**
 * The dashboard's overload button (static/overload.js) in headless Chromium: it overloads the web
 * server's pool {@code http} and the page shows the 200s and the 503s. Skipped when Chromium is
 * not installed, unless {@code -Dsample.requireBrowser=true}. Leaves a screenshot at
 * {@code target/overload.png}.
 */
class OverloadButtonBrowserTests extends SampleAppTestSupport {

    private static final File CHROMIUM = new File("/usr/bin/chromium");

    private static final File CHROMEDRIVER = new File("/usr/bin/chromedriver");

    private ChromeDriver browser;

    private Path profile;

    @BeforeEach
    void openBrowser() throws Exception {
        if (!Boolean.getBoolean("sample.requireBrowser")) {
            assumeThat(CHROMIUM.canExecute() && CHROMEDRIVER.canExecute())
                .as("Chromium and ChromeDriver in /usr/bin (apt-get install chromium chromium-driver)")
                .isTrue();
        }
        this.profile = Files.createTempDirectory("sample-chromium-");
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM);
        options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
                "--disable-quic", "--window-size=1400,1600", "--user-data-dir=" + this.profile);
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER)
            .usingAnyFreePort()
            .build();
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
    void overloadButtonShowsThe200sAndThe503s() throws Exception {
        this.browser.get(http().base() + "/");
        WebDriverWait wait = new WebDriverWait(this.browser, Duration.ofSeconds(40));
        wait.until((d) -> d.findElement(By.id("overload-start")).isDisplayed());
        this.browser.findElement(By.id("overload-start")).click();
        wait.until((d) -> d.findElement(By.id("overload-state")).getText().startsWith("done"));
        String result = this.browser.findElement(By.id("overload-result")).getText();
        assertThat(result).contains("80 / 80 answered")
            .contains("× HTTP 200")
            .contains("× HTTP 503")
            .contains("Retry-After: 1 s")
            .containsPattern("served on \\d+ thread\\(s\\): http-\\d+");
        File shot = this.browser.getScreenshotAs(OutputType.FILE);
        Path target = Path.of("target", "overload.png");
        Files.createDirectories(target.getParent());
        Files.copy(shot.toPath(), target, StandardCopyOption.REPLACE_EXISTING);
    }

}
