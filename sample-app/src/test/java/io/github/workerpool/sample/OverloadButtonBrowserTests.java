package io.github.workerpool.sample;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.support.ui.WebDriverWait;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The dashboard's overload button (static/overload.js) in headless Chromium: it overloads the web
 * server's pool {@code http} and the page shows the 200s and the 503s. Skipped when Chromium is
 * not installed, unless {@code -Dsample.requireBrowser=true}. Leaves a screenshot at
 * {@code target/overload.png}.
 */
class OverloadButtonBrowserTests extends BrowserTestSupport {

    OverloadButtonBrowserTests() {
        super(1400, 1600);
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
        this.chromium.screenshot("overload.png");
    }

}
