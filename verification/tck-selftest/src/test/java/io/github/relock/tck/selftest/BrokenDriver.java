package io.github.relock.tck.selftest;

import io.github.relock.api.RedisErrorException;
import io.github.relock.api.RedisUnavailableException;
import io.github.relock.spi.Capability;
import io.github.relock.spi.CommandExecutor;
import io.github.relock.spi.ConnectionListener;
import io.github.relock.spi.DriverOptions;
import io.github.relock.spi.Lane;
import io.github.relock.spi.MessageListener;
import io.github.relock.spi.NoScriptException;
import io.github.relock.spi.RedisDriverProvider;
import io.github.relock.spi.Script;
import io.github.relock.spi.ScriptCall;
import io.github.relock.spi.Subscription;
import io.github.relock.tck.FaultInjectingDriver;
import io.github.relock.tck.Faults;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import redis.clients.jedis.Connection;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.RedisClient;
import redis.clients.jedis.RedisClusterClient;

/**
 * Deliberately broken drivers: the real driver under a wrapper that breaks one part of the
 * {@link CommandExecutor} contract, each a defect a real driver has had or could have. The
 * self-test runs kit rules against them; each must fail the rules that guard that part.
 *
 * <p>Thread-safety: the wrappers are as thread-safe as the executor they wrap.
 */
enum BrokenDriver {

    /** Integer replies arrive as their decimal strings (a reply type mapped wrongly). */
    MANGLED_INTEGERS("turns every integer reply into its decimal string") {
        @Override
        CommandExecutor wrap(CommandExecutor e, Object nativeClient, RedisDriverProvider real, DriverOptions o) {
            return replies(e, r -> r instanceof Long l ? Long.toString(l) : r);
        }
    },

    /** Integer replies arrive as nil: a held lock's "held, n ms left" reads as "acquired". */
    INTEGERS_AS_NIL("turns every integer reply into nil") {
        @Override
        CommandExecutor wrap(CommandExecutor e, Object nativeClient, RedisDriverProvider real, DriverOptions o) {
            return replies(e, r -> r instanceof Long ? null : r);
        }
    },

    /** Arrays inside arrays stay the client's own type (normalised at the top level only). */
    NESTED_ARRAYS_UNNORMALISED("leaves arrays inside arrays as Object[]") {
        @Override
        CommandExecutor wrap(CommandExecutor e, Object nativeClient, RedisDriverProvider real, DriverOptions o) {
            return new ForwardingExecutor(e) {
                @Override
                public Object eval(ScriptCall call) {
                    return topLevelOnly(inner.eval(call));
                }

                @Override
                CompletableFuture<Object> applicationAsync(ScriptCall call) {
                    return inner.evalAsync(call, Lane.APPLICATION).thenApply(BrokenDriver::topLevelOnly);
                }
            };
        }
    },

    /** Keys, arguments and replies in Latin-1, not UTF-8. */
    LATIN1("encodes keys and arguments, and decodes replies, as Latin-1") {
        @Override
        CommandExecutor wrap(CommandExecutor e, Object nativeClient, RedisDriverProvider real, DriverOptions o) {
            UnaryOperator<List<String>> send = l -> l.stream()
                    .map(s -> new String(s.getBytes(StandardCharsets.ISO_8859_1), StandardCharsets.ISO_8859_1)).toList();
            Function<Object, Object> read = r -> r instanceof String s
                    ? new String(s.getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1) : r;
            return new ForwardingExecutor(replies(e, read)) {
                @Override
                public Object eval(ScriptCall call) {
                    return inner.eval(same(call, send.apply(call.keys()), send.apply(call.args())));
                }

                @Override
                CompletableFuture<Object> applicationAsync(ScriptCall call) {
                    return inner.evalAsync(same(call, send.apply(call.keys()), send.apply(call.args())), Lane.APPLICATION);
                }
            };
        }
    },

    /** NOSCRIPT is reported as an ordinary error reply, so core never falls back to EVAL. */
    NOSCRIPT_IGNORED("reports NOSCRIPT as a plain RedisErrorException") {
        @Override
        CommandExecutor wrap(CommandExecutor e, Object nativeClient, RedisDriverProvider real, DriverOptions o) {
            return errors(e, t -> t instanceof NoScriptException n ? new RedisErrorException(n.getMessage()) : t);
        }
    },

    /** Error replies escape as the client's own exception type, their code lost. */
    ERRORS_UNTYPED("lets error replies escape as IllegalStateException") {
        @Override
        CommandExecutor wrap(CommandExecutor e, Object nativeClient, RedisDriverProvider real, DriverOptions o) {
            return errors(e, t -> t instanceof RedisErrorException r && !(r instanceof NoScriptException)
                    ? new IllegalStateException("client error: " + r.getMessage()) : t);
        }
    },

    /**
     * Every error reply is a refusal: a server that is loading, read-only after a failover,
     * resharding or busy with a script reads as refusing for good (the three drivers before
     * issue 38's F8).
     */
    TRANSIENT_AS_REFUSED("reports every error reply as RedisErrorException, LOADING and BUSY too") {
        @Override
        CommandExecutor wrap(CommandExecutor e, Object nativeClient, RedisDriverProvider real, DriverOptions o) {
            return errors(e, t -> {
                for (Throwable c = t; t instanceof RedisUnavailableException && c != null; c = c.getCause()) {
                    if (c instanceof redis.clients.jedis.exceptions.JedisDataException reply) {
                        return new RedisErrorException(reply.getMessage(), reply);
                    }
                }
                return t;
            });
        }
    },

    /** Connection failures escape as the client's own exception type. */
    UNAVAILABLE_UNTYPED("lets connection failures escape as IllegalStateException") {
        @Override
        CommandExecutor wrap(CommandExecutor e, Object nativeClient, RedisDriverProvider real, DriverOptions o) {
            return errors(e, t -> t instanceof RedisUnavailableException u
                    ? new IllegalStateException("client connection error: " + u.getMessage()) : t);
        }
    },

    /** The blocking calls give up when the caller is interrupted, as a wait on a future would. */
    INTERRUPTIBLE_CALLS("gives up the blocking eval when the caller is interrupted, clearing the flag") {
        @Override
        CommandExecutor wrap(CommandExecutor e, Object nativeClient, RedisDriverProvider real, DriverOptions o) {
            return checked(e, false, () -> {
                if (Thread.interrupted()) {
                    throw new RedisUnavailableException("interrupted while waiting for the reply");
                }
            });
        }
    },

    /** The async calls skip reply normalisation: integers arrive as strings there only. */
    ASYNC_UNNORMALISED("leaves async replies unnormalised (integers as strings), blocking ones are right") {
        @Override
        CommandExecutor wrap(CommandExecutor e, Object nativeClient, RedisDriverProvider real, DriverOptions o) {
            CommandExecutor mangled = replies(e, r -> r instanceof Long l ? Long.toString(l) : r);
            return new ForwardingExecutor(e) {
                @Override
                CompletableFuture<Object> applicationAsync(ScriptCall call) {
                    return mangled.evalAsync(call, Lane.APPLICATION);
                }
            };
        }
    },

    /** The async calls run the blocking call on the caller's thread. */
    BLOCKING_ASYNC("runs evalAsync on the caller's thread") {
        @Override
        CommandExecutor wrap(CommandExecutor e, Object nativeClient, RedisDriverProvider real, DriverOptions o) {
            return new ForwardingExecutor(e) {
                @Override
                CompletableFuture<Object> applicationAsync(ScriptCall call) {
                    return now(() -> inner.eval(call));
                }
            };
        }
    },

    /** Every async call starts a thread of its own, kept until close(): threads grow with the calls. */
    THREAD_PER_ASYNC_CALL("starts a thread for every async call and keeps it until close()") {
        @Override
        CommandExecutor wrap(CommandExecutor e, Object nativeClient, RedisDriverProvider real, DriverOptions o) {
            AtomicInteger n = new AtomicInteger();
            CountDownLatch closed = new CountDownLatch(1);
            java.util.concurrent.Executor threadEach = r -> {
                Thread t = new Thread(() -> {
                    r.run();
                    try {
                        closed.await();
                    } catch (InterruptedException ignored) {
                        // ends the thread
                    }
                }, "broken-async-" + n.incrementAndGet());
                t.setDaemon(true);
                t.start();
            };
            return new ForwardingExecutor(e) {
                @Override
                CompletableFuture<Object> applicationAsync(ScriptCall call) {
                    return CompletableFuture.supplyAsync(() -> inner.eval(call), threadEach);
                }

                @Override
                public void close() {
                    closed.countDown();
                    inner.close();
                }
            };
        }
    },

    /**
     * Async calls wait in a FIFO queue of its own for its one thread, with no deadline: a call
     * queued behind a stall is sent whenever its turn comes (as the Jedis and Spring Data drivers
     * did before rule 27.1).
     */
    QUEUED_WITHOUT_DEADLINE("queues async calls for its one thread with no deadline, sending them however late") {
        @Override
        CommandExecutor wrap(CommandExecutor e, Object nativeClient, RedisDriverProvider real, DriverOptions o) {
            java.util.concurrent.ExecutorService fifo = java.util.concurrent.Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, "broken-fifo");
                t.setDaemon(true);
                return t;
            });
            return new ForwardingExecutor(e) {
                @Override
                CompletableFuture<Object> applicationAsync(ScriptCall call) {
                    return CompletableFuture.supplyAsync(() -> inner.eval(call), fifo);
                }

                @Override
                public void close() {
                    fifo.shutdownNow();
                    inner.close();
                }
            };
        }
    },

    /** The watchdog's renewals go on the application's async path, behind whatever it queued. */
    RENEWALS_SHARE_LANE("sends renewals (Lane.RENEWAL) behind the application's async calls") {
        @Override
        CommandExecutor wrap(CommandExecutor e, Object nativeClient, RedisDriverProvider real, DriverOptions o) {
            return new ForwardingExecutor(e) {
                @Override
                CompletableFuture<Object> renewalAsync(ScriptCall call) {
                    return inner.evalAsync(call, Lane.APPLICATION);
                }
            };
        }
    },

    /** Every script is sent twice (a "retry" after the first reply): Redis counts every re-entry twice. */
    RESENT_SCRIPTS("sends every script twice and answers the first reply") {
        @Override
        CommandExecutor wrap(CommandExecutor e, Object nativeClient, RedisDriverProvider real, DriverOptions o) {
            return new ForwardingExecutor(e) {
                @Override
                public Object eval(ScriptCall call) {
                    Object first = inner.eval(call);
                    inner.eval(call);
                    return first;
                }

                @Override
                CompletableFuture<Object> applicationAsync(ScriptCall call) {
                    return inner.evalAsync(call, Lane.APPLICATION)
                            .thenCompose(first -> inner.evalAsync(call, Lane.APPLICATION).handle((x, t) -> first));
                }
            };
        }
    },

    /**
     * Every lock release runs twice (a driver that resends a release it thought lost, say after a
     * late reply), answering the first reply: an inner unlock of a re-entered lock frees it.
     */
    RELEASES_APPLIED_TWICE("runs every lock release twice and answers the first reply") {
        @Override
        CommandExecutor wrap(CommandExecutor e, Object nativeClient, RedisDriverProvider real, DriverOptions o) {
            return new ForwardingExecutor(e) {
                /** Runs {@code call}, and once more if {@code script} is a release; answers the first reply. */
                private Object twiceIfRelease(Script script, java.util.function.Supplier<Object> call) {
                    Object first = call.get();
                    if (script.name().endsWith("-release")) {
                        call.get();
                    }
                    return first;
                }

                private CompletableFuture<Object> twiceIfReleaseAsync(Script script,
                        java.util.function.Supplier<CompletableFuture<Object>> call) {
                    CompletableFuture<Object> first = call.get();
                    return script.name().endsWith("-release") ? first.thenCompose(r -> call.get().handle((x, t) -> r))
                            : first;
                }

                @Override
                public Object eval(ScriptCall call) {
                    return twiceIfRelease(call.script(), () -> inner.eval(call));
                }

                @Override
                CompletableFuture<Object> applicationAsync(ScriptCall call) {
                    return twiceIfReleaseAsync(call.script(), () -> inner.evalAsync(call, Lane.APPLICATION));
                }
            };
        }
    },

    /** Lock releases are acknowledged as done without being sent. */
    SWALLOWED_RELEASES("answers every lock release 'released' without running it") {
        @Override
        RedisDriverProvider provider(RedisDriverProvider real) {
            Faults lies = new Faults();
            lies.on("lock-release").times(Integer.MAX_VALUE).answer(1L);
            return new FaultInjectingDriver(real, lies);
        }

        @Override
        CommandExecutor wrap(CommandExecutor e, Object nativeClient, RedisDriverProvider real, DriverOptions o) {
            throw new UnsupportedOperationException("provider() builds it");
        }
    },

    /** No pub/sub message reaches a listener. */
    DROPPED_MESSAGES("delivers no pub/sub message") {
        @Override
        CommandExecutor wrap(CommandExecutor e, Object nativeClient, RedisDriverProvider real, DriverOptions o) {
            return new ForwardingExecutor(e) {
                @Override
                public CompletableFuture<Subscription> subscribe(String channel, boolean sharded, MessageListener l) {
                    return inner.subscribe(channel, sharded, (c, m) -> { });
                }
            };
        }
    },

    /**
     * A subscribe is confirmed at once, before Redis has it, and its messages reach no listener:
     * a waiter parks believing it listens, and no release reaches it.
     */
    UNCONFIRMED_SUBSCRIBE("confirms a subscribe at once, subscribes 300 ms later and delivers none of its messages") {
        @Override
        CommandExecutor wrap(CommandExecutor e, Object nativeClient, RedisDriverProvider real, DriverOptions o) {
            return new ForwardingExecutor(e) {
                @Override
                public CompletableFuture<Subscription> subscribe(String channel, boolean sharded, MessageListener l) {
                    CompletableFuture<Subscription> later = CompletableFuture.supplyAsync(() -> null,
                            CompletableFuture.delayedExecutor(300, TimeUnit.MILLISECONDS))
                            .thenCompose(x -> inner.subscribe(channel, sharded, (c, m) -> { }));
                    return CompletableFuture.completedFuture(new Subscription() {
                        @Override
                        public String channel() {
                            return channel;
                        }

                        @Override
                        public CompletableFuture<Void> unsubscribe() {
                            return later.thenCompose(Subscription::unsubscribe);
                        }
                    });
                }
            };
        }
    },

    /** Channels go to a new pub/sub connection every 100 channels (a batch each). */
    CONNECTION_PER_BATCH("opens another pub/sub connection for every 100 channels") {
        @Override
        CommandExecutor wrap(CommandExecutor e, Object nativeClient, RedisDriverProvider real, DriverOptions o) {
            List<CommandExecutor> batches = new java.util.concurrent.CopyOnWriteArrayList<>(List.of(e));
            AtomicInteger subscribed = new AtomicInteger();
            ConnectionListener[] listener = {() -> { }};
            return new ForwardingExecutor(e) {
                @Override
                public synchronized CompletableFuture<Subscription> subscribe(String channel, boolean sharded,
                        MessageListener l) {
                    int batch = subscribed.getAndIncrement() / 100;
                    while (batches.size() <= batch) {
                        CommandExecutor more = real.create(nativeClient, o);
                        more.setConnectionListener(() -> listener[0].onReconnect());
                        batches.add(more);
                    }
                    return batches.get(batch).subscribe(channel, sharded, l);
                }

                @Override
                public void setConnectionListener(ConnectionListener l) {
                    listener[0] = l;
                    inner.setConnectionListener(l);
                }

                @Override
                public void close() {
                    batches.forEach(CommandExecutor::close);
                }
            };
        }
    },

    /** Unsubscribe answers at once and sends UNSUBSCRIBE later, after whatever core does next. */
    EARLY_UNSUBSCRIBE("completes unsubscribe at once and sends it 200 ms later") {
        @Override
        CommandExecutor wrap(CommandExecutor e, Object nativeClient, RedisDriverProvider real, DriverOptions o) {
            return new ForwardingExecutor(e) {
                @Override
                public CompletableFuture<Subscription> subscribe(String channel, boolean sharded, MessageListener l) {
                    return inner.subscribe(channel, sharded, l).thenApply(s -> new Subscription() {
                        @Override
                        public String channel() {
                            return s.channel();
                        }

                        @Override
                        public CompletableFuture<Void> unsubscribe() {
                            CompletableFuture.runAsync(s::unsubscribe,
                                    CompletableFuture.delayedExecutor(200, TimeUnit.MILLISECONDS));
                            return CompletableFuture.completedFuture(null);
                        }
                    });
                }
            };
        }
    },

    /** After a reconnect the channels are not subscribed again (core is told all is well). */
    NO_RESUBSCRIBE("drops every channel when the pub/sub connection comes back") {
        @Override
        CommandExecutor wrap(CommandExecutor e, Object nativeClient, RedisDriverProvider real, DriverOptions o) {
            Map<String, Subscription> live = new ConcurrentHashMap<>();
            return new ForwardingExecutor(e) {
                @Override
                public CompletableFuture<Subscription> subscribe(String channel, boolean sharded, MessageListener l) {
                    return inner.subscribe(channel, sharded, l).thenApply(s -> {
                        live.put(channel, s);
                        return new Subscription() {
                            @Override
                            public String channel() {
                                return s.channel();
                            }

                            @Override
                            public CompletableFuture<Void> unsubscribe() {
                                live.remove(channel, s);
                                return s.unsubscribe();
                            }
                        };
                    });
                }

                @Override
                public void setConnectionListener(ConnectionListener l) {
                    inner.setConnectionListener(() -> {
                        List<CompletableFuture<Void>> gone = new ArrayList<>();
                        live.values().forEach(s -> gone.add(s.unsubscribe()));
                        CompletableFuture.allOf(gone.toArray(CompletableFuture[]::new)).whenComplete((v, t) -> l.onReconnect());
                    });
                }
            };
        }
    },

    /**
     * evalWithWaitAsync runs the script but drops the WAIT, answering the replica count it was asked
     * for as if every replica had acknowledged.
     */
    WAIT_DROPPED("drops the WAIT of evalWithWaitAsync and answers the replica count it was asked for") {
        @Override
        CommandExecutor wrap(CommandExecutor e, Object nativeClient, RedisDriverProvider real, DriverOptions o) {
            return new ForwardingExecutor(e) {
                @Override
                public CompletableFuture<List<Object>> evalWithWaitAsync(ScriptCall call, int replicas, long timeoutMs,
                                                                         Lane lane) {
                    return inner.evalAsync(call, lane).thenApply(r -> List.of(r, (long) replicas));
                }
            };
        }
    },

    /** A sharded subscribe without SHARDED_PUBSUB quietly subscribes the classic channel. */
    SHARDED_DEGRADED_QUIETLY("declares no SHARDED_PUBSUB yet subscribes sharded channels as classic ones") {
        @Override
        CommandExecutor wrap(CommandExecutor e, Object nativeClient, RedisDriverProvider real, DriverOptions o) {
            return new ForwardingExecutor(e) {
                @Override
                public CompletableFuture<Subscription> subscribe(String channel, boolean sharded, MessageListener l) {
                    return inner.subscribe(channel, false, l);
                }

                @Override
                public Set<Capability> capabilities() {
                    Set<Capability> all = EnumSet.noneOf(Capability.class);
                    all.addAll(inner.capabilities());
                    all.remove(Capability.SHARDED_PUBSUB);
                    return all;
                }
            };
        }
    },

    /**
     * nodeOfSlot finds a slot's master by borrowing a pooled connection for the slot (relock's Jedis
     * driver did, issue 38 F1): it waits while the application holds every connection of that pool.
     */
    NODE_OF_SLOT_BORROWS("borrows a pooled connection of the slot's master to answer nodeOfSlot") {
        @Override
        CommandExecutor wrap(CommandExecutor e, Object nativeClient, RedisDriverProvider real, DriverOptions o) {
            return new ForwardingExecutor(e) {
                @Override
                public Object nodeOfSlot(int slot) {
                    try (Connection borrowed = ((RedisClusterClient) nativeClient).getConnectionFromSlot(slot)) {
                        return inner.nodeOfSlot(slot);
                    }
                }
            };
        }
    },

    /**
     * Its pub/sub connection is never probed, whatever core asks ({@code pubSubProbeInterval}): a
     * flow dropped without a reset leaves it subscribed in name only (relock's drivers before issue
     * 38 F4). Emulated by making the real executor with probing off.
     */
    PUBSUB_NEVER_PROBED("never probes its pub/sub connection, so a silently dropped link is never noticed") {
        @Override
        CommandExecutor wrap(CommandExecutor e, Object nativeClient, RedisDriverProvider real, DriverOptions o) {
            e.close();
            return real.create(nativeClient, new DriverOptions(o.commandTimeout(), o.clientName(), Duration.ZERO));
        }
    },

    /**
     * When Redis refuses a channel, the pub/sub connection goes back into the application's pool
     * still subscribed to the channels confirmed before (relock's Jedis driver did, issue 38 F2):
     * emulated by subscribing the client's idle pooled connections to them and giving them back.
     */
    REFUSED_SUBSCRIPTION_POOLED("gives a connection still subscribed back to the pool when Redis refuses a channel") {
        @Override
        CommandExecutor wrap(CommandExecutor e, Object nativeClient, RedisDriverProvider real, DriverOptions o) {
            Set<String> confirmed = ConcurrentHashMap.newKeySet();
            return new ForwardingExecutor(e) {
                @Override
                public CompletableFuture<Subscription> subscribe(String channel, boolean sharded, MessageListener l) {
                    return inner.subscribe(channel, sharded, l).whenComplete((sub, t) -> {
                        if (t == null) {
                            confirmed.add(channel);
                        } else if (refused(t) && !confirmed.isEmpty()) {
                            poolSubscribed(((RedisClient) nativeClient).getPool(), List.copyOf(confirmed));
                        }
                    });
                }
            };
        }

        /**
         * Only a refusal (an error reply, as the ACL's {@code NOPERM}) pollutes the pool: a
         * subscribe that failed otherwise (a connection lost or slow under load, in a control
         * rule) must not turn into this defect, or the control fails for it.
         */
        private boolean refused(Throwable t) {
            Throwable c = t;
            while (c instanceof java.util.concurrent.CompletionException && c.getCause() != null) {
                c = c.getCause();
            }
            return c instanceof RedisErrorException;
        }

        /**
         * Subscribes at least two of the pool's connections (every idle one, or two) and gives
         * them back. This runs on the driver's pub/sub reader thread, whose next session borrows
         * the connection on top of the pool at once; the others are left for the application, so
         * the rule's outcome does not hang on that race.
         */
        private void poolSubscribed(redis.clients.jedis.util.Pool<Connection> pool, List<String> channels) {
            List<Connection> taken = new ArrayList<>();
            try {
                int n = Math.max(2, pool.getNumIdle());
                for (int i = 0; i < n; i++) {
                    Connection c;
                    try {
                        c = pool.borrowObject(java.time.Duration.ofMillis(200));
                    } catch (java.util.NoSuchElementException exhausted) {
                        break;
                    }
                    taken.add(c);
                    c.sendCommand(Protocol.Command.SUBSCRIBE, channels.toArray(new String[0]));
                    for (int j = 0; j < channels.size(); j++) {
                        c.getOne(); // the confirmations
                    }
                }
            } catch (Exception e) {
                throw new IllegalStateException(e);
            } finally {
                taken.forEach(pool::returnObject); // back into the pool, subscribed
            }
        }
    },

    /**
     * Core is never told of a reconnect: what relock's pub/sub helpers did when Redis refused a
     * resubscribe while the link stayed up (issue 38 F7); no later reconnect came to tell.
     */
    SILENT_AFTER_RECONNECT("never tells core its pub/sub connection came back (as when a resubscribe was refused)") {
        @Override
        CommandExecutor wrap(CommandExecutor e, Object nativeClient, RedisDriverProvider real, DriverOptions o) {
            return new ForwardingExecutor(e) {
                @Override
                public void setConnectionListener(ConnectionListener l) {
                    inner.setConnectionListener(() -> { });
                }
            };
        }
    },

    /**
     * Core is told of a reconnect, but no channel delivers after it: what the Jedis driver did when
     * its resubscribe carried every channel and Redis refused the command whole for one of them
     * (issue 38).
     */
    DEAF_AFTER_REFUSED_RESUBSCRIBE("tells core of a reconnect, but no channel delivers after it (as when a"
            + " resubscribe of every channel in one command is refused whole)") {
        @Override
        CommandExecutor wrap(CommandExecutor e, Object nativeClient, RedisDriverProvider real, DriverOptions o) {
            AtomicBoolean deaf = new AtomicBoolean();
            return new ForwardingExecutor(e) {
                @Override
                public CompletableFuture<Subscription> subscribe(String channel, boolean sharded, MessageListener l) {
                    return inner.subscribe(channel, sharded, (c, message) -> {
                        if (!deaf.get()) {
                            l.onMessage(c, message);
                        }
                    });
                }

                @Override
                public void setConnectionListener(ConnectionListener l) {
                    inner.setConnectionListener(() -> {
                        deaf.set(true);
                        l.onReconnect();
                    });
                }
            };
        }
    },

    /** Once a connection failed, every later call fails: the driver never reconnects. */
    NEVER_RECONNECTS("fails every call once one call found the connection broken") {
        @Override
        CommandExecutor wrap(CommandExecutor e, Object nativeClient, RedisDriverProvider real, DriverOptions o) {
            AtomicBoolean broken = new AtomicBoolean();
            Function<Throwable, Throwable> remember = t -> {
                if (t instanceof RedisUnavailableException) {
                    broken.set(true);
                }
                return t;
            };
            return checked(errors(e, remember), true, () -> {
                if (broken.get()) {
                    throw new RedisUnavailableException("connection lost earlier; this driver never reconnects");
                }
            });
        }
    },

    /** close() does nothing: the driver's threads and its pub/sub connection stay. */
    LEAKED_THREADS("does nothing on close(): its threads and pub/sub connection stay") {
        @Override
        CommandExecutor wrap(CommandExecutor e, Object nativeClient, RedisDriverProvider real, DriverOptions o) {
            return new ForwardingExecutor(e) {
                @Override
                public void close() {
                    LEAKED.add(inner); // the defect; the self-test closes it after the rule ran
                }
            };
        }
    },

    /** close() also closes the client the application handed in. */
    CLOSES_HANDED_CLIENT("closes the application's client on close()") {
        @Override
        CommandExecutor wrap(CommandExecutor e, Object nativeClient, RedisDriverProvider real, DriverOptions o) {
            return new ForwardingExecutor(e) {
                @Override
                public void close() {
                    inner.close();
                    try {
                        ((AutoCloseable) nativeClient).close();
                    } catch (Exception ex) {
                        throw new IllegalStateException(ex);
                    }
                }
            };
        }
    };

    /** Executors {@link #LEAKED_THREADS} did not close, for {@link #closeLeaked()}. */
    private static final java.util.Queue<CommandExecutor> LEAKED = new java.util.concurrent.ConcurrentLinkedQueue<>();

    /** Closes what {@link #LEAKED_THREADS} left open, so the next kit run starts with no stray thread. */
    static void closeLeaked() {
        for (CommandExecutor e; (e = LEAKED.poll()) != null; ) {
            e.close();
        }
    }

    /** What the defect is, for messages. */
    final String defect;

    BrokenDriver(String defect) {
        this.defect = defect;
    }

    /**
     * @param e the real executor over {@code nativeClient}
     * @param nativeClient the client it was made for
     * @param real the real provider
     * @param o the options it was made with
     * @return the broken executor
     */
    abstract CommandExecutor wrap(CommandExecutor e, Object nativeClient, RedisDriverProvider real, DriverOptions o);

    /**
     * @param real the real driver
     * @return the real driver with this defect
     */
    RedisDriverProvider provider(RedisDriverProvider real) {
        BrokenDriver self = this;
        return new RedisDriverProvider() {
            @Override
            public String name() {
                return "broken-" + self.name().toLowerCase(java.util.Locale.ROOT) + "-" + real.name();
            }

            @Override
            public int spiVersion() {
                return real.spiVersion();
            }

            @Override
            public boolean supports(Object nativeClient) {
                return real.supports(nativeClient);
            }

            @Override
            public CommandExecutor create(Object nativeClient, DriverOptions options) {
                return wrap(real.create(nativeClient, options), nativeClient, real, options);
            }

            @Override
            public boolean supportsUri(URI uri) {
                return false;
            }

            @Override
            public CommandExecutor connect(URI uri, DriverOptions options) {
                throw new IllegalArgumentException("a broken driver only wraps a client it is handed: " + uri);
            }
        };
    }

    private static CommandExecutor replies(CommandExecutor e, Function<Object, Object> each) {
        Function<Object, Object> safe = r -> leaves(r, each);
        return new ForwardingExecutor(e) {
            @Override
            public Object eval(ScriptCall call) {
                return safe.apply(inner.eval(call));
            }

            @Override
            CompletableFuture<Object> applicationAsync(ScriptCall call) {
                return inner.evalAsync(call, Lane.APPLICATION).thenApply(safe);
            }
        };
    }

    /** {@code each} applied to every non-list element of a reply, at any depth ({@code null} stays). */
    private static Object leaves(Object reply, Function<Object, Object> each) {
        if (reply instanceof List<?> l) {
            List<Object> out = new ArrayList<>();
            for (Object x : l) {
                out.add(leaves(x, each));
            }
            return out;
        }
        return reply == null ? null : each.apply(reply);
    }

    private static CommandExecutor errors(CommandExecutor e, Function<Throwable, Throwable> map) {
        return new ForwardingExecutor(e) {
            private Object sync(java.util.function.Supplier<Object> call) {
                try {
                    return call.get();
                } catch (RuntimeException t) {
                    Throwable m = map.apply(t);
                    throw m instanceof RuntimeException r ? r : new IllegalStateException(m);
                }
            }

            private CompletableFuture<Object> async(CompletableFuture<Object> f) {
                return f.handle((v, t) -> {
                    if (t == null) {
                        return CompletableFuture.completedFuture(v);
                    }
                    Throwable c = t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
                    return CompletableFuture.<Object>failedFuture(map.apply(c));
                }).thenCompose(x -> x);
            }

            @Override
            public Object eval(ScriptCall call) {
                return sync(() -> inner.eval(call));
            }

            @Override
            CompletableFuture<Object> applicationAsync(ScriptCall call) {
                return async(inner.evalAsync(call, Lane.APPLICATION));
            }
        };
    }

    /**
     * @param e the executor
     * @param async whether the async calls are checked too (their futures fail instead)
     * @param check runs before each call and may throw
     * @return {@code e} with {@code check} before its script calls
     */
    private static CommandExecutor checked(CommandExecutor e, boolean async, Runnable check) {
        return new ForwardingExecutor(e) {
            @Override
            public Object eval(ScriptCall call) {
                check.run();
                return inner.eval(call);
            }

            @Override
            CompletableFuture<Object> applicationAsync(ScriptCall call) {
                RuntimeException refused = async ? refused() : null;
                return refused != null ? CompletableFuture.failedFuture(refused) : inner.evalAsync(call, Lane.APPLICATION);
            }

            private RuntimeException refused() {
                try {
                    check.run();
                    return null;
                } catch (RuntimeException t) {
                    return t;
                }
            }
        };
    }

    /** @return a call sent as {@code call} is (by SHA or by text), with other KEYS and ARGV */
    private static ScriptCall same(ScriptCall call, List<String> keys, List<String> args) {
        return call.bySha() ? ScriptCall.bySha(call.script(), keys, args) : ScriptCall.byText(call.script(), keys, args);
    }

    private static CompletableFuture<Object> now(java.util.function.Supplier<Object> call) {
        try {
            return CompletableFuture.completedFuture(call.get());
        } catch (RuntimeException t) {
            return CompletableFuture.failedFuture(t);
        }
    }

    /** Arrays inside the top-level array become {@code Object[]}, as a client's raw reply would be. */
    private static Object topLevelOnly(Object reply) {
        if (!(reply instanceof List<?> l)) {
            return reply;
        }
        List<Object> out = new ArrayList<>();
        for (Object x : l) {
            out.add(x instanceof List<?> inner ? inner.toArray() : x);
        }
        return out;
    }
}
