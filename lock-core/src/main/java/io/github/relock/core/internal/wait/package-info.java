/**
 * Design: the one wait machine. Every wait for a lock (a blocked thread, an asynchronous caller, a
 * multi-lock's member) is one Wait: this class decides, and a runner acts. BlockingWait runs it on
 * the caller's thread (attempts sent inline, parks the thread); AsyncWait runs it on whatever
 * thread delivers its events (attempts sent asynchronously, parks nothing), one event at a time.
 * Each decision method returns what the runner does next:
 * <pre>
 *   ATTEMPT    send one attempt in `mode` (TRY, QUEUE, or RESOLVE after a lost reply), then call
 *              attempted(outcome, error)
 *   SUBSCRIBE  wait for the entry's subscription (at most subscribeBudgetNanos()), then call
 *              subscribed(error, timedOut)
 *   PARK       park for at most `parkNanos` (on the entry when `parkOnEntry`: parkOrTake first),
 *              until wake(); then call parked()
 *   FINISH     call finishing() until it answers DONE (it may ask to park once more, to let a
 *              claimed offer settle), give the lock back if `unwanted`, leave the queue
 *              when needsGiveUp(), then done(), then report `acquired` or `error`
 * </pre>
 *
 * <p>The steps (spec 5.1-5.3): attempt; if busy, join the channel's entry (subscribing it); once the
 * subscription is confirmed attempt again, so an unlock in between is never missed (not needed,
 * and skipped, when the entry was already subscribed before the first attempt: every release
 * after it reached the entry); then park for at most the TTL the attempt returned (or the time
 * left) and attempt again. A waiter that leaves without the lock, for any reason including a first
 * attempt that threw, leaves the wait queue (fair lock) before it returns, so a next attempt by the
 * same owner cannot race its own give-up, and close() waits for that.
 *
 * <p>Wake-up sources, all through wake(): a message on the channel (Channel picks one parked
 * waiter, or banks it for the next one about to park), a releaser of this client granting or
 * withdrawing a claim on the wait's hand-off offer, close(), and for async waits the caller
 * leaving (cancel, orTimeout). A message picked up by a waiter that then leaves without attempting
 * is passed on to the next.
 *
 * <p>Local hand-off (Handoff): once subscribed, a wait on a lock type that hands off posts an offer,
 * arms it after each failed attempt and parks; a releaser of this client may then make it the owner
 * in the release script itself, and the wait finds its offer GRANTED when it wakes. An offer found
 * CLAIMED is waited on (bounded by twice the command timeout) before the wait attempts or leaves.
 * A claim whose reply was lost, or one the wait gave up on (ABANDONED: its releaser's script may
 * still run, late) sets `resolve`: every later attempt of the wait runs in RESOLVE mode, so a
 * transfer that did land is taken once, never counted twice, and never given back under it. A
 * wait that leaves without the lock after a late transfer landed (LANDED) gives it back itself
 * in finishing(); one that left before it landed leaves that to the releaser.
 *
 * <p>One owner, one wait at a time: an owner is a thread, and one whose async call was cancelled
 * may call again while the cancelled wait still runs (its attempt in flight, its give-back of a
 * late acquisition). Its new wait on the same lock starts only once that wait and its give-backs
 * are over (Waiters.leaving), so Redis and the hold registry never see the two interleaved.
 *
 * <p>Outages: an attempt after the first that fails for want of Redis (a failover) is retried every
 * RETRY_AFTER_OUTAGE_MS for up to the subscription timeout, in RESOLVE mode (it may have run),
 * then thrown. The first attempt still fails at once, so a caller on a dead Redis learns it at once.
 * A policy whose attempts cannot be resolved (WaitPolicy.resolvesLostReplies() false: a semaphore's
 * permits carry no owner to find) is not retried: its wait fails with the lost reply's error.
 *
 * <p>Polling bounds: a park never exceeds the TTL the server returned (a key without expiry: a third
 * of the watchdog timeout), so a lost message costs at most that; an answer of 0 (free, but another
 * waiter's turn, e.g. a dead fair-queue head) backs off exponentially from 2 ms to MAX_BACKOFF_MS.
 *
 * <p>Threads: the machine's fields are touched by its runner only (the blocked thread; or, for
 * async waits, one event at a time); wake() and message() may come from any thread.
 *
 * <p>The rooms: {@code Wait} (the decisions), {@code BlockingWait} and {@code AsyncWait} (the two
 * runners), {@code Waiters} (the client's channels, reference-counted subscriptions and the
 * wake-up handshake), {@code Handoff} (offers and hand-off lines), {@code WaitTarget} (what a wait
 * asks of its lock) and {@code WaitContext} (the client's services it uses). Knows no lock and no
 * hold: a target attempts and registers; the machine decides.
 */
package io.github.relock.core.internal.wait;
