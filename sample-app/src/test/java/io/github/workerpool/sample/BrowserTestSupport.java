package io.github.workerpool.sample;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.openqa.selenium.chrome.ChromeDriver;

/**
 * A sample-app test with a headless Chromium window of its own ({@link HeadlessChromium}), opened
 * before each test (or the test skipped, when Chromium is not installed) and closed after it.
 */
abstract class BrowserTestSupport extends SampleAppTestSupport {

    private final int width;

    private final int height;

    /** The window, and its driver; set before each test. */
    HeadlessChromium chromium;

    ChromeDriver browser;

    BrowserTestSupport(int width, int height) {
        this.width = width;
        this.height = height;
    }

    @BeforeEach
    void openBrowser() throws Exception {
        this.chromium = HeadlessChromium.open(this.width, this.height);
        this.browser = this.chromium.driver();
    }

    @AfterEach
    void closeBrowser() {
        if (this.chromium != null) {
            this.chromium.close();
        }
    }

}
