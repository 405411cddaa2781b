package io.github.relock.openrewrite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.api.LockClient;
import io.github.relock.core.RedisLocks;
import io.github.relock.tck.fixtures.RedisFixture;
import io.github.relock.tck.fixtures.RedisServer;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.openrewrite.InMemoryExecutionContext;
import org.openrewrite.Recipe;
import org.openrewrite.RecipeRun;
import org.openrewrite.Result;
import org.openrewrite.SourceFile;
import org.openrewrite.config.Environment;
import org.openrewrite.internal.InMemoryLargeSourceSet;
import org.openrewrite.java.JavaParser;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * The migration on a whole Redisson-based program, not a snippet: the sample in
 * {@code src/test/resources/redisson-sample} (an inventory service that locks blocking, timed, async
 * with a thread id, reactive with a thread id, with a {@code new RedissonMultiLock(...)}, a semaphore
 * and a latch, plus its own check) is compiled and checked on Redisson 4.7.0, migrated by
 * {@code MigrateFromRedisson}, compiled again with no Redisson jar on the class path, and the same
 * check runs on relock. Both runs use the kit's embedded Redis; only the construction of the client
 * (which the recipe leaves to a person: a Redisson {@code Config} does not translate) is the test's.
 */
@Timeout(120)
class MigratedSampleTest {
    private static final List<String> SAMPLE = List.of("sample/Inventory.java", "sample/InventoryCheck.java");

    private final RedisServer server = RedisFixture.shared();

    @Test
    void redissonSample_migrated_compilesWithoutRedisson_andPassesItsOwnCheckOnRelock(@TempDir Path dir) throws Exception {
        Map<String, String> before = readSample();

        // 1. The sample as written, on Redisson.
        Path redissonClasses = compile(before, dir.resolve("redisson"), classPath(true));
        RedissonClient redisson = Redisson.create(redissonConfig());
        try {
            runCheck(redissonClasses, redisson, redisson.reactive());
        } finally {
            redisson.shutdown();
        }

        // 2. The recipe.
        Environment env = Environment.builder().scanRuntimeClasspath("io.github.relock.openrewrite").build();
        Recipe recipe = env.activateRecipes("io.github.relock.openrewrite.MigrateFromRedisson");
        InMemoryExecutionContext ctx = new InMemoryExecutionContext(e -> {
            throw new AssertionError("the recipe failed on the sample", e);
        });
        // The project's whole class path, as the Maven and Gradle plugins give the parser.
        List<Path> projectClassPath = Arrays.stream(classPath(true).split(File.pathSeparator)).map(Path::of).toList();
        List<SourceFile> parsed = JavaParser.fromJavaVersion().classpath(projectClassPath).build()
                .parse(ctx, before.values().toArray(String[]::new)).toList();
        RecipeRun run = recipe.run(new InMemoryLargeSourceSet(parsed), ctx);
        Map<String, String> after = new LinkedHashMap<>(before);
        for (Result result : run.getChangeset().getAllResults()) {
            String path = result.getAfter().getSourcePath().toString();
            String key = before.keySet().stream().filter(path::endsWith).findFirst()
                    .orElseThrow(() -> new AssertionError("the recipe produced " + path));
            after.put(key, result.getAfter().printAll());
        }
        List<UnmigratedRedissonCode.Row> left = run.getDataTableRows(UnmigratedRedissonCode.class);
        assertThat(left).as("what the recipe left for a person in the sample").isEmpty();
        assertThat(after.get("sample/Inventory.java")).doesNotContain("org.redisson").doesNotContain("TODO relock");

        Path shown = Path.of("target", "migrated-sample");
        for (Map.Entry<String, String> source : after.entrySet()) { // for a person to read (the guide quotes it)
            Files.createDirectories(shown.resolve(source.getKey()).getParent());
            Files.writeString(shown.resolve(source.getKey()), source.getValue());
        }

        // 3. The migrated sample, with no Redisson on the class path, on relock.
        Path relockClasses = compile(after, dir.resolve("relock"), classPath(false));
        try (LockClient client = RedisLocks.connect(server.uri().toString())) {
            runCheck(relockClasses, client, client);
        }
    }

    private Config redissonConfig() {
        Config config = new Config();
        config.useSingleServer().setAddress("redis://" + server.host() + ":" + server.port());
        return config;
    }

    private static Map<String, String> readSample() throws IOException {
        Map<String, String> sources = new LinkedHashMap<>();
        for (String path : SAMPLE) {
            try (InputStream in = MigratedSampleTest.class.getResourceAsStream("/redisson-sample/" + path)) {
                assertTrue(in != null, "missing sample source " + path);
                sources.put(path, new String(in.readAllBytes(), StandardCharsets.UTF_8));
            }
        }
        return sources;
    }

    /** The test's class path, with or without Redisson's jar (the migrated code must not need it). */
    private static String classPath(boolean withRedisson) {
        return Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(entry -> withRedisson || !Path.of(entry).getFileName().toString().startsWith("redisson"))
                .collect(Collectors.joining(File.pathSeparator));
    }

    private static Path compile(Map<String, String> sources, Path out, String classPath) throws IOException {
        Path src = out.resolve("src");
        Path classes = out.resolve("classes");
        Files.createDirectories(classes);
        List<File> files = new ArrayList<>();
        for (Map.Entry<String, String> source : sources.entrySet()) {
            Path file = src.resolve(source.getKey());
            Files.createDirectories(file.getParent());
            Files.writeString(file, source.getValue());
            files.add(file.toFile());
        }
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        try (var fileManager = javac.getStandardFileManager(diagnostics, null, StandardCharsets.UTF_8)) {
            boolean compiled = javac.getTask(null, fileManager, diagnostics,
                    List.of("-proc:none", "-classpath", classPath, "-d", classes.toString()), null,
                    fileManager.getJavaFileObjectsFromFiles(files)).call();
            assertTrue(compiled, () -> "the sample in " + out.getFileName() + " does not compile:\n"
                    + diagnostics.getDiagnostics().stream()
                            .map(d -> d.getSource().getName() + ":" + d.getLineNumber() + ": " + d.getMessage(null))
                            .collect(Collectors.joining("\n"))
                    + "\n" + String.join("\n----\n", sources.values()));
        }
        return classes;
    }

    /** Loads the compiled sample in a loader of its own and runs its check with the given clients. */
    private static void runCheck(Path classes, Object client, Object reactiveClient) throws Exception {
        try (URLClassLoader loader = new URLClassLoader(new URL[] {classes.toUri().toURL()},
                MigratedSampleTest.class.getClassLoader())) {
            Class<?> inventory = loader.loadClass("sample.Inventory");
            Constructor<?> constructor = inventory.getConstructors()[0];
            Object service = constructor.newInstance(client, reactiveClient);
            try {
                loader.loadClass("sample.InventoryCheck").getMethod("run", inventory).invoke(null, service);
            } catch (InvocationTargetException e) {
                throw new AssertionError("the sample's check failed on " + client.getClass().getSimpleName(), e.getCause());
            }
        }
    }
}
