package io.github.relock.tck;

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
import java.net.URI;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * A driver that wraps the driver under test and injects {@link Faults} into its script calls:
 * delayed, dropped and failed replies, failures before sending, synchronous failures, lies, a
 * stalled queue of async calls; and into its pub/sub messages: late, duplicated, or lost with
 * their connection ({@link Faults#messages}). The kit's cancellation and timing-fault chapters use
 * it to prove that no fault leaves a lock behind or lets two holders overlap; a driver author can
 * use it to reproduce a failure.
 *
 * <p>Thread-safety: safe for use by several threads.
 */
public final class FaultInjectingDriver implements RedisDriverProvider {
    private final RedisDriverProvider delegate;
    private final Faults faults;

    /**
     * @param delegate the real driver
     * @param faults what to inject
     */
    public FaultInjectingDriver(RedisDriverProvider delegate, Faults faults) {
        this.delegate = delegate;
        this.faults = faults;
    }

    @Override
    public String name() {
        return "faulty-" + delegate.name();
    }

    @Override
    public int spiVersion() {
        return delegate.spiVersion();
    }

    @Override
    public boolean supports(Object nativeClient) {
        return delegate.supports(nativeClient);
    }

    @Override
    public CommandExecutor create(Object nativeClient, DriverOptions options) {
        return new Executor(delegate.create(nativeClient, options), faults);
    }

    @Override
    public CommandExecutor connect(URI uri, DriverOptions options) {
        return new Executor(delegate.connect(uri, options), faults);
    }

    private static RedisUnavailableException injected(Script script, String what) {
        return new RedisUnavailableException("injected fault: " + what + " (" + script.name() + ")");
    }

    private static final class Executor implements CommandExecutor {
        private final CommandExecutor d;
        private final Faults faults;
        private volatile ConnectionListener connectionListener;

        Executor(CommandExecutor delegate, Faults faults) {
            this.d = delegate;
            this.faults = faults;
        }

        /** The script on the delegate, with the NOSCRIPT fallback done here so a fault applies once. */
        private Object runSync(ScriptCall call) {
            try {
                return d.eval(call);
            } catch (NoScriptException e) {
                return d.eval(call.withText());
            }
        }

        private CompletableFuture<Object> runAsync(ScriptCall call, Lane lane) {
            return d.evalAsync(call, lane).exceptionallyCompose(t -> {
                Throwable c = t instanceof java.util.concurrent.CompletionException && t.getCause() != null ? t.getCause() : t;
                return c instanceof NoScriptException ? d.evalAsync(call.withText(), lane) : CompletableFuture.failedFuture(c);
            });
        }

        private Object sync(ScriptCall call) {
            return sync(call.script(), () -> d.eval(call), () -> runSync(call), answer -> answer);
        }

        /**
         * A blocking call with the fault its script's name matches.
         *
         * @param direct the call as the driver sends it
         * @param withFallback the call with the NOSCRIPT fallback done here
         * @param answer turns a rule's answer into the call's reply
         */
        private Object sync(Script script, Supplier<Object> direct, Supplier<Object> withFallback,
                            UnaryOperator<Object> answer) {
            Faults.Rule r = faults.match(script.name());
            if (r == null) {
                return direct.get();
            }
            switch (r.kind) {
                case FAIL_BEFORE_SEND, FAIL_SYNCHRONOUSLY -> throw injected(script, "failed before sending");
                case ANSWER -> {
                    return answer.apply(r.answer);
                }
                case BEFORE_SEND -> {
                    r.hook.run();
                    return withFallback.get();
                }
                case FAIL_AFTER_RUN, DROP_REPLY -> {
                    withFallback.get();
                    throw injected(script, "reply lost after the script ran");
                }
                case DELAY_REPLY_FOR -> {
                    Object reply = withFallback.get();
                    try {
                        Thread.sleep(r.delay.toMillis());
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt(); // as DELAY_REPLY: keep the status, still answer
                    }
                    return reply;
                }
                case DELAY_REPLY -> {
                    Object reply = withFallback.get();
                    try {
                        r.gate.opened().get(60, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt(); // eval keeps the interrupt status and still answers
                    } catch (ExecutionException | TimeoutException e) {
                        throw injected(script, "delayed reply never released");
                    }
                    return reply;
                }
                default -> throw new IllegalStateException("unknown fault " + r.kind);
            }
        }

        private CompletableFuture<Object> async(ScriptCall call, Lane lane) {
            return async(call.script(), () -> d.evalAsync(call, lane), () -> runAsync(call, lane), answer -> answer);
        }

        /** An async call with the stall and the fault its script's name matches; as {@link #sync(Script, Supplier, Supplier, UnaryOperator)}. */
        private CompletableFuture<Object> async(Script script, Supplier<CompletableFuture<Object>> direct,
                                                Supplier<CompletableFuture<Object>> withFallback,
                                                UnaryOperator<Object> answer) {
            Faults.Stall stall = faults.stall();
            if (stall != null) {
                return faults.track(stall.submit(() -> send(script, direct, withFallback, answer)));
            }
            return send(script, direct, withFallback, answer);
        }

        private CompletableFuture<Object> send(Script script, Supplier<CompletableFuture<Object>> direct,
                                               Supplier<CompletableFuture<Object>> withFallback,
                                               UnaryOperator<Object> answer) {
            Faults.Rule r = faults.match(script.name());
            if (r == null) {
                return faults.track(direct.get());
            }
            return switch (r.kind) {
                case FAIL_SYNCHRONOUSLY -> CompletableFuture.failedFuture(injected(script, "failed synchronously"));
                case FAIL_BEFORE_SEND -> faults.track(CompletableFuture.supplyAsync(() -> {
                    throw injected(script, "failed before sending");
                }));
                case ANSWER -> CompletableFuture.completedFuture(answer.apply(r.answer));
                case BEFORE_SEND -> {
                    r.hook.run();
                    yield faults.track(withFallback.get());
                }
                case FAIL_AFTER_RUN -> faults.track(withFallback.get().handle((v, t) -> {
                    throw injected(script, "reply lost after the script ran");
                }));
                case DROP_REPLY -> {
                    CompletableFuture<Object> never = new CompletableFuture<>();
                    withFallback.get();
                    faults.dropped(never);
                    yield faults.track(never);
                }
                case DELAY_REPLY -> faults.track(withFallback.get()
                        .thenCombine(r.gate.opened(), (reply, open) -> reply));
                case DELAY_REPLY_FOR -> {
                    CompletableFuture<Object> late = new CompletableFuture<>();
                    java.util.concurrent.Executor later = CompletableFuture.delayedExecutor(r.delay.toNanos(),
                            TimeUnit.NANOSECONDS);
                    withFallback.get().whenComplete((reply, t) -> later.execute(() -> {
                        if (t != null) {
                            late.completeExceptionally(t);
                        } else {
                            late.complete(reply);
                        }
                    }));
                    yield faults.track(late);
                }
                default -> CompletableFuture.failedFuture(new IllegalStateException("unknown fault " + r.kind));
            };
        }

        /** Faults apply to calls by SHA; one by text comes only after NOSCRIPT from an unfaulted call. */
        @Override
        public Object eval(ScriptCall call) {
            return call.bySha() ? sync(call) : d.eval(call);
        }

        /** As {@link #eval}, on either lane: the watchdog's renewals meet the same faults and stall. */
        @Override
        public CompletableFuture<Object> evalAsync(ScriptCall call, Lane lane) {
            if (call.bySha()) {
                return async(call, lane);
            }
            Faults.Stall stall = faults.stall();
            if (stall != null) {
                return faults.track(stall.submit(() -> d.evalAsync(call, lane)));
            }
            return faults.track(d.evalAsync(call, lane)); // as eval: the fallback of an unfaulted call
        }

        @Override
        public CompletableFuture<Subscription> subscribe(String channel, boolean sharded, MessageListener listener) {
            return d.subscribe(channel, sharded, (ch, message) -> faults.deliver(ch, message, listener, () -> {
                ConnectionListener l = connectionListener;
                if (l != null) {
                    l.onReconnect(); // the message was "lost with its connection": the engine polls again
                }
            }));
        }

        @Override
        public void setConnectionListener(ConnectionListener listener) {
            connectionListener = listener;
            d.setConnectionListener(listener);
        }

        @Override
        public Set<Capability> capabilities() {
            return d.capabilities();
        }

        /** The same faults as {@link #eval}, by the script's name: a lock write sent with WAIT meets them too. */
        @Override
        public List<Object> evalShaWithWait(Script script, List<String> keys, List<String> args, int replicas,
                                            long timeoutMs) {
            Supplier<Object> send = () -> d.evalShaWithWait(script, keys, args, replicas, timeoutMs);
            Supplier<Object> withFallback = () -> { // NOSCRIPT here, so that a fault applies once
                try {
                    return send.get();
                } catch (NoScriptException e) {
                    try {
                        return d.evalWithWaitAsync(ScriptCall.byText(script, keys, args), replicas, timeoutMs,
                                Lane.APPLICATION).join();
                    } catch (java.util.concurrent.CompletionException c) {
                        throw c.getCause() instanceof RuntimeException re ? re : c;
                    }
                }
            };
            return asList(sync(script, send, withFallback, answer -> java.util.Arrays.asList(answer, (long) replicas)));
        }

        /** As {@link #evalAsync}, with WAIT: the same stall and faults (the answer rule's reply counts every replica). */
        @Override
        public CompletableFuture<List<Object>> evalWithWaitAsync(ScriptCall call, int replicas, long timeoutMs,
                                                                 Lane lane) {
            Supplier<CompletableFuture<Object>> direct = () -> d.evalWithWaitAsync(call, replicas, timeoutMs, lane)
                    .thenApply(r -> (Object) r);
            CompletableFuture<Object> f;
            if (call.bySha()) {
                Supplier<CompletableFuture<Object>> withFallback = () -> direct.get().exceptionallyCompose(t -> {
                    Throwable c = t instanceof java.util.concurrent.CompletionException && t.getCause() != null
                            ? t.getCause() : t;
                    return c instanceof NoScriptException
                            ? d.evalWithWaitAsync(call.withText(), replicas, timeoutMs, lane).thenApply(r -> (Object) r)
                            : CompletableFuture.failedFuture(c);
                });
                f = async(call.script(), direct, withFallback, answer -> java.util.Arrays.asList(answer, (long) replicas));
            } else {
                Faults.Stall stall = faults.stall();
                f = faults.track(stall != null ? stall.submit(direct::get) : direct.get());
            }
            return f.thenApply(Executor::asList);
        }

        @Override
        public String replicationInfo(String key) {
            return d.replicationInfo(key);
        }

        @SuppressWarnings("unchecked")
        private static List<Object> asList(Object reply) {
            return (List<Object>) reply;
        }

        @Override
        public void close() {
            d.close();
        }
    }
}
