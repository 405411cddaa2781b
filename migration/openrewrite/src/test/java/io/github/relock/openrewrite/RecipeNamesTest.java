package io.github.relock.openrewrite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.api.LockClient;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The declarative recipe names relock's types and methods as strings: each must exist in lock-api (or relock-reactor). */
class RecipeNamesTest {

    @Test
    void everyTypeAndMethodTheRecipeMigratesTo_existsInRelocksApi() throws IOException {
        String yaml;
        try (InputStream in = RecipeNamesTest.class.getResourceAsStream("/META-INF/rewrite/relock.yml")) {
            yaml = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        List<String> missing = new ArrayList<>();
        Matcher types = Pattern.compile("newFullyQualifiedTypeName: (\\S+)").matcher(yaml);
        int typeCount = 0;
        while (types.find()) {
            typeCount++;
            try {
                Class.forName(types.group(1));
            } catch (ClassNotFoundException e) {
                missing.add(types.group(1));
            }
        }
        Matcher methods = Pattern.compile("newMethodName: (\\S+)").matcher(yaml);
        int methodCount = 0;
        while (methods.find()) {
            methodCount++;
            String name = methods.group(1);
            // RedissonClient's methods become LockClient's; RFuture's become CompletableFuture's.
            if (Stream.of(LockClient.class, CompletableFuture.class).flatMap(type -> Arrays.stream(type.getMethods()))
                    .noneMatch(m -> m.getName().equals(name))) {
                missing.add("LockClient or CompletableFuture." + name);
            }
        }
        assertEquals(11, typeCount, "ChangeType entries read from relock.yml");
        assertEquals(3, methodCount, "ChangeMethodName entries read from relock.yml");
        assertEquals(List.of(), missing);
        for (String factory : List.of("getMultiLock", "getRedLock")) {
            assertTrue(Arrays.stream(LockClient.class.getMethods()).anyMatch(m -> m.getName().equals(factory)
                    && m.isVarArgs()), "ReplaceMultiLockConstructors calls LockClient." + factory + "(DistributedLock...)");
        }
    }
}
