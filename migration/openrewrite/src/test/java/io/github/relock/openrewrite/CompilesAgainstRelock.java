package io.github.relock.openrewrite;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;
import org.openrewrite.java.tree.J;

/**
 * Compiles a migrated source with javac against relock's API alone (no Redisson on the class path):
 * a migration that claims to be complete must leave code that builds without Redisson.
 */
final class CompilesAgainstRelock {

    private CompilesAgainstRelock() {
    }

    static void check(J.CompilationUnit migrated, Path relockApi) {
        String name = migrated.getSourcePath().getFileName().toString();
        String source = migrated.printAll();
        JavaFileObject file = new SimpleJavaFileObject(URI.create("string:///" + name), JavaFileObject.Kind.SOURCE) {
            @Override
            public CharSequence getCharContent(boolean ignoreEncodingErrors) {
                return source;
            }
        };
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        Path out;
        try {
            out = Files.createTempDirectory("relock-openrewrite");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        boolean compiled = javac.getTask(null, null, diagnostics,
                List.of("-proc:none", "-classpath", relockApi.toString(), "-d", out.toString()),
                null, List.of(file)).call();
        assertTrue(compiled, () -> "the migrated " + name + " does not compile against relock's API:\n"
                + diagnostics.getDiagnostics().stream().map(d -> d.getLineNumber() + ": " + d.getMessage(null))
                        .collect(Collectors.joining("\n")) + "\n" + source);
    }
}
