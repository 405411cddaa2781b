/**
 * relock for Kotlin coroutines: suspending functions over relock's public API. Needs a relock engine
 * and driver at run time, like any relock user.
 */
module io.github.relock.kotlin {
    requires transitive io.github.relock.api;
    requires transitive kotlin.stdlib;
    requires transitive kotlinx.coroutines.core;
    exports io.github.relock.kotlin;
}
