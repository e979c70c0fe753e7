package io.github.workerpool.pipeline;

import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Where an ETL job keeps its checkpoint: how far it got, so that a restart resumes there.
 *
 * <p>Used as the last stage of a {@link Pipeline} whose last stage has concurrency 1, the store
 * always holds the checkpoint of the last batch whose every stage succeeded: stage by stage no
 * batch overtakes the one before it, a failed batch stops every later batch before their next
 * stage, and saves run one at a time in batch order. After a failure (or {@link Pipeline#cancel()})
 * a restart that {@linkplain #load() loads} the checkpoint and resumes after it neither loses nor
 * skips a batch; batches after the checkpoint may have got through some stages, so those stages
 * should write idempotently (overwrite by record id), as seed 002 says.
 *
 * <pre>{@code
 * Checkpoint<Long> store = ...;                  // a file, a database row
 * long from = store.load().orElse(0L);
 * try (Pipeline etl = Pipeline.of(4, 8, 2, 1)) {
 *     for (long offset = from; ; offset += 100) {
 *         Batch batch = extract(offset, 100);
 *         long next = offset + batch.size();
 *         if (!etl.submit(() -> join(batch), () -> nlp(batch), () -> load(batch), store.saving(next))) {
 *             break;                             // a batch failed: stop reading
 *         }
 *         if (batch.size() < 100) break;
 *     }
 *     etl.await();                               // throws the first failure
 * }
 * }</pre>
 *
 * @param <C> the checkpoint's type
 */
public interface Checkpoint<C> {

    /**
     * Returns the last saved checkpoint, or empty if none was ever saved.
     * @return the checkpoint
     * @throws Exception if the store cannot be read
     */
    Optional<C> load() throws Exception;

    /**
     * Saves the checkpoint, replacing the previous one; it must be durable when this returns.
     * @param checkpoint the new checkpoint
     * @throws Exception if the store cannot be written; the pipeline then stops
     */
    void save(C checkpoint) throws Exception;

    /**
     * Returns a pipeline step that saves {@code checkpoint}, for the last stage.
     * @param checkpoint what the step saves
     * @return the step
     */
    default Pipeline.Step saving(C checkpoint) {
        return () -> save(checkpoint);
    }

    /**
     * Returns a store that keeps the checkpoint in memory, for tests and examples.
     * @param <C> the checkpoint's type
     * @return an empty in-memory store
     */
    static <C> Checkpoint<C> inMemory() {
        AtomicReference<C> saved = new AtomicReference<>();
        return new Checkpoint<>() {
            @Override
            public Optional<C> load() {
                return Optional.ofNullable(saved.get());
            }

            @Override
            public void save(C checkpoint) {
                saved.set(checkpoint);
            }

            @Override
            public String toString() {
                return "Checkpoint.inMemory[" + saved.get() + "]";
            }
        };
    }
}
