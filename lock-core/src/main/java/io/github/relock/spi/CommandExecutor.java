package io.github.relock.spi;

import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * Carries relock's Redis traffic over one native client: Lua scripts and one shared pub/sub
 * connection. Core builds every call; this interface only executes it.
 *
 * <h2>Replies</h2>
 * Every reply is normalised: nil → {@code null}; integer → {@link Long}; bulk or status string →
 * {@link String} (UTF-8); array → {@code List<Object>} of normalised elements; error reply →
 * {@link io.github.relock.api.RedisErrorException} ({@link NoScriptException} for
 * {@code NOSCRIPT}). Connection failures and timeouts → {@link io.github.relock.api.RedisUnavailableException}.
 * Nothing else crosses this boundary; core never parses a client library's messages.
 *
 * <h2>Routing</h2>
 * On a cluster a script goes to the node owning {@code keys.get(0)}'s slot; core guarantees all
 * keys of one call share that slot.
 *
 * <h2>Pub/sub</h2>
 * All subscriptions of one executor share <b>one</b> pub/sub connection. Core subscribes a
 * channel at most once at a time (it reference-counts waiters itself), and issues
 * subscribe/unsubscribe of one channel in order. When the connection breaks, the driver
 * reconnects, subscribes every live channel again and then calls
 * {@link ConnectionListener#onReconnect()}. A connection that only reads never learns that a NAT
 * dropped its flow without a reset, so the driver probes it ({@code PING} every
 * {@link DriverOptions#pubSubProbeInterval()}) and breaks and reopens it when no answer comes
 * within the command timeout (kit rules 28.10, 28.11). A driver need not write this bookkeeping:
 * {@link io.github.relock.spi.pubsub} has it, over a raw link of the driver's client (a blocking
 * session as in Jedis, an always-open connection as in Lettuce, and routing by slot for sharded
 * pub/sub on a cluster).
 *
 * <h2>Timeouts and retries</h2>
 * A driver that opened its own connection ({@link RedisDriverProvider#connect}) uses
 * {@link DriverOptions#commandTimeout()} as its timeout. On a client the application handed in,
 * the client's own timeout applies; a driver may enforce the command timeout on top of it where it
 * can without leaving the caller's thread (Lettuce's does). A driver must not resend a script on
 * its own: a lock script that runs twice changes a hold count. Where the client library itself
 * resends commands after a reconnect (Lettuce's at-least-once default), the driver documents it.
 *
 * <h2>Calls not sent: refused, or queued past their deadline</h2>
 * An async call a driver does not send at once (it waits in a queue for one of the driver's
 * threads or connections) has a deadline: the command timeout ({@link DriverOptions#commandTimeout()}),
 * counted from the {@link #evalAsync} call. A call still unsent at its deadline is never sent: the
 * driver fails its future, and so does a driver that refuses a call outright (for example because
 * too many calls are already waiting), with a {@link NotSentException}. That is the <i>not sent</i>
 * signal: core then knows the script did not run and will not run, and may send it again or re-arm
 * a waiter, which it does for a release nobody else will retry (a lock given back after its caller
 * left). A call that was sent and got no answer in time is <i>reply lost</i> (whether it ran is
 * unknown): any other {@code RedisUnavailableException}, never a {@code NotSentException}. A driver
 * that cannot tell whether a timed-out call went out reports it as reply lost, and must still never
 * send it afterwards (Lettuce's cancels a command it buffered while reconnecting). Without the
 * deadline a release queued behind a stall runs seconds after its caller gave up on it, when a
 * waiter has already acted on its absence.
 *
 * <h2>The renewal lane</h2>
 * {@link #evalAsync} with {@link Lane#RENEWAL} is core's lock watchdog: such a call must not wait
 * behind the application's async calls ({@link Lane#APPLICATION}) on this executor, neither in a
 * queue of the driver's threads nor behind a pipeline on one connection, or a burst of
 * application calls delays a renewal past a short lease. A driver gives the renewal lane a thread
 * and a connection of its own, or a connection of its own, and the same deadline as above. A
 * driver with no queue of its own that shares no connection between concurrent calls may treat
 * both lanes the same.
 *
 * <h2>Failures of subscribe</h2>
 * The future fails with {@link io.github.relock.api.RedisUnavailableException} when the connection
 * is down or breaks before Redis confirms (nothing stays subscribed then), and with
 * {@link io.github.relock.api.RedisErrorException} when Redis refuses. {@code sharded = true}
 * without {@link Capability#SHARDED_PUBSUB} throws {@link UnsupportedOperationException}.
 * {@link ConnectionListener#onReconnect()} may be skipped when nothing was subscribed.
 *
 * <h2>Ownership</h2>
 * {@link #close()} releases what the driver opened (its pub/sub connection, threads, and the
 * native client only if the driver created it from a URI); never a client it was handed. After
 * close, every method throws (or fails its future with) {@link IllegalStateException}.
 *
 * <p>Thread-safety: implementations must be safe for use by several threads.
 */
public interface CommandExecutor extends AutoCloseable {

    /**
     * Sends {@code call} on the calling thread: {@code EVALSHA script.sha1()} when
     * {@link ScriptCall#bySha()}, otherwise {@code EVAL script.text()}. Not interruptible: it waits
     * for the reply (at most the command timeout) even if the thread is interrupted, and keeps the
     * interrupt status, so a script that ran is never reported as not run.
     *
     * @param call the script, its KEYS and ARGV (sent as UTF-8 bulk strings), and how to send it
     * @return the normalised reply
     * @throws NoScriptException if sent by SHA and the node does not have the script cached
     */
    Object eval(ScriptCall call);

    /**
     * Sends {@code call} without blocking the caller, on {@code lane}: the future completes on a
     * driver thread. Failures complete it exceptionally with the types listed on this interface
     * ({@link NotSentException} for a call never sent); otherwise as {@link #eval}.
     *
     * @param call the script, its KEYS and ARGV, and how to send it
     * @param lane {@link Lane#APPLICATION}, or {@link Lane#RENEWAL} for core's watchdog (see "The
     *             renewal lane" above)
     * @return the normalised reply
     */
    CompletableFuture<Object> evalAsync(ScriptCall call, Lane lane);

    /**
     * Only with {@link Capability#REPLICA_WAIT}: pipelines {@code EVALSHA} and
     * {@code WAIT replicas timeoutMs} on one connection. On NOSCRIPT the caller loads the script
     * with {@link #eval} by text first (the script must then be idempotent for that owner) or gives up.
     *
     * @return a two-element list: the script's normalised reply, then WAIT's reply as a {@link Long}
     * @throws UnsupportedOperationException if the capability is not declared
     */
    default List<Object> evalShaWithWait(Script script, List<String> keys, List<String> args,
                                         int replicas, long timeoutMs) {
        throw new UnsupportedOperationException(
                getClass().getName() + " does not declare " + Capability.REPLICA_WAIT);
    }

    /**
     * Only with {@link Capability#REPLICA_WAIT}: as {@link #evalShaWithWait}, without blocking the
     * caller and on {@code lane}: {@code call} ({@code EVALSHA}, or {@code EVAL} when sent by text,
     * which core does once after a NOSCRIPT) then {@code WAIT replicas timeoutMs}, on one
     * connection of the node that serves the call's first key, so that WAIT covers the script's
     * writes. A {@link Lane#RENEWAL} call never waits behind {@link Lane#APPLICATION} calls (core's
     * watchdog renews through it when lock writes wait for replicas, as Redisson's does). Failures
     * complete the future as {@link #evalAsync}'s do ({@link NoScriptException} by SHA: nothing ran).
     * The default runs {@link #evalShaWithWait} on a thread of its own per call, and fails a call by
     * text with {@link UnsupportedOperationException} (core then loads the script and sends a
     * barrier write with WAIT instead); a driver sends both on its own async pipeline, as
     * Redisson's {@code MULTI}/{@code EVALSHA}/{@code WAIT}/{@code EXEC} batch does.
     *
     * @param call the script, its KEYS (at least one) and ARGV, and how to send it
     * @param replicas the replicas to wait for
     * @param timeoutMs WAIT's timeout
     * @param lane the lane, as {@link #evalAsync}'s
     * @return a two-element list: the script's normalised reply, then WAIT's reply as a {@link Long}
     */
    default CompletableFuture<List<Object>> evalWithWaitAsync(ScriptCall call, int replicas, long timeoutMs,
                                                              Lane lane) {
        if (!call.bySha()) {
            return CompletableFuture.failedFuture(new UnsupportedOperationException(getClass().getName()
                    + " does not send a script by text with WAIT"));
        }
        CompletableFuture<List<Object>> out = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                out.complete(evalShaWithWait(call.script(), call.keys(), call.args(), replicas, timeoutMs));
            } catch (RuntimeException | Error e) {
                out.completeExceptionally(e);
            }
        }, "relock-wait-" + call.script().name());
        t.setDaemon(true);
        t.start();
        return out;
    }

    /**
     * Only with {@link Capability#REPLICA_WAIT}: the text of {@code INFO replication} from the node
     * that serves {@code key} (the node {@link #evalShaWithWait} would send that key's script to),
     * one round trip on the calling thread. Core reads its {@code connected_slaves} to learn how
     * many replicas a lock write on that node waits for by default ({@code LockOptions.replicaSync(Duration)}),
     * and caches it per node ({@link #nodeOfSlot}): it calls this when it first writes on a node,
     * then again in the background after a {@code WAIT} counted a different number, after a
     * pub/sub reconnect, and at most every ten seconds, never once per lock call. The default
     * runs {@code INFO replication} inside a script by {@code EVAL}, routed by {@code key}; a
     * driver sends the command itself so that scripts counted on the server are the engine's only.
     *
     * @param key a key whose slot picks the node
     * @return the node's {@code INFO replication} text
     */
    default String replicationInfo(String key) {
        Object reply = eval(ScriptCall.byText(new Script("replication-info", "return redis.call('INFO', 'replication')"),
                List.of(key), List.of()));
        return String.valueOf(reply);
    }

    /**
     * Only with {@link Capability#CLUSTER}: which node serves {@code slot} now, as a token equal for
     * every slot one node serves (its node id or address), or {@code null} when the driver cannot
     * tell or the servers are older than Redis 7. With tokens, core renews the watchdog locks of
     * many slots with one script per node (Redis 7's {@code allow-cross-slot-keys} flag), sent like
     * any script: routed by its one declared key. A batch that a topology change split fails, and
     * core renews its locks slot by slot. Called on core's timer thread, once per slot per renewal
     * period: it must answer from the client's own slot cache, without a round trip.
     *
     * @param slot a hash slot, 0 to 16383
     * @return the serving node's token, or null
     */
    default Object nodeOfSlot(int slot) {
        return null;
    }

    /**
     * Only with {@link Capability#CLUSTER}: whether this executor's classic pub/sub connection (the
     * one {@code subscribe(channel, false, ...)} uses) is connected to the node that serves
     * {@code slot} now. A cluster node counts in {@code PUBSUB NUMSUB} only the classic subscribers
     * connected to it, so core's release scripts, which run on the slot's node and count the lock's
     * other subscribers (waiters of other clients) there, subtract this client's own classic
     * subscription only when it is on that node. Called on a releasing thread: like
     * {@link #nodeOfSlot} it must answer from the client's slot cache and what the driver recorded
     * when its pub/sub connection was opened, without a round trip.
     *
     * @param slot a hash slot, 0 to 16383
     * @return {@code TRUE} or {@code FALSE}; {@code FALSE} also when no classic pub/sub connection is
     *     open; {@code null} when the driver cannot tell (core then assumes it is there, which can
     *     let local hand-offs continue past another client's classic-only waiter on that node until
     *     the run bound ends them)
     */
    default Boolean classicPubSubOnNodeOf(int slot) {
        return null;
    }

    /**
     * Subscribes {@code channel} on the shared pub/sub connection.
     *
     * @param channel the channel name
     * @param sharded {@code true} for {@code SSUBSCRIBE}; only with {@link Capability#SHARDED_PUBSUB}
     * @param listener receives the channel's messages on the driver's pub/sub thread
     * @return completes when Redis confirmed the subscription
     */
    CompletableFuture<Subscription> subscribe(String channel, boolean sharded, MessageListener listener);

    /**
     * Sets the listener told after the pub/sub connection was re-established and resubscribed.
     * Core sets it once, before its first subscribe.
     */
    void setConnectionListener(ConnectionListener listener);

    /** @return the optional abilities this driver has; never null */
    Set<Capability> capabilities();

    /** Releases what the driver opened; idempotent. Never closes a client it was handed. */
    @Override
    void close();
}
