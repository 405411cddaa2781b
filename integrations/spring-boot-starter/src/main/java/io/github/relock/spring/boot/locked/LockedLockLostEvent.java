package io.github.relock.spring.boot.locked;

import java.lang.reflect.Method;

/**
 * Published (as a Spring application event) when a {@link Locked} method's lock was lost before
 * the method ended: its lease ran out, or the lock was deleted or taken over. The method's result
 * is still returned (its effects have happened and cannot be undone by an exception after the
 * fact); this event, a WARNING log line, and relock's own lock-lost listeners and metrics report
 * that the work may not have been exclusive. Listen with {@code @EventListener}.
 *
 * <p>Thread-safety: immutable.
 *
 * @param method the {@code @Locked} method
 * @param lockName the lock's name, as the key evaluated for this call
 * @param detail how the loss was found: a lost-lease report of the client, or the release that
 *     found the lock no longer held
 */
public record LockedLockLostEvent(Method method, String lockName, String detail) {
}
