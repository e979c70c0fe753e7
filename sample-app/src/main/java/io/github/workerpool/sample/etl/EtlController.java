package io.github.workerpool.sample.etl;

import java.util.Map;

import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * Starts, stops and reports the ETL job: {@code POST /etl/start[?restart=true]},
 * {@code POST /etl/stop}, {@code GET /etl/progress}.
 */
@RestController
@RequestMapping("/etl")
class EtlController {

    private final EtlJob job;

    EtlController(EtlJob job) {
        this.job = job;
    }

    @PostMapping("/start")
    ResponseEntity<Object> start(@RequestParam(defaultValue = "false") boolean restart) {
        return answer(this.job.start(restart));
    }

    @PostMapping("/stop")
    ResponseEntity<Object> stop() {
        return answer(this.job.stop());
    }

    @GetMapping("/progress")
    EtlJob.Progress progress() {
        return this.job.progress();
    }

    private ResponseEntity<Object> answer(String refusal) {
        if (refusal != null) {
            return ResponseEntity.status(HttpStatus.CONFLICT).body(Map.of("error", refusal));
        }
        return ResponseEntity.accepted().body(this.job.progress());
    }
}
