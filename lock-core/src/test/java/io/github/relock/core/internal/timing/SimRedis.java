package io.github.relock.core.internal.timing;

import io.github.relock.api.RedisUnavailableException;
import io.github.relock.spi.Capability;
import io.github.relock.spi.CommandExecutor;
import io.github.relock.spi.ConnectionListener;
import io.github.relock.spi.Lane;
import io.github.relock.spi.MessageListener;
import io.github.relock.spi.NotSentException;
import io.github.relock.spi.Script;
import io.github.relock.spi.ScriptCall;
import io.github.relock.spi.Subscription;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/*
 * Design: an in-memory Redis for the timing simulation, and the network between it and each
 * client, where every delay is the simulation's choice.
 *
 * The data: the reentrant lock's hashes (field -> hold count, and the TTL last set), run by script
 * name with the semantics of lock-acquire.lua, lock-release.lua (hand-off and the outsiders count
 * included), lock-renew.lua and lock-state.lua; keys never expire by time (the watchdog keeps a
 * registered hold's key; renewal timing is tested elsewhere), only by the simulation's explicit
 * expiry of an orphan field, one no client registers or has a call in flight for.
 *
 * The network: an async call becomes an Op, QUEUED until the simulation runs it on the data (RAN),
 * then its reply is delivered or lost. A queued call may also time out (its future fails, the call
 * stays queued and may still run: a driver's queue with no deadline) or be refused before it is sent
 * (NotSentException: it never runs). With lanes, calls of one lane run and answer in
 * order (a Lettuce connection); without, in any order (a pool). Pub/sub: a subscription is
 * confirmed (or fails) when the simulation says; a published message goes to each confirmed
 * subscriber's inbox, delivered in order, possibly twice; a broken pub/sub connection loses its
 * inbox and tells the client it reconnected.
 *
 * Thread-safety: not thread-safe; confined to the simulation's thread (the engine's callbacks run
 * on it, since every future completes there).
 */
final class SimRedis {

    enum State { QUEUED, RAN, DONE }

    /** One async script call in flight. */
    final class Op {
        final int id;
        final String client;
        final String script;
        final List<String> keys;
        final List<String> args;
        final int lane;
        final CompletableFuture<Object> future = new CompletableFuture<>();
        State state = State.QUEUED;
        Object result;

        Op(int id, String client, String script, List<String> keys, List<String> args, int lane) {
            this.id = id;
            this.client = client;
            this.script = script;
            this.keys = keys;
            this.args = args;
            this.lane = lane;
        }

        /** @return the owner fields this call acts for (an acquire's owner; a release's owner and candidate) */
        List<String> fields() {
            return switch (script) {
                case "lock-acquire", "fair-acquire" -> List.of(args.get(1));
                case "lock-release" -> args.size() > 3 ? List.of(args.get(1), args.get(3)) : List.of(args.get(1));
                case "fair-release" -> args.size() > 5 ? List.of(args.get(1), args.get(5)) : List.of(args.get(1));
                default -> List.of();
            };
        }

        /** @return whether it is a release of this owner field's hold (not a hand-off to it) */
        boolean releases(String field) {
            return (script.equals("lock-release") || script.equals("fair-release")) && args.get(1).equals(field);
        }

        /** @return the fair waiter whose queue entry this call may add or remove (an attempt, a give-up) */
        List<String> queued() {
            return switch (script) {
                case "fair-acquire" -> List.of(args.get(1));
                case "fair-acquire-failed" -> List.of(args.get(0));
                default -> List.of();
            };
        }

        @Override
        public String toString() {
            return "op" + id + " " + client + " " + script + " " + shownArgs() + (lanes > 1 ? " lane " + lane : "");
        }

        private List<String> shownArgs() {
            return shown(script, args);
        }
    }

    /** One subscription of one client. */
    final class Sub implements Subscription {
        final String client;
        final String channel;
        final MessageListener listener;
        final CompletableFuture<Subscription> confirmed = new CompletableFuture<>();
        boolean active;

        Sub(String client, String channel, MessageListener listener) {
            this.client = client;
            this.channel = channel;
            this.listener = listener;
        }

        @Override
        public String channel() {
            return channel;
        }

        @Override
        public CompletableFuture<Void> unsubscribe() {
            if (active) {
                active = false;
                subs.remove(this);
                log.accept(client + " unsubscribes " + channel);
            }
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public String toString() {
            return client + " subscribe " + channel;
        }
    }

    /** A message in a client's pub/sub inbox. */
    record Msg(Sub to, String payload) {
        @Override
        public String toString() {
            return "'" + payload + "' on " + to.channel + " to " + to.client;
        }
    }

    /** @return the arguments, the fair scripts' wall clock shown as {@code <now>} (the model reads its own) */
    static List<String> shown(String script, List<String> args) {
        int now = script.equals("fair-acquire") ? 3 : script.equals("fair-release") ? 2 : -1;
        if (now < 0 || args.size() <= now) {
            return args;
        }
        List<String> shown = new ArrayList<>(args);
        shown.set(now, "<now>");
        return shown;
    }

    final int lanes;
    private final Consumer<String> log;
    private int nextOp;
    /** Every call not yet DONE, oldest first. */
    final List<Op> ops = new ArrayList<>();
    /** Subscriptions asked for and not yet confirmed or failed, oldest first. */
    final List<Sub> pendingSubs = new ArrayList<>();
    /** Confirmed subscriptions, in the order they were confirmed. */
    final List<Sub> subs = new ArrayList<>();
    final Map<String, Deque<Msg>> inboxes = new LinkedHashMap<>();
    final Map<String, ConnectionListener> reconnects = new HashMap<>();
    /** The lock hashes: key -> (field -> count), and each key's TTL as last set. */
    final Map<String, LinkedHashMap<String, Long>> hashes = new LinkedHashMap<>();
    final Map<String, Long> ttls = new HashMap<>();
    /** The fair lock's queue (owner fields, oldest first) and deadlines (epoch ms), per queue key. */
    final Map<String, List<String>> queues = new HashMap<>();
    final Map<String, Map<String, Long>> deadlines = new HashMap<>();
    /** The fair scripts' "now": the virtual clock, so queued deadlines pass as the simulation's time does. */
    private final java.util.function.LongSupplier nowMs;
    /** Keys that went free by expiry (no message published), until written again. */
    final Set<String> freedByExpiry = new HashSet<>();
    /** Scripts no model exists for (a violation: the engine used a path the simulation does not model). */
    final List<String> unknownScripts = new ArrayList<>();

    SimRedis(int lanes, Consumer<String> log, java.util.function.LongSupplier nowMs) {
        this.lanes = Math.max(1, lanes);
        this.log = log;
        this.nowMs = nowMs;
    }

    /** @return the client {@code client}'s executor */
    Executor executor(String client, java.util.Random laneChooser) {
        inboxes.put(client, new ArrayDeque<>());
        return new Executor(client, laneChooser);
    }

    // ---------------------------------------------------------------- what the simulation can do next

    /** @return the calls that may run now: every queued one, or with lanes the oldest queued of each lane */
    List<Op> runnable() {
        return heads(State.QUEUED);
    }

    /** @return the calls whose reply may be delivered or lost now */
    List<Op> answerable() {
        List<Op> r = new ArrayList<>();
        for (Op o : heads(State.RAN)) {
            if (!o.future.isDone()) {
                r.add(o);
            }
        }
        return r;
    }

    /** @return the queued calls whose caller still waits (they may time out or be refused) */
    List<Op> waitingQueued() {
        List<Op> r = new ArrayList<>();
        for (Op o : ops) {
            if (o.state == State.QUEUED && !o.future.isDone()) {
                r.add(o);
            }
        }
        return r;
    }

    /** Without lanes every call in {@code state}; with lanes the oldest of each lane (it runs and answers in order). */
    private List<Op> heads(State state) {
        List<Op> r = new ArrayList<>();
        boolean[] seen = new boolean[lanes];
        for (Op o : ops) {
            if (o.state != state) {
                continue;
            }
            if (lanes > 1) {
                if (seen[o.lane]) {
                    continue;
                }
                seen[o.lane] = true;
            }
            r.add(o);
        }
        return r;
    }

    void run(Op o) {
        o.result = execute(o.client, o.script, o.keys, o.args);
        o.state = State.RAN;
        if (o.future.isDone()) {
            o.state = State.DONE; // its caller stopped waiting (timed out): the reply goes nowhere
            ops.remove(o);
        }
    }

    void reply(Op o) {
        o.state = State.DONE;
        ops.remove(o);
        o.future.complete(o.result);
    }

    /** The call ran but its reply never comes: the caller sees a connection failure. */
    void loseReply(Op o) {
        o.state = State.DONE;
        ops.remove(o);
        o.future.completeExceptionally(new RedisUnavailableException("simulated: connection lost before the reply"));
    }

    /** The call times out in the driver's queue; it stays queued and may still run. */
    void timeOut(Op o) {
        o.future.completeExceptionally(new RedisUnavailableException("simulated: command timed out"));
    }

    /** The driver refuses the call before sending it: it never runs. */
    void refuse(Op o) {
        o.state = State.DONE;
        ops.remove(o);
        o.future.completeExceptionally(new NotSentException("simulated: refused before sending (queue full)"));
    }

    void confirm(Sub s) {
        pendingSubs.remove(s);
        s.active = true;
        subs.add(s);
        s.confirmed.complete(s);
    }

    void failSubscribe(Sub s) {
        pendingSubs.remove(s);
        s.confirmed.completeExceptionally(new RedisUnavailableException("simulated: subscribe failed"));
    }

    /** Delivers the oldest message of {@code client}'s inbox; with {@code twice}, it stays to come again. */
    Msg deliver(String client, boolean twice) {
        Deque<Msg> in = inboxes.get(client);
        Msg m = twice ? in.peekFirst() : in.pollFirst();
        if (m != null && m.to.active) { // none after the unsubscribe returned
            m.to.listener.onMessage(m.to.channel, m.payload);
        }
        return m;
    }

    /** The pub/sub connection of {@code client} breaks and comes back: its inbox is lost, it is told. */
    int reconnect(String client) {
        Deque<Msg> in = inboxes.get(client);
        int lost = in.size();
        in.clear();
        ConnectionListener l = reconnects.get(client);
        if (l != null) {
            l.onReconnect();
        }
        return lost;
    }

    /** Deletes a key as its TTL running out would: no message. */
    void expire(String key) {
        hashes.remove(key);
        ttls.remove(key);
        freedByExpiry.add(key);
    }

    // ---------------------------------------------------------------- the scripts

    Object execute(String client, String script, List<String> keys, List<String> args) {
        return switch (script) {
            case "lock-acquire" -> acquire(keys.get(0), args);
            case "lock-release" -> release(keys.get(0), keys.get(1), args);
            case "lock-renew" -> renew(keys, args);
            case "lock-state" -> state(keys.get(0), args.get(0));
            case "fair-acquire" -> fairAcquire(keys, args);
            case "fair-release" -> fairRelease(keys, args);
            case "fair-acquire-failed" -> fairGiveUp(keys, args);
            default -> {
                unknownScripts.add(client + " ran " + script + " " + keys + " " + args);
                throw new RedisUnavailableException("simulated Redis has no model of script " + script);
            }
        };
    }

    /** lock-acquire.lua. */
    private Object acquire(String key, List<String> args) {
        long ttl = Long.parseLong(args.get(0));
        String field = args.get(1);
        LinkedHashMap<String, Long> h = hashes.get(key);
        if ("resolve".equals(args.get(3)) && h != null && h.containsKey(field)) {
            ttls.put(key, ttl);
            return null;
        }
        if ("nonreentrant".equals(args.get(2)) && h != null && h.containsKey(field)) {
            return -3L;
        }
        if (h == null || h.containsKey(field)) {
            write(key).merge(field, 1L, Long::sum);
            ttls.put(key, ttl);
            return null;
        }
        return ttls.getOrDefault(key, -1L);
    }

    /** lock-release.lua. */
    private Object release(String key, String channel, List<String> args) {
        long ttl = Long.parseLong(args.get(0));
        String field = args.get(1);
        LinkedHashMap<String, Long> h = hashes.get(key);
        if (h == null || !h.containsKey(field)) {
            return h == null ? List.of(-1L, 0L) : List.of(-2L, 0L);
        }
        long remaining = h.merge(field, -1L, Long::sum);
        if (remaining > 0) {
            ttls.put(key, ttl);
            return List.of(0L, 0L);
        }
        hashes.remove(key);
        ttls.remove(key);
        if (args.size() > 3 && outsiders(channel, Long.parseLong(args.get(5)), Long.parseLong(args.get(6))) == 0) {
            write(key).put(args.get(3), 1L);
            ttls.put(key, Long.parseLong(args.get(4)));
            return List.of(2L, 0L);
        }
        return List.of(1L, publish(channel, "0"));
    }

    /** fragments/outsiders.lua on a server without sharded subscribers. */
    private long outsiders(String channel, long ownClassic, long ownSharded) {
        long classic = numsub(channel) - ownClassic;
        long sharded = -ownSharded;
        return Math.max(classic, 0) + Math.max(sharded, 0);
    }

    /** lock-renew.lua. */
    private Object renew(List<String> keys, List<String> args) {
        List<Object> r = new ArrayList<>();
        for (int i = 0; i < keys.size(); i++) {
            LinkedHashMap<String, Long> h = hashes.get(keys.get(i));
            Long count = h == null ? null : h.get(args.get(1 + 2 * i));
            if (count != null && count > 0) {
                ttls.put(keys.get(i), Long.parseLong(args.get(0)));
                r.add(1L);
            } else {
                r.add(0L);
            }
        }
        return r;
    }

    /** lock-state.lua. */
    private Object state(String key, String field) {
        LinkedHashMap<String, Long> h = hashes.get(key);
        long count = h == null || field.isEmpty() ? 0 : h.getOrDefault(field, 0L);
        return List.of(h == null ? 0L : 1L, count, h == null ? -2L : ttls.getOrDefault(key, -1L));
    }

    /**
     * fair-acquire.lua, with the simulation's clock for ARGV[4] (every client's clock is the
     * simulation's, so a queued deadline passes when virtual time does).
     */
    private Object fairAcquire(List<String> keys, List<String> args) {
        String key = keys.get(0);
        List<String> queue = queue(keys.get(1));
        Map<String, Long> dl = deadlines(keys.get(2));
        long ttlArg = Long.parseLong(args.get(0));
        String field = args.get(1);
        long wait = Long.parseLong(args.get(2));
        long now = nowMs.getAsLong();
        LinkedHashMap<String, Long> h = hashes.get(key);
        if ("resolve".equals(args.get(6)) && h != null && h.containsKey(field)) {
            ttls.put(key, ttlArg);
            return null;
        }
        prune(queue, dl, now);
        if (h == null && !queue.isEmpty()) {
            String head = queue.get(0);
            if (!head.equals(field) && dl.get(head) > now + wait) {
                dl.put(head, now + wait);
            }
        }
        if (h == null && (queue.isEmpty() || queue.get(0).equals(field))) {
            if (!queue.isEmpty()) {
                queue.remove(0);
            }
            dl.remove(field);
            dl.replaceAll((f, score) -> score - wait);
            write(key).put(field, 1L);
            ttls.put(key, ttlArg);
            return null;
        }
        if (h != null && h.containsKey(field)) {
            if ("nonreentrant".equals(args.get(5))) {
                return -3L;
            }
            h.merge(field, 1L, Long::sum);
            ttls.put(key, ttlArg);
            return null;
        }
        long pttl = h == null ? -2 : ttls.getOrDefault(key, -1L);
        if ("try".equals(args.get(4))) {
            return Math.max(pttl, 0);
        }
        Long score = dl.get(field);
        if (score != null) {
            int position = queue.indexOf(field) + 1;
            if (position > 0) {
                long fresh = now + Math.max(pttl, 0) + position * wait;
                if (fresh > score) {
                    dl.put(field, fresh);
                }
                return Math.max(pttl, 0);
            }
            dl.remove(field);
        }
        String last = queue.isEmpty() ? null : queue.get(queue.size() - 1);
        Long lastScore = last != null && !last.equals(field) ? dl.get(last) : null;
        long ttl = lastScore != null ? lastScore - now : pttl;
        if (dl.put(field, ttl + wait + now) == null) {
            queue.add(field);
        }
        return Math.max(ttl, 0);
    }

    /** fair-release.lua (its "now" is the simulation's, as in {@link #fairAcquire}). */
    private Object fairRelease(List<String> keys, List<String> args) {
        String key = keys.get(0);
        List<String> queue = queue(keys.get(1));
        Map<String, Long> dl = deadlines(keys.get(2));
        String channel = keys.get(3);
        String field = args.get(1);
        prune(queue, dl, nowMs.getAsLong());
        LinkedHashMap<String, Long> h = hashes.get(key);
        if (h == null) {
            return List.of(-1L, queue.isEmpty() ? 0L : publish(channel + ":" + queue.get(0), "0"));
        }
        if (!h.containsKey(field)) {
            return List.of(-2L, 0L);
        }
        long remaining = h.merge(field, -1L, Long::sum);
        if (remaining > 0) {
            ttls.put(key, Long.parseLong(args.get(0)));
            return List.of(0L, 0L);
        }
        hashes.remove(key);
        ttls.remove(key);
        String head = queue.isEmpty() ? null : queue.get(0);
        if (head != null && args.size() > 4 && args.get(5).equals(head)) {
            long wait = Long.parseLong(args.get(4));
            queue.remove(0);
            dl.remove(head);
            dl.replaceAll((f, score) -> score - wait);
            write(key).put(head, 1L);
            ttls.put(key, Long.parseLong(args.get(6)));
            return List.of(2L, 0L);
        }
        return List.of(1L, head == null ? 0L : publish(channel + ":" + head, "0"));
    }

    /** fair-acquire-failed.lua. */
    private Object fairGiveUp(List<String> keys, List<String> args) {
        List<String> queue = queue(keys.get(0));
        Map<String, Long> dl = deadlines(keys.get(1));
        String field = args.get(0);
        long wait = Long.parseLong(args.get(1));
        int position = queue.indexOf(field) + 1;
        if (position == 0) {
            position = queue.size() + 1;
        }
        for (int i = position; i < queue.size(); i++) {
            dl.merge(queue.get(i), -wait, Long::sum); // ZINCRBY adds a member it does not find
        }
        dl.remove(field);
        queue.removeIf(field::equals);
        if (position == 1 && !hashes.containsKey(keys.get(2)) && !queue.isEmpty()) {
            publish(keys.get(3) + ":" + queue.get(0), "0");
        }
        return null;
    }

    /** fragments/prune.lua. */
    private static void prune(List<String> queue, Map<String, Long> dl, long now) {
        while (!queue.isEmpty()) {
            Long deadline = dl.get(queue.get(0));
            if (deadline != null && deadline > now) {
                return;
            }
            dl.remove(queue.get(0));
            queue.remove(0);
        }
    }

    List<String> queue(String key) {
        return queues.computeIfAbsent(key, k -> new ArrayList<>());
    }

    Map<String, Long> deadlines(String key) {
        return deadlines.computeIfAbsent(key, k -> new LinkedHashMap<>());
    }

    private LinkedHashMap<String, Long> write(String key) {
        freedByExpiry.remove(key);
        return hashes.computeIfAbsent(key, k -> new LinkedHashMap<>());
    }

    long numsub(String channel) {
        long n = 0;
        for (Sub s : subs) {
            if (s.channel.equals(channel)) {
                n++;
            }
        }
        return n;
    }

    private long publish(String channel, String payload) {
        long n = 0;
        for (Sub s : subs) {
            if (s.channel.equals(channel)) {
                inboxes.get(s.client).addLast(new Msg(s, payload));
                n++;
            }
        }
        return n;
    }

    // ---------------------------------------------------------------- the driver side

    /** One client's driver: every async call waits for the simulation; a blocking one runs at once. */
    final class Executor implements CommandExecutor {
        private final String client;
        private final java.util.Random laneChooser;
        /** After close every call fails; calls already sent still run and answer. */
        boolean closed;

        Executor(String client, java.util.Random laneChooser) {
            this.client = client;
            this.laneChooser = laneChooser;
        }

        private CompletableFuture<Object> send(Script script, List<String> keys, List<String> args) {
            if (closed) {
                log.accept("  " + client + " (closed) refuses " + script.name() + " " + shown(script.name(), args));
                return CompletableFuture.failedFuture(new IllegalStateException("simulated executor is closed"));
            }
            Op o = new Op(++nextOp, client, script.name(), List.copyOf(keys), List.copyOf(args),
                    lanes > 1 ? laneChooser.nextInt(lanes) : 0);
            ops.add(o);
            log.accept("  " + client + " sends " + o);
            return o.future;
        }

        @Override
        public Object eval(ScriptCall call) {
            if (closed) {
                throw new IllegalStateException("simulated executor is closed");
            }
            String script = call.script().name();
            log.accept("  " + client + " runs (blocking) " + script + " " + shown(script, call.args()));
            return execute(client, script, call.keys(), call.args());
        }

        /** Either lane: the simulation's lanes are its own ({@code lanes}), chosen at random. */
        @Override
        public CompletableFuture<Object> evalAsync(ScriptCall call, Lane lane) {
            return send(call.script(), call.keys(), call.args());
        }

        @Override
        public CompletableFuture<Subscription> subscribe(String channel, boolean sharded, MessageListener listener) {
            if (closed) {
                return CompletableFuture.failedFuture(new IllegalStateException("simulated executor is closed"));
            }
            Sub s = new Sub(client, channel, listener);
            pendingSubs.add(s);
            log.accept("  " + client + " asks to subscribe " + channel);
            return s.confirmed;
        }

        @Override
        public void setConnectionListener(ConnectionListener listener) {
            reconnects.put(client, listener);
        }

        @Override
        public Set<Capability> capabilities() {
            return Set.of();
        }

        @Override
        public void close() {
            closed = true;
        }
    }
}
