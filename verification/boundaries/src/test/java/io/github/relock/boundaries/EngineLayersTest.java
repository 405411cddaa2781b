package io.github.relock.boundaries;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The rooms inside lock-core's engine ({@code io.github.relock.core.internal.*}), each with one job,
 * and who may use whom: lower rooms never reach up, so a reader can understand each room from the
 * ones below it alone. See each package's {@code package-info} for its job.
 */
class EngineLayersTest {
    private static final String INTERNAL = "io.github.relock.core.internal.";
    private static JavaClasses core;

    @BeforeAll
    static void importClasses() {
        core = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("io.github.relock.core", "io.github.relock.spi");
    }

    @Test
    void engineRooms_dependOnlyDownwards() {
        layeredArchitecture().consideringOnlyDependenciesInLayers()
                .layer("entry").definedBy("io.github.relock.core")
                .layer("client").definedBy(INTERNAL + "client..")
                .layer("multi").definedBy(INTERNAL + "multi..")
                .layer("sync").definedBy(INTERNAL + "sync..")
                .layer("lock").definedBy(INTERNAL + "lock..")
                .layer("wait").definedBy(INTERNAL + "wait..")
                .layer("hold").definedBy(INTERNAL + "hold..")
                .layer("run").definedBy(INTERNAL + "run..")
                .layer("protocol").definedBy(INTERNAL + "protocol..")
                .layer("observe").definedBy(INTERNAL + "observe..")
                .layer("util").definedBy(INTERNAL + "util..")
                .whereLayer("client").mayOnlyBeAccessedByLayers("entry")
                .whereLayer("multi").mayOnlyBeAccessedByLayers("client")
                .whereLayer("sync").mayOnlyBeAccessedByLayers("client")
                .whereLayer("lock").mayOnlyBeAccessedByLayers("multi", "sync", "client")
                .whereLayer("wait").mayOnlyBeAccessedByLayers("lock", "sync", "client")
                .whereLayer("hold").mayOnlyBeAccessedByLayers("lock", "multi", "sync", "client")
                .whereLayer("run").mayOnlyBeAccessedByLayers("hold", "wait", "lock", "multi", "sync", "client")
                .whereLayer("protocol").mayOnlyBeAccessedByLayers("run", "hold", "wait", "lock", "multi", "sync", "client")
                .whereLayer("observe").mayOnlyBeAccessedByLayers("hold", "lock", "client")
                .because("each room of the engine is understood from the rooms below it: the wait machine knows "
                        + "no lock and no hold, the hold registry knows no wait, protocols know only their scripts")
                .check(core);
    }

    @Test
    void driverSpi_dependsOnNothingOfTheEngine() {
        noClasses().that().resideInAPackage("io.github.relock.spi..")
                .should().dependOnClassesThat().resideInAPackage("io.github.relock.core..")
                .because("the SPI is the stable, exported contract drivers compile against: it stands below the "
                        + "engine, so no engine change can reach a driver through it")
                .check(core);
    }

    @Test
    void engineRooms_haveNoCycles() {
        slices().matching("io.github.relock.core.internal.(*)..")
                .should().beFreeOfCycles()
                .because("a cycle between two rooms makes them one room with two names")
                .check(core);
    }
}
