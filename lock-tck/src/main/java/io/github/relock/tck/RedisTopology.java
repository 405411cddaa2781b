package io.github.relock.tck;

import java.util.List;

/**
 * Where a kit runs: one server ({@link RedisServer}), a Redis Cluster ({@link RedisCluster}) or a
 * Sentinel-managed primary with replicas ({@link RedisSentinelGroup}). The chapters inspect and
 * steer Redis only through this interface, so every chapter that applies runs unchanged on each.
 *
 * <p>{@link #call} routes a command as a cluster-aware client would: a key command to the master
 * that owns the key's slot; a server-wide command ({@code FLUSHALL}, {@code KEYS},
 * {@code PUBSUB ...}, {@code DBSIZE}, {@code SCRIPT FLUSH}, {@code CONFIG RESETSTAT},
 * {@code CLIENT KILL}, {@code CLIENT LIST}, {@code INFO}) to every node it concerns, with the
 * replies merged (lists joined, counts added, texts joined by lines).
 *
 * <p>Thread-safety: implementations are safe for use by several threads.
 */
public interface RedisTopology {

    /** The shape of a deployment. */
    enum Kind {
        /** One server. */
        SINGLE,
        /** A Redis Cluster: masters with replicas, keys spread over hash slots. */
        CLUSTER,
        /** One primary and its replicas, watched by Sentinels that promote a replica on failure. */
        SENTINEL
    }

    /** @return the shape of this deployment */
    Kind kind();

    /**
     * Runs one command where it belongs (see the type's description) on fresh admin connections.
     *
     * @param args the command
     * @return its reply, merged over the nodes for a server-wide command
     */
    Object call(String... args);

    /**
     * @param key a key (or a channel, for {@code SPUBLISH}/{@code SSUBSCRIBE})
     * @return a new admin connection to the master currently serving it; close it after use
     */
    RespClient adminFor(String key);

    /** @return every data node now running (masters and replicas; not Sentinels) */
    List<RedisServer> dataNodes();
}
