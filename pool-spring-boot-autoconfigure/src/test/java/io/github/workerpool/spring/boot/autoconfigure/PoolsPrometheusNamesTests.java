package io.github.workerpool.spring.boot.autoconfigure;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.jayway.jsonpath.JsonPath;
import io.github.workerpool.spring.boot.autoconfigure.event.PoolEventsAutoConfiguration;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.prometheus.PrometheusMetricsExportAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The meters as Prometheus scrapes them, from a context with Spring Boot's Prometheus export:
 * their exact names, and that every metric the shipped alerting rules
 * ({@code docs/prometheus/workerpool-alerts.yml}) and the Grafana board
 * ({@code docs/grafana/workerpool-dashboard.json}) query is in the scrape for a configured pool.
 * Also checks the rules' shape and that their promtool tests see each alert fire and stay quiet.
 */
class PoolsPrometheusNamesTests {

    private static final Path PROMETHEUS = Path.of("..", "docs", "prometheus");

    private static final Path RULES = PROMETHEUS.resolve("workerpool-alerts.yml");

    private static final Path RULE_TESTS = PROMETHEUS.resolve("workerpool-alerts.test.yml");

    private static final Path BOARD = Path.of("..", "docs", "grafana", "workerpool-dashboard.json");

    /** Every metric exported for a pool, as the README's Meters table and pool.events make it. */
    private static final Set<String> EXPORTED = new TreeSet<>(List.of("executor_pool_max_threads",
            "executor_pool_size_threads", "executor_active_threads", "executor_queued_tasks",
            "executor_queue_remaining_tasks", "executor_completed_tasks_total", "pool_waiting_threads",
            "pool_idle_threads", "pool_tasks_rejected_tasks_total", "pool_tasks_failed_tasks_total",
            "pool_tasks_cancelled_tasks_total", "pool_tasks_queue_timeout_tasks_total",
            "pool_tasks_run_timeout_tasks_total", "executor_seconds_count", "executor_seconds_sum",
            "executor_seconds_max", "executor_idle_seconds_count", "executor_idle_seconds_sum",
            "executor_idle_seconds_max", "pool_events_total"));

    /** PromQL words that are not metric names. */
    private static final Set<String> KEYWORDS = Set.of("and", "or", "unless", "by", "without", "on", "ignoring",
            "group_left", "group_right", "bool", "offset", "inf", "nan");

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(PoolsAutoConfiguration.class, PoolsMetricsAutoConfiguration.class,
                PoolEventsAutoConfiguration.class, MetricsAutoConfiguration.class,
                CompositeMeterRegistryAutoConfiguration.class, PrometheusMetricsExportAutoConfiguration.class))
        .withPropertyValues("pools.instances.mail.capacity=2", "pools.instances.mail.queue-capacity=10");

    @Test
    void theMetersOfAPoolAreExportedUnderTheseNames() {
        this.runner.run((context) -> assertThat(exported(context.getBean(PrometheusMeterRegistry.class), "mail"))
            .isEqualTo(EXPORTED));
    }

    @Test
    void everyMetricTheAlertRulesQueryIsExportedForAPool() throws Exception {
        List<Map<String, Object>> rules = rules();
        Set<String> queried = new TreeSet<>();
        rules.forEach((rule) -> queried.addAll(metricNames((String) rule.get("expr"))));
        assertThat(queried).contains("executor_active_threads", "executor_pool_max_threads", "pool_waiting_threads",
                "pool_tasks_rejected_tasks_total", "pool_tasks_queue_timeout_tasks_total",
                "pool_tasks_run_timeout_tasks_total", "pool_events_total", "up");
        queried.remove("up"); // Prometheus' own, per target (WorkerPoolDown keeps to targets still up)
        // The web server's pool's 503s: exported with a web server only, under this name
        // (WebServerPoolIntegrationTests reads it in a real Tomcat's scrape).
        assertThat(queried.remove("pool_requests_refused_total")).isTrue();
        this.runner.run((context) -> {
            context.getBean("mail", SpringPool.class).submit(() -> { }).get(10, TimeUnit.SECONDS);
            assertThat(exported(context.getBean(PrometheusMeterRegistry.class), "mail")).containsAll(queried);
        });
    }

    @Test
    void everyMetricTheGrafanaBoardQueriesIsExportedForAPool() throws Exception {
        String board = Files.readString(BOARD);
        List<String> expressions = new ArrayList<>(JsonPath.read(board, "$..targets[*].expr"));
        for (String query : JsonPath.<List<String>>read(board, "$.templating.list[*].definition")) {
            expressions.add(query.replaceAll("label_values\\((\\w+)[{,].*", "$1"));
        }
        assertThat(expressions).hasSizeGreaterThanOrEqualTo(10);
        Set<String> queried = new TreeSet<>();
        for (String expr : expressions) {
            Set<String> names = metricNames(expr);
            assertThat(names).as("metrics in %s", expr).isNotEmpty();
            queried.addAll(names);
        }
        this.runner.run((context) -> assertThat(exported(context.getBean(PrometheusMeterRegistry.class), "mail"))
            .containsAll(queried));
    }

    @Test
    void theGrafanaBoardWorksAtAnyScrapeInterval_andTellsTheInstancesOfAFleetApart() throws Exception {
        // Review helper-73: rate(...[1m]) is empty at Prometheus' default 1-minute scrape (one
        // sample in the window), and in a fleet three replicas' lines were all "mail running".
        String board = Files.readString(BOARD);
        List<String> expressions = JsonPath.read(board, "$..targets[*].expr");
        for (String expr : expressions) {
            Matcher windows = Pattern.compile("\\[([^]]*)]").matcher(expr);
            while (windows.find()) {
                assertThat(windows.group(1)).as("range in %s", expr).isEqualTo("$__rate_interval");
            }
            Matcher selectors = Pattern.compile("\\{([^}]*)}").matcher(expr);
            assertThat(selectors.find()).as(expr).isTrue();
            do {
                assertThat(selectors.group(1)).as("selector in %s", expr)
                    .contains("job=~\"$job\"", "name=~\"$pool\"", "instance=~\"$instance\"");
            } while (selectors.find());
        }
        assertThat(JsonPath.<List<String>>read(board, "$..targets[*].legendFormat"))
            .hasSameSizeAs(expressions)
            .allSatisfy((legend) -> assertThat(legend).contains("{{name}}").contains("{{instance}}"));
        assertThat(JsonPath.<List<String>>read(board, "$.templating.list[*].name")).containsExactly("job", "pool", "instance");
    }

    @Test
    void everyAlertHasADurationASeverityAndNamesThePool() throws Exception {
        List<Map<String, Object>> rules = rules();
        assertThat(rules).extracting((rule) -> rule.get("alert"))
            .containsExactly("WorkerPoolSaturated", "WorkerPoolCallersWaiting", "WorkerPoolRejectingTasks",
                    "WorkerPoolWebServerRefusing", "WorkerPoolHighRejectionRatio", "WorkerPoolQueueTimeouts", "WorkerPoolRunTimeouts",
                    "WorkerPoolUnreadable", "WorkerPoolClosed", "WorkerPoolDown");
        for (Map<String, Object> rule : rules) {
            assertThat(rule).as("%s", rule.get("alert")).containsKeys("expr", "for", "labels", "annotations");
            assertThat(map(rule.get("labels")).get("severity")).as("%s", rule.get("alert"))
                .isIn("warning", "critical");
            Map<String, Object> annotations = map(rule.get("annotations"));
            for (String annotation : new String[] { "summary", "description" }) {
                assertThat((String) annotations.get(annotation)).as("%s %s", rule.get("alert"), annotation)
                    .contains("{{ $labels.name }}");
            }
        }
    }

    @Test
    void thePromtoolTestsSeeEveryAlertFireAndStayQuiet() throws Exception {
        Map<String, Object> file = new Yaml().load(Files.readString(RULE_TESTS));
        assertThat(file.get("rule_files")).isEqualTo(List.of(RULES.getFileName().toString()));
        Set<String> fired = new TreeSet<>();
        Set<String> quiet = new TreeSet<>();
        for (Object test : (List<?>) file.get("tests")) {
            for (Object t : (List<?>) map(test).get("alert_rule_test")) {
                Map<String, Object> check = map(t);
                String alert = (String) check.get("alertname");
                (((List<?>) check.get("exp_alerts")).isEmpty() ? quiet : fired).add(alert);
            }
        }
        Set<String> alerts = new TreeSet<>();
        rules().forEach((rule) -> alerts.add((String) rule.get("alert")));
        assertThat(fired).as("alerts seen firing").isEqualTo(alerts);
        assertThat(quiet).as("alerts seen quiet").isEqualTo(alerts);
    }

    /** The names of the series the registry exports for a pool. */
    private static Set<String> exported(PrometheusMeterRegistry registry, String pool) {
        Set<String> names = new TreeSet<>();
        Pattern sample = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)\\{[^}]*name=\"" + Pattern.quote(pool) + "\"",
                Pattern.MULTILINE);
        Matcher m = sample.matcher(registry.scrape());
        while (m.find()) {
            names.add(m.group(1));
        }
        return names;
    }

    /**
     * The metric names in a PromQL expression: what is left once strings, label matchers, ranges,
     * label lists, numbers and durations, functions and keywords are taken out.
     */
    static Set<String> metricNames(String expr) {
        String rest = expr.replaceAll("\"(?:[^\"\\\\]|\\\\.)*\"", " ")
            .replaceAll("\\{[^}]*}", " ")
            .replaceAll("\\[[^]]*]", " ")
            .replaceAll("\\b(by|without|on|ignoring|group_left|group_right)\\s*\\([^)]*\\)", " ")
            .replaceAll("(?<![a-zA-Z0-9_:])[0-9][a-zA-Z0-9_.]*", " ");
        Set<String> names = new TreeSet<>();
        Matcher m = Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)(\\s*\\()?").matcher(rest);
        while (m.find()) {
            if (m.group(2) == null && !KEYWORDS.contains(m.group(1).toLowerCase())) {
                names.add(m.group(1));
            }
        }
        return names;
    }

    @Test
    void metricNamesAreFoundInPromQL() {
        assertThat(metricNames("rate(a_total{name=~\"$pool\", x=\"y{z}\"}[5m]) / on (name) group_left b > 0.05"))
            .containsExactly("a_total", "b");
        assertThat(metricNames("max_over_time(c[1h]) unless d offset 5m and e > bool 1e3"))
            .containsExactly("c", "d", "e");
        assertThat(metricNames("sum by (name) (f) or sum without (instance) (g)")).containsExactly("f", "g");
    }

    private static List<Map<String, Object>> rules() throws Exception {
        Map<String, Object> file = new Yaml().load(Files.readString(RULES));
        List<Map<String, Object>> rules = new ArrayList<>();
        for (Object group : (List<?>) file.get("groups")) {
            for (Object rule : (List<?>) map(group).get("rules")) {
                rules.add(map(rule));
            }
        }
        return rules;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object yaml) {
        return (Map<String, Object>) yaml;
    }

}
