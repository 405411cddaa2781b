package io.github.relock.core.internal.protocol;

/**
 * A waiting owner of the releasing client that a release may hand the lock to (local hand-off).
 *
 * <p>Thread-safety: immutable.
 *
 * @param field the owner's field
 * @param ttlMs the TTL its hold would get, in ms (never a sentinel)
 */
public record Candidate(String field, long ttlMs) {
}
