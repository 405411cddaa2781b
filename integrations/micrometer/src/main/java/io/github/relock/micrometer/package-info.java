/**
 * Micrometer metrics for relock: {@link io.github.relock.micrometer.MicrometerLockEventListener}
 * (timers and counters from lock events) and {@link io.github.relock.micrometer.RelockClientMetrics}
 * (gauges of a client's held locks, waiters and pub/sub subscriptions).
 */
package io.github.relock.micrometer;
