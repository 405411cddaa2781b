/**
 * relock for Spring Integration: a {@code LockRegistry} over relock's public API. Needs a relock
 * engine and driver at run time, like any relock user.
 */
module io.github.relock.spring.integration {
    requires transitive io.github.relock.api;
    requires transitive spring.integration.core;
    exports io.github.relock.spring.integration;
}
