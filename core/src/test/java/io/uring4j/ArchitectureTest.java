package io.uring4j;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.Architectures;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The house plan, kept by the build: {@code sys} and {@code ring.abi} at the bottom, the ring core above them,
 * the runtime above the ring, files and sockets on top; the portable engine beside the ring core, found by it as
 * a service and imported by nobody. A change that breaks the plan fails here, named, instead of in review.
 */
class ArchitectureTest {
    private static JavaClasses library;

    @BeforeAll
    static void importLibrary() {
        library = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("io.uring4j");
    }

    @Test
    void layersDependOnlyDownwards() {
        Architectures.layeredArchitecture().consideringOnlyDependenciesInLayers()
                .layer("sys").definedBy("io.uring4j.sys..")
                .layer("abi").definedBy("io.uring4j.ring.abi..")
                .layer("ring").definedBy("io.uring4j.ring")
                .layer("portable").definedBy("io.uring4j.portable..")
                .layer("runtime").definedBy("io.uring4j.runtime..")
                .layer("fs").definedBy("io.uring4j.fs..")
                .layer("net").definedBy("io.uring4j.net..")
                .whereLayer("fs").mayNotBeAccessedByAnyLayer()
                .whereLayer("net").mayNotBeAccessedByAnyLayer()
                .whereLayer("runtime").mayOnlyBeAccessedByLayers("fs", "net")
                .whereLayer("portable").mayNotBeAccessedByAnyLayer()
                .whereLayer("ring").mayOnlyBeAccessedByLayers("portable", "runtime", "fs", "net")
                .whereLayer("abi").mayOnlyBeAccessedByLayers("ring", "portable", "runtime", "fs", "net")
                .whereLayer("sys").mayOnlyBeAccessedByLayers("abi", "ring", "portable", "runtime", "fs", "net")
                .check(library);
    }

    @Test
    void theAbiIsPlainConstantsAndLayouts() {
        noClasses().that().resideInAPackage("io.uring4j.ring.abi..")
                .should().dependOnClassesThat().resideInAnyPackage("io.uring4j.ring", "io.uring4j.portable..",
                        "io.uring4j.runtime..", "io.uring4j.fs..", "io.uring4j.net..")
                .because("the ABI is the kernel's uapi header: both the ring core and the portable engine use it")
                .check(library);
    }

    @Test
    void noPackageCycles() {
        slices().matching("io.uring4j.(**)").should().beFreeOfCycles().check(library);
    }

    @Test
    void onlyTheServiceDeclarationNamesThePortableEngine() {
        noClasses().that().resideOutsideOfPackage("io.uring4j.portable..")
                .should().dependOnClassesThat().resideInAPackage("io.uring4j.portable..")
                .because("the ring core finds the portable engine through ServiceLoader (FallbackEngine.Provider)")
                .check(library);
    }
}
