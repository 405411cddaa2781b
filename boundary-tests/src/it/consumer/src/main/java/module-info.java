module com.example.consumer {
    requires io.github.relock.core;
    exports com.example.consumer;
}
