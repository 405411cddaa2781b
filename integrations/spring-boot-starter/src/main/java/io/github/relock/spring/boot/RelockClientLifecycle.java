package io.github.relock.spring.boot;

import io.github.relock.api.LockClient;
import org.springframework.context.SmartLifecycle;

/**
 * Closes the auto-configured {@link LockClient} when the context stops, in the phase just above the
 * connection factory's, so that it stops before the factory does (and as late as that allows).
 *
 * <p>Why: Spring Data Redis' connection factories are {@link SmartLifecycle} beans, and a context
 * stops every lifecycle bean before it destroys any singleton. With only a destroy method, the
 * client outlived the factory: a Lettuce-backed factory shut down its client, and so relock's
 * connections, first, then relock closed them again ({@code Connection is already closed}, twice),
 * and between the two its watchdog would have run on a stopped client. Stopping in a higher phase
 * closes relock while its connections still work; anything with a higher phase still (a graceful
 * web server shutdown, the task scheduler) finishes its work before relock goes.
 *
 * <p>The client cannot be reopened: after {@code stop()} a context that is started again (without a
 * refresh) has a closed {@code LockClient}.
 *
 * <p>Thread-safety: called by the context's lifecycle processor; {@link #isRunning()} may be read
 * from any thread.
 */
final class RelockClientLifecycle implements SmartLifecycle {

    private final LockClient client;
    private final int phase;
    private volatile boolean running;

    /**
     * @param client the auto-configured client
     * @param factory the connection factory it runs on
     */
    RelockClientLifecycle(LockClient client, Object factory) {
        this.client = client;
        if (factory instanceof SmartLifecycle lifecycle) {
            this.phase = lifecycle.getPhase() == Integer.MAX_VALUE ? Integer.MAX_VALUE : lifecycle.getPhase() + 1;
        } else {
            this.phase = Integer.MIN_VALUE; // a factory without a lifecycle is destroyed after the client anyway
        }
    }

    @Override
    public void start() {
        running = true;
    }

    @Override
    public void stop() {
        running = false;
        client.close();
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return phase;
    }
}
