package io.github.workerpool.sample;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

import org.openqa.selenium.OutputType;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

import static org.assertj.core.api.Assumptions.assumeThat;

/**
 * Debian's Chromium, headless, driven through its ChromeDriver, with a fresh profile that is
 * deleted on exit. The browser tests skip when Chromium is not installed, unless
 * {@code -Dsample.requireBrowser=true} or {@code SAMPLE_REQUIRE_BROWSER=true} (CI), where its
 * absence fails them.
 */
final class HeadlessChromium implements AutoCloseable {

    private static final File CHROMIUM = new File("/usr/bin/chromium");

    private static final File CHROMEDRIVER = new File("/usr/bin/chromedriver");

    private final ChromeDriver driver;

    private final Path profile;

    private HeadlessChromium(ChromeDriver driver, Path profile) {
        this.driver = driver;
        this.profile = profile;
    }

    /**
     * Whether a missing browser fails the browser tests instead of skipping them: with
     * {@code -Dsample.requireBrowser=true}, or the environment variable
     * {@code SAMPLE_REQUIRE_BROWSER=true}, which {@code .ci/run} sets (it runs the README's test
     * command as it is, and installs Chromium first: a test that skipped there proved nothing).
     */
    static boolean required() {
        return Boolean.getBoolean("sample.requireBrowser") || "true".equalsIgnoreCase(System.getenv("SAMPLE_REQUIRE_BROWSER"));
    }

    /** Opens a window of the given size; call from a {@code @BeforeEach} (it may skip the test). */
    static HeadlessChromium open(int width, int height) throws IOException {
        if (!required()) {
            assumeThat(CHROMIUM.canExecute() && CHROMEDRIVER.canExecute())
                    .as("Chromium and ChromeDriver in /usr/bin (apt-get install chromium chromium-driver)").isTrue();
        }
        Path profile = Files.createTempDirectory("sample-chromium-");
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM);
        // The flags this machine's closed network needs: no background connections, fresh profile.
        options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
                "--disable-quic", "--window-size=" + width + "," + height, "--user-data-dir=" + profile);
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER)
                .usingAnyFreePort().build();
        return new HeadlessChromium(new ChromeDriver(service, options), profile);
    }

    ChromeDriver driver() {
        return this.driver;
    }

    /** Saves what the window shows to {@code target/<name>}. */
    void screenshot(String name) throws IOException {
        File shot = this.driver.getScreenshotAs(OutputType.FILE);
        Path target = Path.of("target", name);
        Files.createDirectories(target.getParent());
        Files.copy(shot.toPath(), target, StandardCopyOption.REPLACE_EXISTING);
    }

    @Override
    public void close() {
        this.driver.quit();
        this.profile.toFile().deleteOnExit();
    }

}
