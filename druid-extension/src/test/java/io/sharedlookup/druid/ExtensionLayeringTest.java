package io.sharedlookup.druid;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * The extension's layering (its main classes only; the tests use the writer to build stores): of this project it
 * sees reader-lib's public package and nothing else, and it runs on what its folder holds, its jar and reader-lib.
 */
@AnalyzeClasses(packages = "io.sharedlookup.druid", importOptions = ImportOption.DoNotIncludeTests.class)
class ExtensionLayeringTest {
    @ArchTest
    static final ArchRule onlyReaderLibsPublicPackage = noClasses()
            .should()
            .dependOnClassesThat(resideInAPackage("io.sharedlookup..")
                    .and(not(resideInAnyPackage("io.sharedlookup.reader", "io.sharedlookup.druid.."))))
            .because("the extension uses reader-lib's public API (io.sharedlookup.reader) only: not its internal "
                    + "packages, whose types may change with the store format, nor the writer or the demo");

    @ArchTest
    static final ArchRule noChronicleKafkaOrNetty = noClasses()
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage("net.openhft..", "org.apache.kafka..", "kafka..", "io.netty..")
            .because("the extension folder holds this jar and reader-lib alone (ExtensionFolderIT): nothing of the "
                    + "writer's dependencies is there at run time");
}
