package io.github.relock.tck;

import java.net.URI;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.utility.DockerImageName;

/** Testcontainers mode of the fixture; loaded only when {@code relock.test.redis=docker}. */
final class DockerRedis {
    private DockerRedis() {
    }

    @SuppressWarnings("resource") // stopped by the shutdown hook
    static RedisServer start() {
        GenericContainer<?> c = new GenericContainer<>(DockerImageName.parse("redis:7.0")).withExposedPorts(6379);
        c.start();
        Runtime.getRuntime().addShutdownHook(new Thread(c::stop, "relock-redis-container-stop"));
        return RedisServer.external(URI.create("redis://" + c.getHost() + ":" + c.getMappedPort(6379)));
    }
}
