package io.github.relock.boundaries;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The module boundaries of the architecture brief, as ArchUnit rules that explain themselves. */
class ArchitectureTest {
    private static JavaClasses relock;

    @BeforeAll
    static void importClasses() {
        relock = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("io.github.relock");
    }

    @Test
    void api_dependsOnNothingButTheJdk() {
        classes().that().resideInAPackage("io.github.relock.api..")
                .should().onlyDependOnClassesThat().resideInAnyPackage("io.github.relock.api..", "java..")
                .because("applications compile against lock-api alone; it must drag in nothing")
                .check(relock);
    }

    @Test
    void drivers_useOnlyApiAndSpi() {
        noClasses().that().resideInAPackage("io.github.relock.driver..")
                .should().dependOnClassesThat().resideInAnyPackage(
                        "io.github.relock.core..", "io.github.relock.tck..")
                .because("a driver only carries Redis calls through the SPI; the engine is core's business")
                .check(relock);
    }

    @Test
    void spi_namesNoClientType() {
        noClasses().that().resideInAPackage("io.github.relock.spi..")
                .should().dependOnClassesThat().resideInAnyPackage(
                        "redis.clients..", "io.lettuce..", "io.netty..", "org.redisson..", "reactor..")
                .because("the SPI must stay implementable on any Redis client")
                .check(relock);
    }

    @Test
    void engine_knowsNoDriverAndNoRedisson() {
        noClasses().that().resideInAnyPackage("io.github.relock.core..", "io.github.relock.spi..", "io.github.relock.api..")
                .should().dependOnClassesThat().resideInAnyPackage(
                        "io.github.relock.driver..", "redis.clients..", "io.lettuce..", "io.netty..", "org.redisson..")
                .because("core runs on any driver, and Redisson may appear only in the TCK, benchmarks and examples")
                .check(relock);
    }

    @Test
    void drivers_doNotKnowEachOther() {
        noClasses().that().resideInAPackage("io.github.relock.driver.jedis..")
                .should().dependOnClassesThat().resideInAPackage("io.github.relock.driver.lettuce..")
                .because("each driver stands alone")
                .check(relock);
        noClasses().that().resideInAPackage("io.github.relock.driver.lettuce..")
                .should().dependOnClassesThat().resideInAPackage("io.github.relock.driver.jedis..")
                .because("each driver stands alone")
                .check(relock);
        noClasses().that().resideInAPackage("io.github.relock.driver.springdata..")
                .should().dependOnClassesThat().resideInAnyPackage("io.github.relock.driver.jedis..", "io.github.relock.driver.lettuce..")
                .because("each driver stands alone")
                .check(relock);
    }

    @Test
    void embeddedRedisLauncher_dependsOnTheJdkAlone() {
        classes().that().resideInAPackage("io.github.relock.embeddedredis..")
                .should().onlyDependOnClassesThat().resideInAnyPackage("io.github.relock.embeddedredis..", "java..")
                .because("the demo's run-time class path carries it, and must not carry the kit or JUnit with it")
                .check(relock);
    }

    @Test
    void libraries_doNotStartEmbeddedRedis() {
        noClasses().that().resideInAnyPackage("io.github.relock.api..", "io.github.relock.core..",
                        "io.github.relock.spi..", "io.github.relock.driver..")
                .should().dependOnClassesThat().resideInAPackage("io.github.relock.embeddedredis..")
                .because("the launcher is test and demo tooling; the libraries stay free of it")
                .check(relock);
    }

    @Test
    void integrations_useOnlyThePublicApi() {
        noClasses().that().resideInAnyPackage("io.github.relock.spring..", "io.github.relock.shedlock..",
                        "io.github.relock.micrometer..", "io.github.relock.reactor..", "io.github.relock.kotlin..",
                        "io.github.relock.rxjava3..")
                .should().dependOnClassesThat().resideInAnyPackage(
                        "io.github.relock.core.internal..", "io.github.relock.spi..", "io.github.relock.driver..",
                        "io.github.relock.tck..")
                .because("an integration is a thin module over the public API; the engine may change under it")
                .check(relock);
    }

    @Test
    void spring_onlyInTheSpringModules() {
        noClasses().that().resideOutsideOfPackages("io.github.relock.spring..", "io.github.relock.driver.springdata..",
                        "io.github.relock.examples..")
                .should().dependOnClassesThat().resideInAPackage("org.springframework..")
                .because("applications without Spring must not need it on their class path")
                .check(relock);
    }

    @Test
    void packages_haveNoCycles() {
        slices().matching("io.github.relock.(**)")
                .should().beFreeOfCycles()
                .because("cycles between packages make the module split meaningless")
                .check(relock);
    }
}
