package io.github.workerpool.fleet;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;

/**
 * The application each replica runs: the starter and whatever engine is on the class path, with
 * its pools from the engine's properties alone.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
class Replica {

}
