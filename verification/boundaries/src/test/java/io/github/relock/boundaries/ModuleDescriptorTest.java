package io.github.relock.boundaries;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.api.LockClient;
import io.github.relock.core.RedisLocks;
import io.github.relock.driver.jedis.JedisDriverProvider;
import io.github.relock.embeddedredis.RedisProcess;
import io.github.relock.driver.lettuce.LettuceDriverProvider;
import io.github.relock.driver.springdata.SpringDataDriverProvider;
import io.github.relock.spi.RedisDriverProvider;
import io.github.relock.tck.RelockTck;
import io.github.relock.tck.fixtures.RedisServer;
import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.jar.JarFile;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** Each module's exact exports, requires and services (Caffeine's ModuleTest habit). */
class ModuleDescriptorTest {

    @Test
    void lockApi_exportsOnlyApi_requiresOnlyJavaBase() throws Exception {
        ModuleDescriptor d = descriptorOf(LockClient.class);
        assertEquals("io.github.relock.api", d.name());
        assertEquals(Set.of("io.github.relock.api"), exports(d));
        assertEquals(Set.of("java.base"), requires(d));
    }

    @Test
    void lockCore_exportsEntryPointSpiAndPubSubHelpers_usesProvider() throws Exception {
        ModuleDescriptor d = descriptorOf(RedisLocks.class);
        assertEquals("io.github.relock.core", d.name());
        assertEquals(Set.of("io.github.relock.core", "io.github.relock.spi", "io.github.relock.spi.pubsub"), exports(d),
                "the entry point, the driver SPI and the pub/sub bookkeeping drivers share; the engine stays internal");
        assertEquals(Set.of("java.base", "io.github.relock.api", "jdk.jfr"), requires(d),
                "lock-core needs only the API and the JDK (jdk.jfr for its flight-recorder events)");
        assertEquals(Set.of(RedisDriverProvider.class.getName()), d.uses());
    }

    @Test
    void driverJedis_exportsNothing_providesDriver() throws Exception {
        ModuleDescriptor d = descriptorOf(JedisDriverProvider.class);
        assertEquals("io.github.relock.driver.jedis", d.name());
        assertEquals(Set.of(), exports(d));
        assertEquals(Map.of(RedisDriverProvider.class.getName(), Set.of(JedisDriverProvider.class.getName())), provides(d));
        assertEquals(Set.of(JedisDriverProvider.class.getName()), serviceFile(JedisDriverProvider.class));
        assertTrue(requires(d).containsAll(Set.of("redis.clients.jedis", "org.apache.commons.pool2", "org.slf4j")),
                "Jedis is an automatic module: the driver names its explicit dependencies, or a plain"
                        + " java -m launch fails without --add-modules (consumer IT): " + requires(d));
    }

    @Test
    void driverLettuce_exportsNothing_providesDriver() throws Exception {
        ModuleDescriptor d = descriptorOf(LettuceDriverProvider.class);
        assertEquals("io.github.relock.driver.lettuce", d.name());
        assertEquals(Set.of(), exports(d));
        assertEquals(Map.of(RedisDriverProvider.class.getName(), Set.of(LettuceDriverProvider.class.getName())), provides(d));
        assertEquals(Set.of(LettuceDriverProvider.class.getName()), serviceFile(LettuceDriverProvider.class));
        assertTrue(requires(d).containsAll(Set.of("lettuce.core", "io.netty.common", "io.netty.transport",
                        "io.netty.handler", "io.netty.resolver.dns", "org.slf4j")),
                "Lettuce is an automatic module: the driver names its explicit dependencies, or a plain"
                        + " java -m launch fails without --add-modules (consumer IT): " + requires(d));
    }

    @Test
    void driverSpringData_exportsNothing_providesDriver_needsLettuceOnlyStatically() throws Exception {
        ModuleDescriptor d = descriptorOf(SpringDataDriverProvider.class);
        assertEquals("io.github.relock.driver.springdata", d.name());
        assertEquals(Set.of(), exports(d));
        assertEquals(Map.of(RedisDriverProvider.class.getName(), Set.of(SpringDataDriverProvider.class.getName())), provides(d));
        assertEquals(Set.of(SpringDataDriverProvider.class.getName()), serviceFile(SpringDataDriverProvider.class));
        assertTrue(d.requires().stream().anyMatch(r -> r.name().equals("lettuce.core")
                && r.modifiers().contains(ModuleDescriptor.Requires.Modifier.STATIC)),
                "a Jedis-backed application must not need Lettuce: " + d.requires());
    }

    @Test
    void lockTck_exportsOnlyTheKit_opensItToJUnitAlone() throws Exception {
        ModuleDescriptor d = descriptorOf(RelockTck.class);
        assertEquals("io.github.relock.tck", d.name());
        assertEquals(Set.of("io.github.relock.tck"), exports(d));
        assertEquals(Set.of("io.github.relock.tck -> [org.junit.platform.commons]"), d.opens().stream()
                .map(o -> o.source() + " -> " + o.targets().stream().sorted().toList()).collect(Collectors.toSet()),
                "the kit opens its package to JUnit's reflection and to nobody else");
    }

    @Test
    void embeddedRedisLauncher_exportsOnlyItsPackage_requiresOnlyJavaBase() throws Exception {
        ModuleDescriptor d = descriptorOf(RedisProcess.class);
        assertEquals("io.github.relock.embeddedredis", d.name());
        assertEquals(Set.of("io.github.relock.embeddedredis"), exports(d));
        assertEquals(Set.of("java.base"), requires(d), "the binaries jar is read as resources, not required");
        assertTrue(requires(descriptorOf(RedisServer.class)).contains("io.github.relock.embeddedredis"),
                "the fixtures start their servers through the launcher");
    }

    @Test
    void lockTckFixtures_exportsOnlyItsPackage_knowsNoLockNorDriver() throws Exception {
        ModuleDescriptor d = descriptorOf(RedisServer.class);
        assertEquals("io.github.relock.tck.fixtures", d.name());
        assertEquals(Set.of("io.github.relock.tck.fixtures"), exports(d));
        assertEquals(Set.of("java.base", "org.junit.jupiter.api", "io.github.relock.embeddedredis"),
                requires(d), "real Redis for any test suite: no relock API, engine or driver, and no "
                        + "filename-based automodule (Testcontainers is reached by reflection)");
        assertTrue(requires(descriptorOf(RelockTck.class)).contains("io.github.relock.tck.fixtures"),
                "the kit runs its chapters on the fixtures");
    }

    @Test
    void lockTckRedisson_exportsItsChapter_theBaseKitRequiresNoRedisson() throws Exception {
        ModuleDescriptor d = descriptorOf(io.github.relock.tck.redisson.RedissonTck.class);
        assertEquals("io.github.relock.tck.redisson", d.name());
        assertEquals(Set.of("io.github.relock.tck.redisson"), exports(d));
        assertTrue(requires(d).contains("redisson"), "requires: " + requires(d));
        assertFalse(requires(descriptorOf(RelockTck.class)).contains("redisson"),
                "the base kit must not need Redisson: " + requires(descriptorOf(RelockTck.class)));
    }

    @Test
    void relockReactor_exportsItsPackage_requiresOnlyTheApiAndReactor() throws Exception {
        ModuleDescriptor d = descriptorOf(io.github.relock.reactor.ReactiveLock.class);
        assertEquals("io.github.relock.reactor", d.name());
        assertEquals(Set.of("io.github.relock.reactor"), exports(d));
        assertEquals(Set.of("java.base", "io.github.relock.api", "reactor.core", "org.reactivestreams"), requires(d),
                "a thin module over the public API: no engine, no driver");
    }

    @Test
    void relockRxjava3_exportsItsPackage_requiresOnlyTheApiAndRxJava() throws Exception {
        ModuleDescriptor d = descriptorOf(io.github.relock.rxjava3.RxLock.class);
        assertEquals("io.github.relock.rxjava3", d.name());
        assertEquals(Set.of("io.github.relock.rxjava3"), exports(d));
        assertEquals(Set.of("java.base", "io.github.relock.api", "io.reactivex.rxjava3"), requires(d),
                "a thin module over the public API: no engine, no driver");
    }

    @Test
    void relockKotlin_exportsItsPackage_requiresOnlyTheApiAndKotlin() throws Exception {
        ModuleDescriptor d = descriptorOf(io.github.relock.kotlin.CoroutineLease.class);
        assertEquals("io.github.relock.kotlin", d.name());
        assertEquals(Set.of("io.github.relock.kotlin"), exports(d));
        assertEquals(Set.of("java.base", "io.github.relock.api", "kotlin.stdlib", "kotlinx.coroutines.core"), requires(d),
                "a thin module over the public API: no engine, no driver");
    }

    @Test
    void micrometer_exportsItsPackage_readsMicrometerForItsUsers() throws Exception {
        ModuleDescriptor d = descriptorOf(io.github.relock.micrometer.MicrometerLockEventListener.class);
        assertEquals("io.github.relock.micrometer", d.name());
        assertEquals(Set.of("io.github.relock.micrometer"), exports(d));
        assertEquals(Set.of("java.base", "io.github.relock.api", "micrometer.core"), requires(d),
                "the metrics module uses the public API only, not the engine");
        assertTrue(d.requires().stream().filter(r -> !r.name().equals("java.base"))
                        .allMatch(r -> r.modifiers().contains(ModuleDescriptor.Requires.Modifier.TRANSITIVE)),
                "API and Micrometer types are in its signatures: " + d.requires());
    }

    @Test
    void springBootStarter_exportsItsPackage_everyClientAndMicrometerOptional() throws Exception {
        ModuleDescriptor d = descriptorOf(io.github.relock.spring.boot.RelockAutoConfiguration.class);
        assertEquals("io.github.relock.spring.boot", d.name());
        assertEquals(Set.of("io.github.relock.spring.boot", "io.github.relock.spring.boot.locked"), exports(d));
        Set<String> optional = d.requires().stream()
                .filter(r -> r.modifiers().contains(ModuleDescriptor.Requires.Modifier.STATIC))
                .map(ModuleDescriptor.Requires::name).collect(Collectors.toSet());
        assertTrue(optional.containsAll(Set.of("spring.data.redis", "lettuce.core", "redis.clients.jedis",
                        "io.github.relock.micrometer", "micrometer.core", "io.github.relock.spring.integration",
                        "io.github.relock.reactor", "reactor.core")),
                "each client, Spring Data Redis, the metrics, Spring Integration and Reactor (for @Locked) are optional: " + d.requires());
        assertEquals(Set.of("io.github.relock.spring.boot", "io.github.relock.spring.boot.locked"), d.opens().stream()
                .map(ModuleDescriptor.Opens::source).collect(Collectors.toSet()), "Spring reads its configuration reflectively");
    }

    /** @return the jar's {@code Automatic-Module-Name}, or null */
    private static String automaticModuleName(Path jar) throws IOException {
        if (Files.isDirectory(jar)) { // target/classes in a reactor build: the jar plugin's entry, from the module's POM
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("<Automatic-Module-Name>([^<]+)<")
                    .matcher(Files.readString(jar.resolve("../../pom.xml").normalize()));
            return m.find() ? m.group(1).trim() : null;
        }
        try (JarFile f = new JarFile(jar.toFile())) {
            return f.getManifest() == null ? null : f.getManifest().getMainAttributes().getValue("Automatic-Module-Name");
        }
    }

    /**
     * Every artifact the BOM publishes (less the BOM) is a jar with a module descriptor of its own
     * (or, for a {@link ReleaseSet#CLASS_PATH_ONLY} one, an automatic module name).
     */
    @Test
    void everyPublishedJar_hasAModuleDescriptor() throws Exception {
        List<String> published = PublishedArtifacts.jars();
        assertTrue(published.size() >= 12, "the BOM lists too few artifacts, the parser is broken: " + published);
        Map<String, String> names = new TreeMap<>();
        List<String> missing = new ArrayList<>();
        for (String artifactId : published) {
            Path jar = PublishedArtifacts.onClassPath(artifactId);
            if (jar == null) {
                missing.add(artifactId + ": not on verification/boundaries' test class path (add it as a test dependency)");
                continue;
            }
            ModuleDescriptor d = descriptorAt(jar);
            if (d == null && ReleaseSet.CLASS_PATH_ONLY.contains(artifactId)) {
                String name = automaticModuleName(jar);
                if (name == null) {
                    missing.add(artifactId + ": neither module-info.class nor Automatic-Module-Name in " + jar);
                } else {
                    names.put(artifactId, name);
                }
            } else if (d == null) {
                missing.add(artifactId + ": no module-info.class in " + jar);
            } else {
                names.put(artifactId, d.name());
            }
        }
        assertEquals(List.of(), missing);
        assertTrue(names.values().stream().allMatch(n -> n.startsWith("io.github.relock.")), names.toString());
        assertEquals(names.size(), Set.copyOf(names.values()).size(), "module names are unique: " + names);
    }

    private static Set<String> exports(ModuleDescriptor d) {
        return d.exports().stream().map(ModuleDescriptor.Exports::source).collect(Collectors.toSet());
    }

    private static Set<String> requires(ModuleDescriptor d) {
        return d.requires().stream().map(ModuleDescriptor.Requires::name).collect(Collectors.toSet());
    }

    private static Map<String, Set<String>> provides(ModuleDescriptor d) {
        return d.provides().stream().collect(Collectors.toMap(ModuleDescriptor.Provides::service,
                p -> Set.copyOf(p.providers())));
    }

    /** Reads module-info.class from the jar (or classes folder) the class was loaded from. */
    private static ModuleDescriptor descriptorOf(Class<?> type) throws IOException, URISyntaxException {
        ModuleDescriptor d = descriptorAt(Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI()));
        if (d == null) {
            throw new IllegalStateException("no module-info.class beside " + type.getName());
        }
        return d;
    }

    /** The module-info.class of a jar or classes folder, or null when it has none. */
    private static ModuleDescriptor descriptorAt(Path location) throws IOException {
        if (Files.isDirectory(location)) {
            Path file = location.resolve("module-info.class");
            if (!Files.isRegularFile(file)) {
                return null;
            }
            try (InputStream in = Files.newInputStream(file)) {
                return ModuleDescriptor.read(in);
            }
        }
        try (JarFile jar = new JarFile(location.toFile())) {
            var entry = jar.getEntry("module-info.class");
            if (entry == null) {
                return null;
            }
            try (InputStream in = jar.getInputStream(entry)) {
                return ModuleDescriptor.read(in);
            }
        }
    }

    private static Set<String> serviceFile(Class<?> type) throws IOException, URISyntaxException {
        Path location = Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
        String entry = "META-INF/services/" + RedisDriverProvider.class.getName();
        String text;
        if (Files.isDirectory(location)) {
            text = Files.readString(location.resolve(entry));
        } else {
            try (JarFile jar = new JarFile(location.toFile()); InputStream in = jar.getInputStream(jar.getEntry(entry))) {
                text = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            }
        }
        return text.lines().map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith("#"))
                .collect(Collectors.toCollection(TreeSet::new));
    }
}
