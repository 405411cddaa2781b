package io.github.relock.tck;

import io.github.relock.tck.fixtures.RedisCluster;
import io.github.relock.tck.fixtures.RedisFixture;
import io.github.relock.tck.fixtures.RedisSentinelGroup;
import io.github.relock.tck.fixtures.RedisTopology;
import io.github.relock.tck.fixtures.RedisTopology.Kind;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.ClassTemplateInvocationContext;
import org.junit.jupiter.api.extension.ClassTemplateInvocationContextProvider;
import org.junit.jupiter.api.extension.Extension;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestInstancePostProcessor;

/**
 * One invocation of the annotated kit class per topology the annotation names and
 * {@value Topologies#PROPERTY} (or {@code relock.tck.topologies.<SimpleClassName>} for one class) allows.
 */
final class TopologyInvocations implements ClassTemplateInvocationContextProvider {
    /** Created by JUnit. */
    TopologyInvocations() {
    }

    @Override
    public boolean supportsClassTemplate(ExtensionContext context) {
        return context.getRequiredTestClass().isAnnotationPresent(Topologies.class);
    }

    @Override
    public Stream<ClassTemplateInvocationContext> provideClassTemplateInvocationContexts(ExtensionContext context) {
        Class<?> kit = context.getRequiredTestClass();
        Topologies annotation = kit.getAnnotation(Topologies.class);
        Kind[] declared = annotation.value();
        String allowed = System.getProperty(Topologies.PROPERTY + "." + kit.getSimpleName(),
                System.getProperty(Topologies.PROPERTY, ""));
        List<String> only = allowed.isBlank() ? List.of()
                : Arrays.stream(allowed.split(",")).map(s -> s.strip().toUpperCase(Locale.ROOT)).toList();
        return Arrays.stream(declared).filter(k -> only.isEmpty() || only.contains(k.name()))
                .map(k -> new On(k, annotation.server()));
    }

    @Override
    public boolean mayReturnZeroClassTemplateInvocationContexts(ExtensionContext context) {
        return true; // -Drelock.tck.topologies may leave a class none
    }

    /** One topology's invocation: names it and hands it to the kit instance. */
    static final class On implements ClassTemplateInvocationContext, TestInstancePostProcessor {
        private final Kind kind;
        private final String server;

        On(Kind kind, String server) {
            this.kind = kind;
            this.server = server;
        }

        /**
         * @param server a server choice, or empty for the suite's own
         * @return the shared fixture of {@code kind} running that server, started on first use
         */
        static RedisTopology fixture(Kind kind, String server) {
            return switch (kind) {
                case SINGLE -> RedisFixture.shared(server);
                case CLUSTER -> RedisCluster.shared(server);
                case SENTINEL -> RedisSentinelGroup.shared();
            };
        }

        @Override
        public String getDisplayName(int invocationIndex) {
            return "on " + kind + (server.isEmpty() ? "" : " (redis-server " + server + ")");
        }

        @Override
        public List<Extension> getAdditionalExtensions() {
            return List.of(this);
        }

        @Override
        public void postProcessTestInstance(Object testInstance, ExtensionContext context) {
            if (testInstance instanceof DriverKit kit) {
                kit.topologyKind = kind;
                kit.redisServer = server;
            }
        }
    }
}
