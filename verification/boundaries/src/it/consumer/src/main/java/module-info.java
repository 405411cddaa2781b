module com.example.consumer {
    requires io.github.relock.core;
    // The application's own Redis clients, as a user's module would name them (both automatic modules).
    requires redis.clients.jedis;
    requires lettuce.core;
    exports com.example.consumer;
}
