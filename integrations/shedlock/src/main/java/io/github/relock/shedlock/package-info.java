/**
 * A ShedLock {@link net.javacrumbs.shedlock.core.LockProvider} over relock's public API:
 * {@link io.github.relock.shedlock.RelockLockProvider}.
 */
package io.github.relock.shedlock;
