package io.github.relock.openrewrite;

import static org.openrewrite.java.Assertions.java;
import static org.openrewrite.java.Assertions.mavenProject;
import static org.openrewrite.java.Assertions.srcMainJava;
import static org.openrewrite.maven.Assertions.pomXml;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.openrewrite.InMemoryExecutionContext;
import org.openrewrite.maven.MavenExecutionContextView;
import org.openrewrite.test.RecipeSpec;
import org.openrewrite.test.RewriteTest;

/** The Maven composite: the code is migrated and relock is added to the module's pom, at this release's version. */
class MigrateFromRedissonMavenTest implements RewriteTest {

    private static final String VERSION = System.getProperty("relock.openrewrite.version");

    @Override
    public void defaults(RecipeSpec spec) {
        InMemoryExecutionContext ctx = new InMemoryExecutionContext(e -> {
            throw new AssertionError(e);
        });
        // No repository at all: this build's relock artifacts are in none while its tests run (a
        // clean CI machine has not installed them), so the added dependencies' poms cannot be
        // resolved here, and nothing is downloaded trying. A user's run resolves a released version.
        MavenExecutionContextView.view(ctx).setAddLocalRepository(false).setAddCentralRepository(false)
                .setRepositories(List.of());
        spec.recipeFromResources("io.github.relock.openrewrite.MigrateFromRedissonMaven")
                .parser(MigrateFromRedissonTest.PARSER).executionContext(ctx);
    }

    @Test
    void moduleUsingRedissonLocks_getsRelockCoreAndLettuce_atThisVersion() {
        rewriteRun(mavenProject("orders",
                srcMainJava(java(
                        """
                        import org.redisson.api.RLock;
                        import org.redisson.api.RedissonClient;

                        class Orders {
                            void ship(RedissonClient redisson) {
                                RLock lock = redisson.getLock("orders");
                                lock.lock();
                                lock.unlock();
                            }
                        }
                        """,
                        """
                        import io.github.relock.api.DistributedLock;
                        import io.github.relock.api.LockClient;

                        class Orders {
                            void ship(LockClient redisson) {
                                DistributedLock lock = redisson.getLock("orders");
                                lock.lock();
                                lock.unlock();
                            }
                        }
                        """)),
                pomXml(
                        """
                        <project>
                          <groupId>com.example</groupId>
                          <artifactId>orders</artifactId>
                          <version>1.0</version>
                        </project>
                        """,
                        spec -> spec.after(actual -> {
                            assertThat(UNRESOLVED.matcher(actual).replaceAll("").strip()).isEqualTo(ORDERS_AFTER.strip());
                            return actual;
                        }))));
    }

    /** What the resolver writes before a dependency whose pom it could not read (see {@link #defaults}). */
    private static final Pattern UNRESOLVED = Pattern.compile("<!--~~\\(Unable to download POM: [^)]*\\)~~>-->");

    private static final String ORDERS_AFTER = """
                        <project>
                          <groupId>com.example</groupId>
                          <artifactId>orders</artifactId>
                          <version>1.0</version>
                          <dependencies>
                            <dependency>
                              <groupId>io.github.relock</groupId>
                              <artifactId>relock-core</artifactId>
                              <version>%1$s</version>
                            </dependency>
                            <dependency>
                              <groupId>io.github.relock</groupId>
                              <artifactId>relock-lettuce</artifactId>
                              <version>%1$s</version>
                            </dependency>
                          </dependencies>
                        </project>
                        """.formatted(VERSION);

    @Test
    void moduleWithoutRedisson_pomUntouched() {
        rewriteRun(mavenProject("billing",
                srcMainJava(java("class Billing { }")),
                pomXml(
                        """
                        <project>
                          <groupId>com.example</groupId>
                          <artifactId>billing</artifactId>
                          <version>1.0</version>
                        </project>
                        """)));
    }
}
