/**
 * <b>Test and demo tooling</b> (public so that lock-tck and examples share it; not part of the lock
 * API): a {@code redis-server} process from the binary in {@code org.signal:embedded-redis}, on a
 * loopback port with persistence off.
 */
package io.github.relock.embeddedredis;
