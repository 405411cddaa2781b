/**
 * relock for ShedLock: a {@code LockProvider} over relock's public API. Needs a relock engine and
 * driver at run time, like any relock user.
 */
module io.github.relock.shedlock {
    requires transitive io.github.relock.api;
    requires transitive net.javacrumbs.shedlock.core;
    exports io.github.relock.shedlock;
}
