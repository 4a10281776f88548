package io.sharedlookup.reader;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * reader-lib's layering (its main classes: {@code io.sharedlookup.reader}, the public API, and
 * {@code io.sharedlookup.internal..}, the read side of the store format): what every Druid node and application embeds
 * must not drag in the writer, the demo or their dependencies.
 */
@AnalyzeClasses(packages = "io.sharedlookup", importOptions = ImportOption.DoNotIncludeTests.class)
class ReadSideLayeringTest {
    @ArchTest
    static final ArchRule readSideNeverImportsTheWriteSide = noClasses()
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage("io.sharedlookup.writer..", "io.sharedlookup.demo..", "io.sharedlookup.druid..")
            .because("readers embed reader-lib alone; the writer, the demo and the Druid extension build on it, "
                    + "never the other way round");

    @ArchTest
    static final ArchRule onlyTheJdkAndSlf4j = classes()
            .should()
            .onlyDependOnClassesThat()
            .resideInAnyPackage("java..", "org.slf4j..", "io.sharedlookup.reader..", "io.sharedlookup.internal..")
            .because("reader-lib depends on slf4j-api alone: no Chronicle Map, Kafka or Netty in a reader's JVM, and "
                    + "no JVM flag (docs/reader.md)");
}
