/**
 * OpenRewrite recipes that migrate Redisson lock code to relock. Start with the composite recipe
 * {@code io.github.relock.openrewrite.MigrateFromRedisson}; the guide "Migrating from Redisson"
 * (docs/guide/migrating-from-redisson.md) says what it changes and what it leaves marked.
 */
@NullMarked
package io.github.relock.openrewrite;

import org.jspecify.annotations.NullMarked;
