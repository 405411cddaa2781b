/** Micrometer metrics for relock: {@link io.github.relock.micrometer.MicrometerLockEventListener}. */
package io.github.relock.micrometer;
