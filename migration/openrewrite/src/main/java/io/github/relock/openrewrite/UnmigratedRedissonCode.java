package io.github.relock.openrewrite;

import org.openrewrite.Column;
import org.openrewrite.Cursor;
import org.openrewrite.DataTable;
import org.openrewrite.ExecutionContext;
import org.openrewrite.Recipe;
import org.openrewrite.SourceFile;
import org.openrewrite.java.tree.J;
import org.openrewrite.marker.SearchResult;

/**
 * The data table of what the migration left for a person: each row is one piece of code it marked
 * with a {@code TODO relock:} comment in the changed source, and the reason.
 *
 * <p>Thread-safety: as every OpenRewrite data table, rows go to the run's execution context.
 */
public final class UnmigratedRedissonCode extends DataTable<UnmigratedRedissonCode.Row> {

    /** The prefix of every marker this migration leaves, to search the code for. */
    static final String TODO = "TODO relock: ";

    /**
     * @param recipe the recipe that fills it
     */
    public UnmigratedRedissonCode(Recipe recipe) {
        super(recipe, "Redisson code left to migrate by hand",
                "Redisson calls and constructions the relock migration could not rewrite, and why.");
    }

    /**
     * One piece of code left as it was. Immutable.
     *
     * @param sourcePath the source file
     * @param code the code, as printed before the migration
     * @param reason why it was left, and what to do instead
     */
    public record Row(
            @Column(displayName = "Source path", description = "The source file.") String sourcePath,
            @Column(displayName = "Code", description = "The code left as it was.") String code,
            @Column(displayName = "Reason", description = "Why it was left, and what to do instead.") String reason) {
    }

    /**
     * Marks a tree with a TODO comment and records it.
     *
     * @param tree the code to leave as it is
     * @param cursor the cursor of its parent (for the source path and the printing)
     * @param ctx the run's context
     * @param reason why, and what to do instead
     * @param <T> the tree's type
     * @return the tree, marked
     */
    <T extends J> T mark(T tree, Cursor cursor, ExecutionContext ctx, String reason) {
        SourceFile source = cursor.firstEnclosing(SourceFile.class);
        String path = source == null ? "" : source.getSourcePath().toString();
        insertRow(ctx, new Row(path, tree.printTrimmed(cursor), reason));
        return SearchResult.found(tree, TODO + reason);
    }
}
