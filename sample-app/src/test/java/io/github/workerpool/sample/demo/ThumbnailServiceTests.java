package io.github.workerpool.sample.demo;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The thumbnails demo refuses what its pool cannot hold, at once, rather than holding the
 * request's thread until the queue has room.
 */
class ThumbnailServiceTests {

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void aCountBeyondTheQueueIsPartlyAccepted_atOnce() {
        DemoProperties properties = new DemoProperties();
        properties.setThumbnailTime(Duration.ofMinutes(1)); // none ends while make() runs
        ThumbnailService service = new ThumbnailService(properties);
        try {
            // 4 running + 2,000 queued; the other 96 refused (a blocking pool waited a minute for room)
            assertThat(service.make(2_100)).isEqualTo(2_004);
        }
        finally {
            service.pool().releaseNow();
            service.destroy();
        }
    }

}
