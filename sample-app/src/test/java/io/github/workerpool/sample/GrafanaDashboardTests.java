package io.github.workerpool.sample;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code docs/grafana/workerpool-dashboard.json} parses, and every metric it queries is one the
 * starter exports for a configured pool of the running sample (not merely some executor's).
 */
class GrafanaDashboardTests extends SampleAppTestSupport {

    private static final Path DASHBOARD = Path.of("..", "docs", "grafana", "workerpool-dashboard.json");

    /** A metric selector in PromQL: a name directly followed by its label matchers. */
    private static final Pattern SELECTOR = Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)\\{");

    @Test
    void everyMetricTheDashboardQueriesIsExportedForTheSamplesPools() throws Exception {
        JsonNode dashboard = JsonMapper.builder().build().readTree(Files.readString(DASHBOARD));
        assertThat(dashboard.get("title").asString()).isEqualTo("workerpool");
        List<String> expressions = new ArrayList<>();
        for (JsonNode panel : dashboard.get("panels")) {
            for (JsonNode target : panel.get("targets")) {
                expressions.add(target.get("expr").asString());
            }
        }
        expressions.add(dashboard.get("templating").get("list").get(0).get("definition").asString()
                .replaceAll("label_values\\((\\w+),.*", "$1{}"));
        assertThat(expressions).hasSizeGreaterThanOrEqualTo(10);

        Set<String> queried = new TreeSet<>();
        for (String expr : expressions) {
            Matcher m = SELECTOR.matcher(expr);
            int found = 0;
            while (m.find()) {
                queried.add(m.group(1));
                found++;
            }
            assertThat(found).as("metric selectors in %s", expr).isPositive();
        }

        String scrape = http().get("/actuator/prometheus").body();
        for (String metric : queried) {
            assertThat(scrape).as("/actuator/prometheus has %s for pool mail", metric)
                    .containsPattern("(?m)^" + Pattern.quote(metric) + "\\{[^}]*name=\"mail\"");
        }
        assertThat(queried).contains("executor_pool_max_threads", "executor_active_threads", "pool_waiting_threads",
                "pool_idle_threads", "executor_queued_tasks", "pool_tasks_rejected_tasks_total",
                "executor_seconds_count", "executor_idle_seconds_max", "pool_tasks_queue_timeout_tasks_total",
                "pool_tasks_run_timeout_tasks_total");
        assertThat(scrape).as("the timers go by Micrometer's TimedExecutorService names only")
                .doesNotContain("pool_task_wait").doesNotContain("pool_task_duration");
    }
}
