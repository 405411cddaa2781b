package io.github.relock.driver.jedis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.reflect.Executable;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.spi.ToolProvider;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every Jedis class, method, constructor and field the driver's compiled classes name exists, and
 * is public, in the Jedis the test JVM runs on, so no call fails with {@link NoSuchMethodError} or
 * {@link IllegalAccessError} on a path the kit happens not to take. The only exception is
 * {@code JedisVersions$Jedis7}, which names Jedis 7 classes and loads only when they are there. The
 * driver is compiled against Jedis 8; the {@code jedis-*} profiles run this on 6.0 and 7.4.
 */
class JedisLinkageTest {
    /** javap's comment on a constant-pool reference, e.g. {@code // Method redis/clients/jedis/X.m:(I)V}. */
    private static final Pattern REF = Pattern.compile(
            "// (Method|InterfaceMethod|Field|class) (redis/clients/[^.:\\s\"]+)(?:\\.(\"?[\\w$<>]+\"?):(\\S+))?");
    private static final Pattern CLASS_HEADER = Pattern.compile("^\\S.*\\b(?:class|interface|enum) ([\\w.$]+)");

    @Test
    void everyJedisMemberTheDriverNames_existsAndIsPublicInTheRunningJedis() throws Exception {
        boolean jedis7 = exists("redis.clients.jedis.RedisClient");
        Set<String> problems = new TreeSet<>();
        int checked = 0;
        String current = "";
        for (String line : javap(driverClasses()).split("\n")) {
            Matcher header = CLASS_HEADER.matcher(line);
            if (header.find()) {
                current = header.group(1);
                continue;
            }
            Matcher m = REF.matcher(line);
            if (!m.find() || (!jedis7 && current.endsWith("JedisVersions$Jedis7"))) {
                continue;
            }
            checked++;
            String problem = check(m.group(1), m.group(2).replace('/', '.'), m.group(3), m.group(4));
            if (problem != null) {
                problems.add(problem + " (named by " + current + ")");
            }
        }
        assertTrue(checked > 50, "javap output was parsed: " + checked + " references");
        assertEquals(Set.of(), problems, "Jedis " + JedisVersions.VERSION + " lacks what the driver calls");
    }

    private static String check(String kind, String owner, String name, String descriptor) {
        Class<?> c;
        try {
            c = Class.forName(owner, false, JedisLinkageTest.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            return "no class " + owner;
        }
        if (kind.equals("class") || name == null) {
            return null;
        }
        name = name.replace("\"", "");
        if (kind.equals("Field")) {
            for (Class<?> k = c; k != null; k = k.getSuperclass()) {
                for (var f : k.getDeclaredFields()) {
                    if (f.getName().equals(name)) {
                        return Modifier.isPublic(f.getModifiers()) ? null : "field " + owner + "." + name + " is not public";
                    }
                }
            }
            return "no field " + owner + "." + name;
        }
        Executable found = name.equals("<init>") ? constructor(c, descriptor) : method(c, name, descriptor);
        if (found == null) {
            return "no " + owner + "." + name + descriptor;
        }
        return Modifier.isPublic(found.getModifiers()) ? null : owner + "." + name + descriptor + " is not public";
    }

    private static Executable constructor(Class<?> c, String descriptor) {
        return Arrays.stream(c.getDeclaredConstructors())
                .filter(k -> descriptor(k.getParameterTypes(), void.class).equals(descriptor)).findFirst().orElse(null);
    }

    /** Searches the class, its superclasses and interfaces, as the JVM resolves a method. */
    private static Method method(Class<?> c, String name, String descriptor) {
        Deque<Class<?>> todo = new ArrayDeque<>(List.of(c, Object.class));
        Set<Class<?>> seen = new HashSet<>();
        while (!todo.isEmpty()) {
            Class<?> k = todo.poll();
            if (!seen.add(k)) {
                continue;
            }
            for (Method m : k.getDeclaredMethods()) {
                if (m.getName().equals(name) && descriptor(m.getParameterTypes(), m.getReturnType()).equals(descriptor)) {
                    return m;
                }
            }
            if (k.getSuperclass() != null) {
                todo.add(k.getSuperclass());
            }
            todo.addAll(Arrays.asList(k.getInterfaces()));
        }
        return null;
    }

    private static String descriptor(Class<?>[] params, Class<?> ret) {
        StringBuilder b = new StringBuilder("(");
        for (Class<?> p : params) {
            b.append(p.descriptorString());
        }
        return b.append(')').append(ret.descriptorString()).toString();
    }

    private static boolean exists(String name) {
        try {
            Class.forName(name, false, JedisLinkageTest.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    private static List<String> driverClasses() throws URISyntaxException, java.io.IOException {
        Path root = Path.of(JedisDriverProvider.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Path pkg = root.resolve(JedisDriverProvider.class.getPackageName().replace('.', '/'));
        try (Stream<Path> files = Files.list(pkg)) {
            List<String> classes = new ArrayList<>();
            files.filter(f -> f.toString().endsWith(".class")).forEach(f -> classes.add(f.toString()));
            assertTrue(classes.size() > 5, "the driver's classes are a directory here: " + pkg);
            return classes;
        }
    }

    private static String javap(List<String> classFiles) {
        ToolProvider javap = ToolProvider.findFirst("javap").orElseThrow(() -> new AssertionError("this JDK has no javap"));
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        List<String> args = new ArrayList<>(List.of("-c", "-p"));
        args.addAll(classFiles);
        int rc = javap.run(new PrintWriter(out), new PrintWriter(err), args.toArray(new String[0]));
        assertEquals(0, rc, "javap failed: " + err);
        return out.toString();
    }
}
