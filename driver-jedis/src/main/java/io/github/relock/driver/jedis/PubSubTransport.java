package io.github.relock.driver.jedis;

import redis.clients.jedis.Connection;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.JedisShardedPubSub;

/**
 * How a {@link PubSubMultiplexer} session talks to Redis: classic {@code SUBSCRIBE} through the
 * client (any node), or sharded {@code SSUBSCRIBE} on one cluster node. The multiplexer's state
 * machine is the same for both; only the Jedis listener class and where the connection comes from
 * differ.
 *
 * <p>Thread-safety: a transport is immutable and shared; each {@link Link} belongs to one session
 * ({@link Link#run} on the reader thread, the other methods under the multiplexer's lock).
 */
interface PubSubTransport {

    /** Callbacks of one session, called on the reader thread from inside {@link Link#run}. */
    interface Events {
        void subscribed(String channel);

        void unsubscribed(String channel);

        void message(String channel, String message);
    }

    /** One session's Jedis pub/sub object. */
    interface Link {
        /** Opens the connection and reads until no channel is left; throws when it breaks. */
        void run(String[] initial);

        void subscribe(String[] channels);

        void unsubscribe(String[] channels);

        void unsubscribeAll();
    }

    /** @return a new link for one session, reporting to {@code events} */
    Link newLink(Events events);

    /** @return the reader thread's name */
    String threadName();

    /** @return "pub/sub" or "sharded pub/sub on host:port", for messages */
    String describe();

    /** Classic pub/sub through the client's own connection provider, or a connection borrowed from its pool. */
    static PubSubTransport classic(JedisAccess client) {
        return new PubSubTransport() {
            @Override
            public Link newLink(Events events) {
                JedisPubSub pubsub = new JedisPubSub() {
                    @Override
                    public void onSubscribe(String channel, int subscribedChannels) {
                        events.subscribed(channel);
                    }

                    @Override
                    public void onUnsubscribe(String channel, int subscribedChannels) {
                        events.unsubscribed(channel);
                    }

                    @Override
                    public void onMessage(String channel, String message) {
                        events.message(channel, message);
                    }
                };
                return new Link() {
                    @Override
                    public void run(String[] initial) {
                        client.subscribe(pubsub, initial);
                    }

                    @Override
                    public void subscribe(String[] channels) {
                        pubsub.subscribe(channels);
                    }

                    @Override
                    public void unsubscribe(String[] channels) {
                        pubsub.unsubscribe(channels);
                    }

                    @Override
                    public void unsubscribeAll() {
                        pubsub.unsubscribe();
                    }
                };
            }

            @Override
            public String threadName() {
                return PubSubMultiplexer.THREAD_NAME;
            }

            @Override
            public String describe() {
                return "pub/sub";
            }
        };
    }

    /**
     * Sharded pub/sub on one cluster node. The connection is borrowed from the client's pool for
     * that node (its credentials and TLS) and marked broken when the session ends, so the pool
     * never hands out a connection that may still be in subscribed mode.
     *
     * @param node the node
     * @param connect borrows a connection to {@code node} from the client
     */
    static PubSubTransport sharded(HostAndPort node, java.util.function.Function<HostAndPort, Connection> connect) {
        return new PubSubTransport() {
            @Override
            public Link newLink(Events events) {
                return new ShardedLink(node, connect, events);
            }

            @Override
            public String threadName() {
                return ShardedPubSub.THREAD_PREFIX + node.getPort();
            }

            @Override
            public String describe() {
                return "sharded pub/sub on " + node;
            }
        };
    }

    /**
     * One sharded session. Redis refuses an {@code SSUBSCRIBE} or {@code SUNSUBSCRIBE} whose
     * channels hash to different slots ({@code CROSSSLOT}, which would end the session), so every
     * command carries the channels of one slot only. The session opens with the first slot's
     * channels; the others are sent when the server confirms the first one, before the
     * multiplexer hears of it, so nothing else writes to the connection meanwhile.
     */
    final class ShardedLink implements Link {
        private final HostAndPort node;
        private final java.util.function.Function<HostAndPort, Connection> connect;
        private final Events events;
        private final JedisShardedPubSub pubsub;
        /** Slot groups of the opening channels still to be sent; touched only by the reader thread. */
        private java.util.List<String[]> openingRest = java.util.List.of();

        ShardedLink(HostAndPort node, java.util.function.Function<HostAndPort, Connection> connect, Events events) {
            this.node = node;
            this.connect = connect;
            this.events = events;
            this.pubsub = new JedisShardedPubSub() {
                @Override
                public void onSSubscribe(String channel, int subscribedChannels) {
                    if (!openingRest.isEmpty()) {
                        java.util.List<String[]> rest = openingRest;
                        openingRest = java.util.List.of();
                        rest.forEach(group -> ssubscribe(group));
                    }
                    events.subscribed(channel);
                }

                @Override
                public void onSUnsubscribe(String channel, int subscribedChannels) {
                    events.unsubscribed(channel);
                }

                @Override
                public void onSMessage(String channel, String message) {
                    events.message(channel, message);
                }
            };
        }

        /** @return the channels grouped by hash slot, in first-seen order */
        static java.util.List<String[]> bySlot(String[] channels) {
            java.util.Map<Integer, java.util.List<String>> groups = new java.util.LinkedHashMap<>();
            for (String c : channels) {
                groups.computeIfAbsent(redis.clients.jedis.util.JedisClusterCRC16.getSlot(c), k -> new java.util.ArrayList<>())
                        .add(c);
            }
            return groups.values().stream().map(g -> g.toArray(new String[0])).toList();
        }

        @Override
        public void run(String[] initial) {
            java.util.List<String[]> groups = bySlot(initial);
            openingRest = groups.subList(1, groups.size());
            Connection c = connect.apply(node);
            try {
                pubsub.proceed(c, groups.get(0));
            } finally {
                c.setBroken(); // never back into the pool: it may still be subscribed
                c.close();
            }
        }

        @Override
        public void subscribe(String[] channels) {
            bySlot(channels).forEach(pubsub::ssubscribe);
        }

        @Override
        public void unsubscribe(String[] channels) {
            bySlot(channels).forEach(pubsub::sunsubscribe);
        }

        @Override
        public void unsubscribeAll() {
            pubsub.sunsubscribe();
        }
    }
}
