package io.github.relock.openrewrite;

import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.openrewrite.Cursor;
import org.openrewrite.ExecutionContext;
import org.openrewrite.Preconditions;
import org.openrewrite.Recipe;
import org.openrewrite.Tree;
import org.openrewrite.TreeVisitor;
import org.openrewrite.java.ChangeType;
import org.openrewrite.java.JavaVisitor;
import org.openrewrite.java.search.UsesType;
import org.openrewrite.java.tree.J;
import org.openrewrite.java.tree.JRightPadded;
import org.openrewrite.java.tree.JavaType;
import org.openrewrite.java.tree.Space;
import org.openrewrite.java.tree.Statement;
import org.openrewrite.java.tree.TypeUtils;
import org.openrewrite.marker.Markers;

/**
 * Rewrites {@code new RedissonMultiLock(a, b)} and {@code new RedissonRedLock(a, b)} into
 * {@code client.getMultiLock(a, b)} and {@code client.getRedLock(a, b)} (Redisson's own
 * {@code RedissonClient} methods, which the type migration then turns into relock's), and variables
 * declared as {@code RedissonMultiLock}/{@code RedissonRedLock} into {@code RLock}.
 *
 * <p>The client is the one a lock argument comes from ({@code client.getLock("a")}), else the one
 * {@code RedissonClient} variable in scope: the innermost block's locals declared before the
 * construction, the enclosing methods' and lambdas' parameters, the enclosing classes' fields (static
 * ones only from a static context). Where no such client is found, or two are at the same level,
 * the construction is left as it is with a {@code TODO relock:} marker, and the file's declared types
 * stay Redisson's: a human picks the client.
 *
 * <p>Thread-safety: stateless; OpenRewrite may run it on several files at once.
 */
public final class ReplaceMultiLockConstructors extends Recipe {

    private static final String CLIENT = "org.redisson.api.RedissonClient";
    private static final String MULTI = "org.redisson.RedissonMultiLock";
    private static final String RED = "org.redisson.RedissonRedLock";
    /** Cursor message on the compilation unit: a construction there was left for a human. */
    private static final String UNRESOLVED = "relock.unresolvedMultiLock";

    private final transient UnmigratedRedissonCode unmigrated = new UnmigratedRedissonCode(this);

    /** A recipe with no options. */
    public ReplaceMultiLockConstructors() {
    }

    @Override
    public String getDisplayName() {
        return "Replace Redisson multi-lock and RedLock constructors with client calls";
    }

    @Override
    public String getDescription() {
        return "Rewrites `new RedissonMultiLock(...)` and `new RedissonRedLock(...)` into `getMultiLock(...)` "
                + "and `getRedLock(...)` on the `RedissonClient` in scope; marks them where there is none.";
    }

    @Override
    public TreeVisitor<?, ExecutionContext> getVisitor() {
        return Preconditions.check(Preconditions.or(new UsesType<>(MULTI, false), new UsesType<>(RED, false)),
                new JavaVisitor<ExecutionContext>() {
                    @Override
                    public J visitCompilationUnit(J.CompilationUnit cu, ExecutionContext ctx) {
                        J result = super.visitCompilationUnit(cu, ctx);
                        if (getCursor().getMessage(UNRESOLVED) == null) {
                            // Every construction became a client call: what is declared as one is now an RLock.
                            doAfterVisit(new ChangeType(MULTI, "org.redisson.api.RLock", true).getVisitor());
                            doAfterVisit(new ChangeType(RED, "org.redisson.api.RLock", true).getVisitor());
                        }
                        return result;
                    }

                    @Override
                    public J visitNewClass(J.NewClass newClass, ExecutionContext ctx) {
                        J visited = super.visitNewClass(newClass, ctx);
                        if (!(visited instanceof J.NewClass n) || n.getBody() != null) {
                            return visited;
                        }
                        String factory = TypeUtils.isOfClassType(n.getType(), MULTI) ? "getMultiLock"
                                : TypeUtils.isOfClassType(n.getType(), RED) ? "getRedLock" : null;
                        if (factory == null) {
                            return visited;
                        }
                        J.Identifier client = clientFor(n, getCursor());
                        JavaType.Method method = client == null ? null : method(client.getType(), factory);
                        if (client == null || method == null) {
                            getCursor().putMessageOnFirstEnclosing(J.CompilationUnit.class, UNRESOLVED, true);
                            return unmigrated.mark(n, getCursor().getParentOrThrow(), ctx,
                                    "no single RedissonClient in scope; use lockClient." + factory + "(...)");
                        }
                        return new J.MethodInvocation(Tree.randomId(), n.getPrefix(), n.getMarkers(),
                                JRightPadded.build(client), null,
                                new J.Identifier(Tree.randomId(), Space.EMPTY, Markers.EMPTY, List.of(), factory, method, null),
                                n.getPadding().getArguments(), method);
                    }
                });
    }

    private static JavaType.@Nullable Method method(@Nullable JavaType clientType, String name) {
        JavaType.FullyQualified type = TypeUtils.asFullyQualified(clientType);
        if (type == null) {
            return null;
        }
        for (JavaType.Method m : type.getMethods()) {
            if (m.getName().equals(name) && m.getParameterTypes().size() == 1
                    && m.getParameterTypes().get(0) instanceof JavaType.Array) {
                return m;
            }
        }
        return null;
    }

    /** The client the construction's locks come from, else the one client variable in scope, else null. */
    private static J.@Nullable Identifier clientFor(J.NewClass n, Cursor cursor) {
        J.Identifier first = null;
        for (var argument : n.getArguments()) {
            if (argument instanceof J.MethodInvocation call && call.getSelect() instanceof J.Identifier select
                    && TypeUtils.isAssignableTo(CLIENT, select.getType())) {
                first = first == null ? select : first;
            }
        }
        if (first != null) {
            // Locks from several clients are fine for relock's multi-lock: any of them builds it.
            return fresh(first);
        }
        return inScope(cursor);
    }

    private static J.@Nullable Identifier inScope(Cursor cursor) {
        boolean staticContext = false;
        Object previous = null;
        for (Cursor c = cursor; c != null; c = c.getParent()) {
            Object value = c.getValue();
            List<J.VariableDeclarations.NamedVariable> found = new ArrayList<>();
            if (value instanceof J.Block block && !isTypeBody(c)) {
                for (Statement statement : block.getStatements()) {
                    if (statement == previous) {
                        break;
                    }
                    clients(statement, found);
                }
            } else if (value instanceof J.MethodDeclaration method) {
                method.getParameters().forEach(p -> clients(p, found));
                staticContext |= method.hasModifier(J.Modifier.Type.Static);
            } else if (value instanceof J.Lambda lambda) {
                lambda.getParameters().getParameters().forEach(p -> clients(p, found));
            } else if (value instanceof J.ClassDeclaration type) {
                for (Statement statement : type.getBody().getStatements()) {
                    if (statement instanceof J.VariableDeclarations field
                            && (!staticContext || field.hasModifier(J.Modifier.Type.Static))) {
                        clients(field, found);
                    }
                }
                staticContext |= type.hasModifier(J.Modifier.Type.Static);
            }
            if (found.size() == 1) {
                return fresh(found.get(0).getName());
            }
            if (found.size() > 1) {
                return null;
            }
            if (value instanceof J) {
                previous = value;
            }
        }
        return null;
    }

    private static boolean isTypeBody(Cursor block) {
        Object parent = block.getParentTreeCursor().getValue();
        return parent instanceof J.ClassDeclaration || parent instanceof J.NewClass;
    }

    private static void clients(Object statement, List<J.VariableDeclarations.NamedVariable> into) {
        if (statement instanceof J.VariableDeclarations declarations
                && TypeUtils.isAssignableTo(CLIENT, declarations.getType())) {
            into.addAll(declarations.getVariables());
        }
    }

    private static J.Identifier fresh(J.Identifier name) {
        return new J.Identifier(Tree.randomId(), Space.EMPTY, Markers.EMPTY, List.of(), name.getSimpleName(),
                name.getType(), name.getFieldType());
    }
}
