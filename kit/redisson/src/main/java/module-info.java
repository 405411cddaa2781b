/**
 * relock's compatibility kit, Redisson interop chapter: a real RedissonClient and relock on the
 * same server and lock names. Separate from {@code io.github.relock.tck} so the base kit has no
 * Redisson on its path.
 */
module io.github.relock.tck.redisson {
    requires transitive io.github.relock.tck;
    requires redisson;
    exports io.github.relock.tck.redisson;
    // JUnit discovers and runs the chapter's package-private nested class and rule methods reflectively.
    opens io.github.relock.tck.redisson to org.junit.platform.commons;
}
