/**
 * Starts the static {@code redis-server} binary that {@code org.signal:embedded-redis} ships. Needs
 * only the JDK; the binaries are read as class-path resources, so that jar must be on the class
 * path (or resolved, e.g. {@code --add-modules embedded.redis}, when it sits on the module path).
 */
module io.github.relock.embeddedredis {
    exports io.github.relock.embeddedredis;
}
