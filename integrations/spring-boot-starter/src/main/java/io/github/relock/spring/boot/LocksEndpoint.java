package io.github.relock.spring.boot;

import io.github.relock.api.HeldLock;
import io.github.relock.api.LockClient;
import io.github.relock.api.LockClientStats;
import io.github.relock.api.LockInspection;
import io.github.relock.api.OwnerInfo;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

/**
 * The {@code locks} Actuator endpoint: what the application's {@link LockClient} holds, and what
 * Redis holds under one name. Read-only; answers are plain maps and lists (JSON over HTTP).
 * <ul>
 * <li>{@code GET /actuator/locks}: the client's id, its {@link LockClient#stats() stats}, and each
 *     lock it holds with its renewal state ({@link LockClient#heldLocks()}); no Redis call;</li>
 * <li>{@code GET /actuator/locks/{name}}: {@link LockClient#inspect(String)} of that name, whoever
 *     holds it: kind, holders with their owner info (and {@code cohortOwner}, the thread holding it
 *     now, for a lock this application holds through a cohort run), TTL, a fair lock's queue with each waiter's
 *     deadline, read holds, fencing token, a semaphore's count and held permits. One read-only
 *     script. A name the client refuses answers 400 with the reason.</li>
 * </ul>
 * Like every Actuator endpoint but health, it is not exposed over HTTP until the application
 * includes it: {@code management.endpoints.web.exposure.include=health,locks}.
 *
 * <p>Thread-safety: safe for use by several threads.
 */
@Endpoint(id = "locks")
public class LocksEndpoint {

    private final LockClient client;

    /** @param client the client whose locks the endpoint shows */
    public LocksEndpoint(LockClient client) {
        this.client = Objects.requireNonNull(client, "client");
    }

    /** @return the client's id, stats and held locks */
    @ReadOperation
    public Map<String, Object> locks() {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("clientId", client.clientId());
        LockClientStats stats = client.stats();
        out.put("stats", Map.of("heldLocks", stats.heldLocks(), "waiters", stats.waiters(),
                "subscriptions", stats.subscriptions()));
        out.put("watchdogTimeoutMillis", client.options().lockWatchdogTimeout().toMillis());
        out.put("held", client.heldLocks().stream()
                .sorted(java.util.Comparator.comparing(HeldLock::name).thenComparing(HeldLock::ownerField))
                .map(LocksEndpoint::held).toList());
        return out;
    }

    /**
     * @param name the lock, semaphore or latch name, as given to {@code getLock} etc.
     * @return what Redis holds under it
     */
    @ReadOperation
    public Map<String, Object> lock(@Selector String name) {
        LockInspection s;
        try {
            s = client.inspect(name);
        } catch (IllegalArgumentException e) {
            throw new InvalidEndpointRequestException(e.getMessage(), "bad lock name: " + e.getMessage());
        }
        return inspection(s);
    }

    private static Map<String, Object> held(HeldLock h) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", h.name());
        m.put("owner", h.ownerField());
        m.put("threadId", h.threadId());
        m.put("holdCount", h.holdCount());
        m.put("renewed", h.renewed());
        m.put("heldMillis", h.heldMillis());
        m.put("sinceConfirmedMillis", h.sinceConfirmedMillis());
        m.put("remainingMillis", h.remainingMillis());
        return m;
    }

    /** @return the inspection as maps and lists; absent parts are left out */
    static Map<String, Object> inspection(LockInspection s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", s.name());
        m.put("kind", s.kind().name());
        m.put("found", s.found());
        m.put("redisType", s.redisType());
        m.put("ttlMillis", s.ttlMillis());
        s.lockMode().ifPresent(mode -> m.put("lockMode", mode.name()));
        m.put("holders", s.holders().stream().map(LocksEndpoint::holder).toList());
        if (!s.queue().isEmpty() || s.kind() == LockInspection.Kind.FAIR) {
            m.put("queue", s.queue().stream().map(LocksEndpoint::waiter).toList());
        }
        if (!s.unqueuedDeadlines().isEmpty()) {
            m.put("unqueuedDeadlines", s.unqueuedDeadlines().stream().map(LocksEndpoint::waiter).toList());
        }
        if (!s.readHolds().isEmpty()) {
            m.put("readHolds", s.readHolds().stream().map(r -> Map.of("key", r.key(), "holder", r.holderField(),
                    "index", r.index(), "ttlMillis", r.ttlMillis())).toList());
        }
        put(m, "fencingToken", s.fencingToken());
        put(m, "count", s.count());
        if (s.kind() == LockInspection.Kind.PERMIT_EXPIRABLE_SEMAPHORE) {
            m.put("heldPermitCount", s.heldPermitCount());
            m.put("heldPermits", s.heldPermits().stream().map(p -> {
                Map<String, Object> permit = new LinkedHashMap<>();
                permit.put("id", p.id());
                p.deadlineEpochMillis().ifPresent(d -> permit.put("deadline", Instant.ofEpochMilli(d).toString()));
                return permit;
            }).toList());
        }
        return m;
    }

    private static Map<String, Object> holder(LockInspection.Holder h) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("owner", h.field());
        m.put("clientId", h.clientId());
        m.put("threadId", h.threadId());
        m.put("holdCount", h.holdCount());
        m.put("mode", h.mode().name());
        owner(h.owner()).ifPresent(o -> m.put("ownerInfo", o));
        h.cohortOwner().ifPresent(t -> m.put("cohortOwner", t)); // this application holds it through a cohort run
        return m;
    }

    private static Optional<Map<String, Object>> owner(Optional<OwnerInfo> info) {
        return info.map(o -> {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("host", o.host());
            m.put("application", o.application());
            m.put("instance", o.instance());
            m.put("version", o.version());
            return m;
        });
    }

    private static Map<String, Object> waiter(LockInspection.Waiter w) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("position", w.position());
        m.put("owner", w.field());
        m.put("clientId", w.clientId());
        put(m, "threadId", w.threadId());
        w.deadlineEpochMillis().ifPresent(d -> m.put("deadline", Instant.ofEpochMilli(d).toString()));
        return m;
    }

    private static void put(Map<String, Object> m, String key, OptionalLong value) {
        if (value.isPresent()) {
            m.put(key, value.getAsLong());
        }
    }
}
