/**
 * relock for Project Reactor: {@code Mono}/{@code Flux} locks over relock's public API. Needs a
 * relock engine and driver at run time, like any relock user.
 */
module io.github.relock.reactor {
    requires transitive io.github.relock.api;
    requires transitive reactor.core;
    requires transitive org.reactivestreams;
    exports io.github.relock.reactor;
}
