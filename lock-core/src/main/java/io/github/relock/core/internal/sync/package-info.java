/**
 * Design: Redisson's other synchronizers on relock: {@code RedisSemaphore} (RSemaphore),
 * {@code RedisPermitExpirableSemaphore} (RPermitExpirableSemaphore) and {@code RedisCountDownLatch}
 * (RCountDownLatch), with the keys, channels, messages and scripts of
 * {@code docs/spec/redisson-synchronizers-wire-format.md} ("sync spec N.N"; scripts in
 * {@code scripts/sync/}).
 *
 * <p>Waiting is the one wait machine of {@code wait}: every waiting call (acquire, tryAcquire with
 * a wait, await) is a {@code BlockingWait} or an {@code AsyncWait} over a {@code SyncTarget} made
 * for that call alone, so it carries what the call wants (a number of permits; the permit ids and
 * the lease, chosen before the first attempt; nothing for a latch). An attempt answers the sealed
 * {@code Acquire}: Acquired, or Busy with how long to park at most. {@code SyncPolicy} tells the
 * machine how such a waiter waits:
 * <ul>
 *   <li>channel: {@code redisson_sc:{N}} for both semaphores (one channel, one pool: a relock or
 *       Redisson semaphore of either kind on one name wakes the other's waiters);
 *       {@code redisson_countdownlatch__channel__{N}} for the latch;</li>
 *   <li>messages: a semaphore's payload is a count of permits: it wakes that many of this client's
 *       waiters (capped by how many there are); zero, negative or foreign payloads wake none. A
 *       latch's "0" (open) wakes every waiter, its "1" (a new count) none;</li>
 *   <li>polling: a waiter parks at most {@link SyncPolicy#POLL_MS}, and a permit-expirable waiter
 *       at most until the earliest lease ends (when a reclaim frees a permit, which nothing
 *       announces until some client runs an operation), so a lost message, a payload smaller than
 *       a waiter's need, or a Redisson client's message missed across classic and sharded pub/sub
 *       costs at most that;</li>
 *   <li>lost replies: a plain semaphore's attempt cannot be resolved (its permits carry no owner),
 *       so a waiter whose attempt's reply was lost fails with the RedisUnavailableException
 *       instead of retrying blind ({@code WaitPolicy.resolvesLostReplies}); a permit-expirable
 *       waiter resolves by its ids (found in the leases zset: they are its permits; else it
 *       attempts again with the same ids); a latch's attempt only reads.</li>
 * </ul>
 *
 * <p>Giving back: permits that arrive after their async caller left (cancel, orTimeout, close) are
 * released again, as Redisson does; a latch has nothing to give back. Nothing of a waiter is left
 * in Redis: no queue, no owner record (sync spec 8.14).
 *
 * <p>Loss: permits of the permit-expirable semaphore taken as a {@code PermitLease} are tracked by
 * {@code PermitLeases}: a lease that runs out before release, an update that finds the permit gone,
 * or the client closing, is reported as a lost lock is ({@code LockLostEvent}, to the lease's
 * callbacks and the client's listeners).
 *
 * <p>Depends on util, protocol, run, hold (loss delivery), wait, and lock's {@code ClientServices} for the
 * client's services; nothing below uses this room.
 */
package io.github.relock.core.internal.sync;
