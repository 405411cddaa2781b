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
                JedisShardedPubSub pubsub = new JedisShardedPubSub() {
                    @Override
                    public void onSSubscribe(String channel, int subscribedChannels) {
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
                return new Link() {
                    @Override
                    public void run(String[] initial) {
                        Connection c = connect.apply(node);
                        try {
                            pubsub.proceed(c, initial);
                        } finally {
                            c.setBroken(); // never back into the pool: it may still be subscribed
                            c.close();
                        }
                    }

                    @Override
                    public void subscribe(String[] channels) {
                        pubsub.ssubscribe(channels);
                    }

                    @Override
                    public void unsubscribe(String[] channels) {
                        pubsub.sunsubscribe(channels);
                    }

                    @Override
                    public void unsubscribeAll() {
                        pubsub.sunsubscribe();
                    }
                };
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
}
