package io.sharedlookup.writer;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * The writer's layering (its main classes): the production writer knows nothing of the demo or of a Kafka broker,
 * which live in the demo jar (the broker reaches the writer's tests at test scope only).
 */
@AnalyzeClasses(packages = "io.sharedlookup.writer", importOptions = ImportOption.DoNotIncludeTests.class)
class WriterLayeringTest {
    @ArchTest
    static final ArchRule noDemoAndNoKafkaServer = noClasses()
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage("io.sharedlookup.demo..", "kafka..", "scala..", "io.sharedlookup.druid..")
            .because("the writer's jar and image carry the Kafka client only; the embedded broker and the demo feed "
                    + "are the demo module's (java -jar demo/target/shared-lookup-demo.jar)");
}
