/**
 * relock's Micrometer metrics: a {@code LockEventListener} that records lock events as meters, and
 * the gauges of one client's {@code stats()}. Uses relock's public API only; Micrometer's types are
 * in its signatures, so it reads Micrometer for its users.
 */
module io.github.relock.micrometer {
    requires transitive io.github.relock.api;
    requires transitive micrometer.core;
    exports io.github.relock.micrometer;
}
