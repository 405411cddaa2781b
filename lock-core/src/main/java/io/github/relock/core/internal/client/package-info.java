/**
 * The {@code LockClient}: {@code DefaultLockClient} makes the locks and owns the client's lifetime:
 * it builds the per-client services and tears them down in order on close (renewal, holds, waits
 * and their queue entries, subscriptions, the timer, the driver).
 */
package io.github.relock.core.internal.client;
