/**
 * relock for RxJava 3: {@code Single}/{@code Maybe}/{@code Completable} locks, semaphores and
 * latches over relock's public API. Needs a relock engine and driver at run time, like any relock
 * user.
 */
module io.github.relock.rxjava3 {
    requires transitive io.github.relock.api;
    requires transitive io.reactivex.rxjava3;
    exports io.github.relock.rxjava3;
}
