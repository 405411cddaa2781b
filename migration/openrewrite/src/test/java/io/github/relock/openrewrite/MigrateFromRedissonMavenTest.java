package io.github.relock.openrewrite;

import static org.openrewrite.java.Assertions.java;
import static org.openrewrite.java.Assertions.mavenProject;
import static org.openrewrite.java.Assertions.srcMainJava;
import static org.openrewrite.maven.Assertions.pomXml;

import org.junit.jupiter.api.Test;
import org.openrewrite.test.RecipeSpec;
import org.openrewrite.test.RewriteTest;

/** The Maven composite: the code is migrated and relock is added to the module's pom, at this release's version. */
class MigrateFromRedissonMavenTest implements RewriteTest {

    private static final String VERSION = System.getProperty("relock.openrewrite.version");

    @Override
    public void defaults(RecipeSpec spec) {
        spec.recipeFromResources("io.github.relock.openrewrite.MigrateFromRedissonMaven")
                .parser(MigrateFromRedissonTest.PARSER);
    }

    @Test
    void moduleUsingRedissonLocks_getsRelockCoreAndLettuce_atThisVersion_redissonKept() {
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
                          <dependencies>
                            <dependency>
                              <groupId>org.redisson</groupId>
                              <artifactId>redisson</artifactId>
                              <version>4.7.0</version>
                            </dependency>
                          </dependencies>
                        </project>
                        """,
                        """
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
                            <dependency>
                              <groupId>org.redisson</groupId>
                              <artifactId>redisson</artifactId>
                              <version>4.7.0</version>
                            </dependency>
                          </dependencies>
                        </project>
                        """.formatted(VERSION))));
    }

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
