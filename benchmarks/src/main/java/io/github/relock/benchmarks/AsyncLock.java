package io.github.relock.benchmarks;

import java.util.concurrent.CompletionStage;

/**
 * The non-blocking half of a contender's lock, with an explicit owner id (Redisson's
 * {@code lockAsync(threadId)} / {@code unlockAsync(threadId)}, relock's same-named methods).
 *
 * <p>Thread-safety: as safe as the contender's lock; the benchmarks call it from many threads.
 */
interface AsyncLock {

    /** @param ownerId the owner id to lock with @return completes when held */
    CompletionStage<?> lock(long ownerId);

    /** @param ownerId the owner id that holds it @return completes when released */
    CompletionStage<?> unlock(long ownerId);
}
