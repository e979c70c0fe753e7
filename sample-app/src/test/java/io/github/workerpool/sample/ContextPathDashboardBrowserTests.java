package io.github.workerpool.sample;

import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

import org.springframework.test.context.TestPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The dashboard under a servlet context path and with the actuator at another base path, in
 * headless Chromium (helper-137): the page asked for "/actuator/pools", "/me" and "/etl/progress",
 * and the overload button's burst went to "/demo/http/slow", so every panel broke.
 */
@TestPropertySource(properties = { "server.servlet.context-path=/app", "management.endpoints.web.base-path=/manage" })
class ContextPathDashboardBrowserTests extends BrowserTestSupport {

    private static final Duration PATIENCE = Duration.ofSeconds(40);

    ContextPathDashboardBrowserTests() {
        super(1400, 1600);
    }

    @Test
    void chartsTuneAndTheOverloadButton_workUnderAContextPathAndAnotherActuatorBasePath() {
        TestHttp http = http();
        int capacity = http.get("/app/manage/pools/reports").json().get("capacity").asInt();
        int tuned = capacity + 2;

        this.browser.get(http.base() + "/app/dashboard");
        WebDriverWait wait = new WebDriverWait(this.browser, PATIENCE);
        wait.ignoring(StaleElementReferenceException.class);
        wait.until(ExpectedConditions.presenceOfElementLocated(By.cssSelector(".pool[data-pool='mail'] .chart .uplot canvas")));
        wait.until((d) -> d.findElement(By.id("status")).getText().startsWith("live"));
        wait.until((d) -> !d.findElement(By.id("etl-state")).getText().isEmpty());

        this.browser.findElement(By.id("log-in")).click();
        wait.until(ExpectedConditions.presenceOfElementLocated(By.name("username"))).sendKeys("ops");
        this.browser.findElement(By.name("password")).sendKeys(OPS_PASSWORD);
        this.browser.findElement(By.cssSelector("button[type=submit]")).click();
        wait.until((d) -> d.findElement(By.id("who")).getText().equals("logged in as ops (ops: tune, purge)"));
        try {
            WebElement card = wait.until((d) -> d.findElement(By.cssSelector(".pool[data-pool='reports']")));
            card.findElement(By.cssSelector("[data-action=tune-input]")).sendKeys(Integer.toString(tuned));
            card.findElement(By.cssSelector("[data-action=tune]")).click();
            wait.until((d) -> card.findElement(By.cssSelector("[data-field=message]")).getText()
                .equals("tuned to " + tuned));
            assertThat(http.get("/app/manage/pools/reports").json().get("capacity").asInt()).isEqualTo(tuned);

            this.browser.findElement(By.id("overload-start")).click();
            wait.until((d) -> d.findElement(By.id("overload-state")).getText().startsWith("done"));
            assertThat(this.browser.findElement(By.id("overload-result")).getText()).contains("80 / 80 answered")
                .contains("× HTTP 200");
        }
        finally {
            http.post("/app/manage/pools/reports/tune", "{\"capacity\": " + capacity + "}", "ops", OPS_PASSWORD);
        }
    }

}
