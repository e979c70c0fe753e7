package io.github.workerpool.fleet;

import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;

import org.awaitility.Awaitility;

import static org.assertj.core.api.Assertions.assertThat;

/** Checks that an engine's threads are gone once it is closed. */
final class Threads {

    private Threads() {
    }

    /** Waits, at most 30 s (a loaded machine), until no live thread's name contains any of these parts. */
    static void awaitNoneNamed(String... parts) {
        Awaitility.await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(20))
            .untilAsserted(() -> assertThat(named(parts)).as("live threads").isEmpty());
    }

    /** The names of the live threads whose name contains any of these parts. */
    static List<String> named(String... parts) {
        return Thread.getAllStackTraces().keySet().stream()
            .filter(Thread::isAlive)
            .map(Thread::getName)
            .filter((name) -> Stream.of(parts).anyMatch(name::contains))
            .sorted()
            .toList();
    }

    /** Every live thread's name, for a look at what is left. */
    static List<String> all() {
        return named("");
    }

}
