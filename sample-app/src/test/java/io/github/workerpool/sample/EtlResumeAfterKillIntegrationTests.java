package io.github.workerpool.sample;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.github.workerpool.sample.etl.EtlJob;
import io.github.workerpool.sample.etl.NlpService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Stop the app mid-job, start it again on the same H2 file: the job resumes from its checkpoint
 * and finishes with no batch lost or repeated. The app is closed, not killed, but the state a
 * kill leaves is what is committed, which the tests read while the app still runs.
 *
 * <p>To stop the first app at a known point without sleeping, its NLP service (an external
 * service, so a test double is fair) blocks on the chunk holding review {@value #STUCK_ID},
 * which is in batch 51: the pipeline keeps order, so the checkpoint stops at exactly batch 50.
 * The test then closes the context, and lets the stuck call return only once shutdown has
 * cancelled the pipeline.
 */
class EtlResumeAfterKillIntegrationTests {

    private static final long STUCK_ID = 5_050;

    private static final Duration PATIENCE = Duration.ofSeconds(60);

    private final Path data = SampleAppTestSupport.temporaryDirectory("sample-resume-");

    private final List<ConfigurableApplicationContext> contexts = new ArrayList<>();

    @AfterEach
    void closeContexts() {
        this.contexts.forEach(ConfigurableApplicationContext::close);
    }

    @Test
    void jobCutShortMidway_resumesAtTheNextStart_withNoBatchLostOrRepeated() throws Exception {
        // First run: gets stuck in batch 51.
        ConfigurableApplicationContext first = startUntilStuck();
        TestHttp http = http(first);
        StuckNlp stuck = first.getBean(StuckNlp.class);
        JsonNode frozen = await().atMost(PATIENCE).until(() -> http.get("/etl/progress").json(),
                (p) -> p.get("batchesDone").asLong() == 50);
        assertThat(frozen.get("state").asString()).isEqualTo("RUNNING");
        assertThat(frozen.get("inFlight").asInt()).as("batches after the stuck one are in flight").isGreaterThan(1);

        // Kill: close the context while the job runs; release the stuck call once shutdown cancelled the pipeline.
        EtlJob job = first.getBean(EtlJob.class);
        CompletableFuture<Void> closing = CompletableFuture.runAsync(first::close);
        await().atMost(PATIENCE).until(() -> job.state() != EtlJob.State.RUNNING);
        stuck.release.countDown();
        closing.get(60, TimeUnit.SECONDS);
        this.contexts.remove(first);

        JdbcTemplate afterKill = jdbc();
        assertThat(EtlAudit.of(afterKill).assertConsistent()).as("batches checkpointed at the kill").isEqualTo(50);
        assertThat(afterKill.queryForObject("SELECT state FROM etl_checkpoint", String.class)).isEqualTo("RUNNING");

        // Second run, same H2 file, the real NLP service: resumes on its own and finishes.
        ConfigurableApplicationContext second = start();
        TestHttp http2 = http(second);
        JsonNode done = await().atMost(PATIENCE).until(() -> http2.get("/etl/progress").json(),
                (p) -> p.get("state").asString().equals("DONE") || p.get("state").asString().equals("FAILED"));
        assertThat(done.get("state").asString()).as(done.toString()).isEqualTo("DONE");
        assertThat(done.get("stages").get(3).get("done").asLong()).as("batches checkpointed by the second run")
                .isEqualTo(SampleAppTestSupport.ROWS / SampleAppTestSupport.BATCH - 50);
        EtlAudit.of(second.getBean(JdbcTemplate.class)).assertComplete(SampleAppTestSupport.ROWS, SampleAppTestSupport.BATCH);
    }

    @Test
    void jobStopped_thenShutDownWhileItsBatchesDrain_staysStoppedAtTheNextStart() throws Exception {
        // Found by a review: the shutdown, coming while a Stop drained the batches in flight, left
        // the recorded state RUNNING, so the next start resumed a job the user had stopped.
        ConfigurableApplicationContext first = startUntilStuck();
        TestHttp http = http(first);
        StuckNlp stuck = first.getBean(StuckNlp.class);
        assertThat(http.post("/etl/stop").status()).isEqualTo(202);
        EtlJob job = first.getBean(EtlJob.class);
        assertThat(job.state()).isEqualTo(EtlJob.State.STOPPING); // draining: held by the stuck call
        // helper-117: what is committed now is what a kill -9 here leaves (the Stop was recorded
        // only once the last batch ended, so a crash while draining resumed the job).
        assertThat(first.getBean(JdbcTemplate.class).queryForObject("SELECT state FROM etl_checkpoint", String.class))
            .isEqualTo("STOPPED");
        CompletableFuture<Void> closing = CompletableFuture.runAsync(first::close);
        await().atMost(PATIENCE).until(() -> Boolean.TRUE.equals(
                org.springframework.test.util.ReflectionTestUtils.getField(job, "shuttingDown")));
        stuck.release.countDown();
        closing.get(60, TimeUnit.SECONDS);
        this.contexts.remove(first);
        assertThat(jdbc().queryForObject("SELECT state FROM etl_checkpoint", String.class)).isEqualTo("STOPPED");

        ConfigurableApplicationContext second = start();
        assertThat(http(second).get("/etl/progress").json().get("state").asString())
            .as("not resumed on its own").isEqualTo("STOPPED");
    }

    @Test
    void aFailureAfterAResume_namesTheBatchByTheCheckpointsCount() throws Exception {
        // helper-117: the message gave the pipeline's number, which starts at 1 each run: a run
        // resumed after batch 50 that failed in batch 53 said "batch 3".
        ConfigurableApplicationContext first = startUntilStuck();
        EtlJob job = first.getBean(EtlJob.class);
        CompletableFuture<Void> closing = CompletableFuture.runAsync(first::close);
        await().atMost(PATIENCE).until(() -> job.state() != EtlJob.State.RUNNING);
        first.getBean(StuckNlp.class).release.countDown();
        closing.get(60, TimeUnit.SECONDS);
        this.contexts.remove(first);

        ConfigurableApplicationContext second = start(FailingNlp.class); // resumes after batch 50
        JsonNode failed = await().atMost(PATIENCE).until(() -> http(second).get("/etl/progress").json(),
                (p) -> !p.get("state").asString().equals("RUNNING"));
        assertThat(failed.get("state").asString()).as(failed.toString()).isEqualTo("FAILED");
        assertThat(failed.get("error").asString()).startsWith("batch 53 failed in stage analyse");
        // Review helper-163: after a restart the job read FAILED with no error.
        second.close();
        this.contexts.remove(second);
        ConfigurableApplicationContext third = start();
        JsonNode again = http(third).get("/etl/progress").json();
        assertThat(again.get("state").asString()).isEqualTo("FAILED");
        assertThat(again.get("error").asString()).isEqualTo(failed.get("error").asString());
    }

    @Test
    void aShutdownThatInterruptsAStepStuckPastTheWait_leavesTheJobToResume() throws Exception {
        // Found by a review (helper-126): the etl pool's stop interrupts a step still running past
        // the shutdown's wait (a hung call), the batch fails, and the job was recorded FAILED: the
        // next start did not resume it (a kill -9 at the same moment would have).
        ConfigurableApplicationContext first = startUntilStuck("sample.etl.shutdown-wait=100ms",
                "pools.instances.etl.shutdown.await-termination-period=100ms");
        EtlJob job = first.getBean(EtlJob.class);
        first.close(); // the stuck call is never released: the pool's stop interrupts it
        this.contexts.remove(first);
        await().atMost(PATIENCE).until(job::state, (state) -> state != EtlJob.State.STOPPING);
        assertThat(job.state()).isEqualTo(EtlJob.State.STOPPED);
        assertThat(jdbc().queryForObject("SELECT state FROM etl_checkpoint", String.class)).isEqualTo("RUNNING");
    }

    @Test
    void aStopThenAShutdownThatInterruptsAStepStuckPastTheWait_staysStopped() throws Exception {
        // Found by a review (helper-129): after a Stop, the shutdown's interrupt of the hung step
        // failed its batch, and the job the user had stopped was recorded FAILED, with that error.
        ConfigurableApplicationContext first = startUntilStuck("sample.etl.shutdown-wait=100ms",
                "pools.instances.etl.shutdown.await-termination-period=100ms");
        assertThat(http(first).post("/etl/stop").status()).isEqualTo(202);
        EtlJob job = first.getBean(EtlJob.class);
        first.close(); // the stuck call is never released: the pool's stop interrupts it
        this.contexts.remove(first);
        await().atMost(PATIENCE).until(job::state, (state) -> state != EtlJob.State.STOPPING);
        assertThat(job.state()).isEqualTo(EtlJob.State.STOPPED);
        assertThat(org.springframework.test.util.ReflectionTestUtils.getField(job, "error")).as("no failure shown").isNull();
        assertThat(jdbc().queryForObject("SELECT state FROM etl_checkpoint", String.class)).isEqualTo("STOPPED");
    }

    /** An app whose NLP service sticks on review {@value #STUCK_ID}, its job started and stuck there. */
    private ConfigurableApplicationContext startUntilStuck(String... properties) throws InterruptedException {
        ConfigurableApplicationContext context = start(List.of(properties), StuckNlp.class);
        assertThat(http(context).post("/etl/start").status()).isEqualTo(202);
        assertThat(context.getBean(StuckNlp.class).reached.await(60, TimeUnit.SECONDS))
            .as("the job reached review " + STUCK_ID).isTrue();
        return context;
    }

    private ConfigurableApplicationContext start(Class<?>... extra) {
        return start(List.of(), extra);
    }

    private ConfigurableApplicationContext start(List<String> more, Class<?>... extra) {
        List<Class<?>> sources = new ArrayList<>(List.of(SampleApplication.class));
        sources.addAll(List.of(extra));
        List<String> properties = new ArrayList<>(List.of(SampleAppTestSupport.FAST));
        properties.addAll(more);
        properties.add("sample.data-dir=" + this.data);
        properties.add("server.port=0");
        properties.add("server.address=127.0.0.1");
        properties.add("sample.security.ops.password=" + SampleAppTestSupport.OPS_PASSWORD);
        // As command-line arguments: they win over application.yml (builder properties would not).
        ConfigurableApplicationContext context = new SpringApplicationBuilder(sources.toArray(Class<?>[]::new))
                .run(properties.stream().map((p) -> "--" + p).toArray(String[]::new));
        this.contexts.add(context);
        return context;
    }

    private JdbcTemplate jdbc() {
        // Between the two runs no app is up: read the H2 file directly.
        return new JdbcTemplate(new DriverManagerDataSource("jdbc:h2:file:" + this.data + "/sample", "sa", ""));
    }

    private static TestHttp http(ConfigurableApplicationContext context) {
        return new TestHttp(((WebServerApplicationContext) context).getWebServer().getPort());
    }

    /**
     * The NLP service, stuck on the chunk holding review {@value #STUCK_ID} until released. Not a
     * {@code @Configuration}: the app's component scan would find it; it is given as a source.
     */
    static class StuckNlp {

        final CountDownLatch reached = new CountDownLatch(1);

        final CountDownLatch release = new CountDownLatch(1);

        @Bean
        @Primary
        NlpService stuckNlpService() {
            NlpService real = new NlpService.Simulated(Duration.ofMillis(1));
            return (rows) -> {
                if (rows.stream().anyMatch((row) -> row.id() == STUCK_ID)) {
                    this.reached.countDown();
                    this.release.await();
                }
                real.analyse(rows);
            };
        }
    }

    /** The NLP service, failing on review 5,250, in batch 53. Given as a source, as {@link StuckNlp}. */
    static class FailingNlp {

        @Bean
        @Primary
        NlpService failingNlpService() {
            NlpService real = new NlpService.Simulated(Duration.ofMillis(1));
            return (rows) -> {
                if (rows.stream().anyMatch((row) -> row.id() == 5_250)) {
                    throw new IllegalStateException("the NLP service is down");
                }
                real.analyse(rows);
            };
        }
    }
}
