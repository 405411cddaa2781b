package io.github.relock.spi.pubsub;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A scripted {@link SessionTransport}: every command a session sends is logged as text
 * ({@code RUN a,b}, {@code SUB c}, {@code UNSUB a}, {@code UNSUBALL}), and the test plays the
 * server by queueing actions that the session's reader thread runs inside {@link Link#run}, as a
 * client's reading loop calls back. {@link Link#run} returns when the server's count reaches zero
 * and throws when an action throws (a broken connection). Deterministic: nothing happens on the
 * reader thread unless the test queued it.
 *
 * <p>Thread-safety: the logs are blocking queues; a link's count is touched by its reader only.
 */
final class FakeSessionTransport implements SessionTransport {
    static final long WAIT_MS = 10_000;

    /** Every command sent, in order, over all links. */
    final BlockingQueue<String> sent = new LinkedBlockingQueue<>();
    /** Links opened, in order. */
    final BlockingQueue<FakeLink> opened = new LinkedBlockingQueue<>();
    /** Whether links can ping (logged as {@code PING}) and be aborted ({@code ABORT}: their run throws). */
    volatile boolean pingable;

    @Override
    public Link open(Events events) {
        FakeLink l = new FakeLink(events);
        opened.add(l);
        return l;
    }

    /** Asserts the next command sent, waiting for it. */
    void expect(String command) throws InterruptedException {
        assertEquals(command, sent.poll(WAIT_MS, TimeUnit.MILLISECONDS), "next command; later ones: " + sent);
    }

    /** Asserts nothing more was sent (after a short grace period for a command on its way). */
    void expectNothing() throws InterruptedException {
        assertNull(sent.poll(100, TimeUnit.MILLISECONDS), "unexpected command");
    }

    /** @return the next link opened, waiting for it */
    FakeLink nextLink() throws InterruptedException {
        FakeLink l = opened.poll(WAIT_MS, TimeUnit.MILLISECONDS);
        assertNotNull(l, "no session was opened");
        return l;
    }

    /** One session, the server side of which the test plays. */
    final class FakeLink implements Link {
        final Events events;
        private final BlockingQueue<Runnable> server = new LinkedBlockingQueue<>();
        private int count; // reader thread only
        private boolean running;

        FakeLink(Events events) {
            this.events = events;
        }

        @Override
        public void run(List<String> initial) {
            sent.add("RUN " + String.join(",", initial));
            running = true;
            while (running) {
                Runnable action;
                try {
                    action = server.poll(WAIT_MS * 3, TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    throw new IllegalStateException("reader interrupted", e);
                }
                if (action == null) {
                    throw new IllegalStateException("the test queued nothing for this session");
                }
                action.run();
            }
        }

        @Override
        public void subscribe(List<String> channels) {
            sent.add("SUB " + String.join(",", channels));
        }

        @Override
        public void unsubscribe(List<String> channels) {
            sent.add("UNSUB " + String.join(",", channels));
        }

        @Override
        public boolean ping() {
            if (pingable) {
                sent.add("PING");
            }
            return pingable;
        }

        /** The connection breaks: {@link #run} throws once the reader gets to it. */
        @Override
        public void abort() {
            sent.add("ABORT");
            server.add(() -> {
                throw new IllegalStateException("socket closed");
            });
        }

        /** The server answers a PING. */
        FakeLink pong() {
            server.add(events::pong);
            return this;
        }

        /** The server answers at once: the count drops to zero and {@link #run} returns. */
        @Override
        public void unsubscribeAll() {
            sent.add("UNSUBALL");
            server.add(() -> {
                count = 0;
                running = false;
            });
        }

        /** The server confirms a SUBSCRIBE of each channel. */
        FakeLink confirm(String... channels) {
            for (String c : channels) {
                server.add(() -> {
                    count++;
                    events.subscribed(c);
                });
            }
            return this;
        }

        /** The server confirms (or sends unasked) an UNSUBSCRIBE of each channel; at zero the session ends. */
        FakeLink unsubscribed(String... channels) {
            for (String c : channels) {
                server.add(() -> {
                    count--;
                    events.unsubscribed(c);
                    if (count <= 0) {
                        running = false;
                    }
                });
            }
            return this;
        }

        FakeLink message(String channel, String message) {
            server.add(() -> events.message(channel, message));
            return this;
        }

        /** Returns once the reader ran every action queued before (and the callbacks they caused). */
        void sync() throws InterruptedException {
            java.util.concurrent.CountDownLatch ran = new java.util.concurrent.CountDownLatch(1);
            server.add(ran::countDown);
            if (!ran.await(WAIT_MS, TimeUnit.MILLISECONDS)) {
                throw new AssertionError("the reader did not reach the sync point");
            }
        }

        /** The server answers the subscribe of {@code channels} with an error reply; the session goes on. */
        FakeLink refuse(RuntimeException error, String... channels) {
            server.add(() -> events.refused(List.of(channels), error));
            return this;
        }

        /** The first command was refused and nothing else is in flight: {@link #run} returns. */
        FakeLink ends() {
            server.add(() -> running = false);
            return this;
        }

        /** The connection breaks: {@link #run} throws {@code failure}. */
        void breakWith(RuntimeException failure) {
            server.add(() -> {
                throw failure;
            });
        }
    }
}
