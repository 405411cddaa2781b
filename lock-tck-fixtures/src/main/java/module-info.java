/**
 * Real Redis for tests: the servers, cluster and Sentinel group the kit runs on, the fault proxy
 * and the RESP client that inspects them. Nothing here knows about locks or drivers, so any
 * project's tests can use it.
 */
module io.github.relock.tck.fixtures {
    requires transitive org.junit.jupiter.api;
    requires transitive io.github.relock.embeddedredis;
    exports io.github.relock.tck.fixtures;
}
