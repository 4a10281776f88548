package io.sharedlookup.druid;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.InjectableValues;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.inject.Injector;
import com.google.inject.Key;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.ServiceLoader;
import java.util.Set;
import org.apache.druid.guice.StartupInjectorBuilder;
import org.apache.druid.guice.annotations.Json;
import org.apache.druid.guice.annotations.Self;
import org.apache.druid.initialization.DruidModule;
import org.apache.druid.initialization.ServerInjectorBuilder;
import org.apache.druid.jackson.DefaultObjectMapper;
import org.apache.druid.query.lookup.LookupExtractorFactory;
import org.apache.druid.query.lookup.LookupExtractorFactoryContainer;
import org.apache.druid.server.DruidNode;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The lookup spec, read by Druid's own ObjectMapper with the extension found through ServiceLoader. */
class LookupSpecTest {
    @TempDir
    static Path tmp;

    static Path store;

    @BeforeAll
    static void createStore() throws Exception {
        store = Files.createDirectories(tmp.resolve("store"));
    }

    /** What Druid does with extensions on its class path: ServiceLoader, then each module's Jackson modules. */
    private static ObjectMapper druidMapper(SharedLookupConfig config) {
        ObjectMapper mapper = new DefaultObjectMapper();
        boolean found = false;
        for (DruidModule module : ServiceLoader.load(DruidModule.class)) {
            if (module instanceof SharedLookupDruidModule) {
                found = true;
            }
            module.getJacksonModules().forEach(mapper::registerModule);
        }
        assertThat(found)
                .as("SharedLookupDruidModule listed in META-INF/services")
                .isTrue();
        mapper.setInjectableValues(new InjectableValues.Std().addValue(SharedLookupConfig.class, config));
        return mapper;
    }

    private static String spec(String body) {
        return "{\"type\": \"sharedLookup\"" + body + "}";
    }

    @Test
    void fullSpecDeserialises() throws Exception {
        ObjectMapper mapper = druidMapper(new SharedLookupConfig());
        LookupExtractorFactory factory = mapper.readValue(
                spec(", \"namespace\": \"users\", \"storeDir\": \"" + store + "\", \"injective\": true"),
                LookupExtractorFactory.class);
        assertThat(factory).isInstanceOf(SharedLookupExtractorFactory.class);
        SharedLookupExtractorFactory shared = (SharedLookupExtractorFactory) factory;
        assertThat(shared.getNamespace()).isEqualTo("users");
        assertThat(shared.storeDirectory()).isEqualTo(store);
        assertThat(shared.isInjective()).isTrue();
        assertThat(shared.get().isOneToOne()).isTrue();
        // Round trip, as Druid's lookup snapshots and listings do.
        assertThat(mapper.readValue(mapper.writeValueAsString(factory), LookupExtractorFactory.class))
                .isEqualTo(factory);
    }

    /** A misspelt field is ignored, as Druid ignores unknown fields, but not silently: it is named in a WARN. */
    @Test
    void anUnknownFieldIsIgnoredAndNamed() throws Exception {
        ObjectMapper mapper = druidMapper(new SharedLookupConfig(store.toString(), 1000));
        SharedLookupExtractorFactory factory = (SharedLookupExtractorFactory) mapper.readValue(
                spec(", \"namespace\": \"users\", \"storedir\": \"/elsewhere\""), LookupExtractorFactory.class);
        assertThat(factory.ignoredFields()).containsExactly("storedir");
        assertThat(factory.storeDirectory()).isEqualTo(store);
        assertThat(((SharedLookupExtractorFactory)
                                mapper.readValue(spec(", \"namespace\": \"users\""), LookupExtractorFactory.class))
                        .ignoredFields())
                .isEmpty();
    }

    @Test
    void containerAsSentByTheCoordinator() throws Exception {
        ObjectMapper mapper = druidMapper(new SharedLookupConfig(store.toString(), 1000));
        LookupExtractorFactoryContainer container = mapper.readValue(
                "{\"version\": \"v1\", \"lookupExtractorFactory\": " + spec(", \"namespace\": \"users\"") + "}",
                LookupExtractorFactoryContainer.class);
        assertThat(container.getLookupExtractorFactory()).isInstanceOf(SharedLookupExtractorFactory.class);
        SharedLookupExtractorFactory shared = (SharedLookupExtractorFactory) container.getLookupExtractorFactory();
        assertThat(shared.storeDirectory())
                .as("druid.sharedLookup.storeDir applies")
                .isEqualTo(store);
        assertThat(shared.isInjective()).isFalse();
    }

    @Test
    void missingNamespaceFailsClearly() {
        ObjectMapper mapper = druidMapper(new SharedLookupConfig(store.toString(), 1000));
        assertThatThrownBy(() -> mapper.readValue(spec(""), LookupExtractorFactory.class))
                .hasMessageContaining("\"namespace\" is required");
    }

    @Test
    void invalidNamespaceFailsClearly() {
        ObjectMapper mapper = druidMapper(new SharedLookupConfig(store.toString(), 1000));
        assertThatThrownBy(() -> mapper.readValue(spec(", \"namespace\": \"../etc\""), LookupExtractorFactory.class))
                .hasMessageContaining("Invalid namespace name \"../etc\"")
                .hasMessageContaining("[A-Za-z0-9._-]");
    }

    /** {@code maxStaleness} is written as Druid's own spec periods are (ISO-8601, read as a Joda period). */
    @Test
    void maxStalenessIsReadAsAnIsoPeriodAndReadsBackAsWritten() throws Exception {
        ObjectMapper mapper = druidMapper(new SharedLookupConfig(store.toString(), 1000));
        SharedLookupExtractorFactory factory = (SharedLookupExtractorFactory) mapper.readValue(
                spec(", \"namespace\": \"users\", \"maxStaleness\": \"PT5M\""), LookupExtractorFactory.class);
        assertThat(factory.getMaxStaleness()).isEqualTo("PT5M");
        assertThat(factory.staleness().max().millis()).isEqualTo(300_000);
        assertThat(factory.ignoredFields()).isEmpty();
        assertThat(mapper.writeValueAsString(factory)).contains("\"maxStaleness\":\"PT5M\"");
        assertThat(mapper.readValue(mapper.writeValueAsString(factory), LookupExtractorFactory.class))
                .isEqualTo(factory);
        assertThat(factory("P1D").staleness().max().millis()).isEqualTo(86_400_000);
        assertThat(factory("PT1S").staleness().max().millis())
                .as("the floor itself")
                .isEqualTo(1_000);
        SharedLookupExtractorFactory unset = (SharedLookupExtractorFactory)
                mapper.readValue(spec(", \"namespace\": \"users\""), LookupExtractorFactory.class);
        assertThat(unset.getMaxStaleness()).isNull();
        assertThat(unset.staleness()).as("unset: never fails for staleness").isNull();
        assertThat(mapper.writeValueAsString(unset)).doesNotContain("maxStaleness");
    }

    /** A spec whose bound changed replaces the running lookup, so that Druid picks the new bound up. */
    @Test
    void aChangedMaxStalenessReplacesTheLookup() {
        SharedLookupExtractorFactory none = factory(null);
        SharedLookupExtractorFactory fiveMinutes = factory("PT5M");
        assertThat(fiveMinutes.replaces(factory("PT5M"))).isFalse();
        assertThat(fiveMinutes.replaces(none)).isTrue();
        assertThat(none.replaces(fiveMinutes)).isTrue();
        assertThat(fiveMinutes.replaces(factory("PT10M"))).isTrue();
        assertThat(fiveMinutes.hashCode()).isNotEqualTo(factory("PT10M").hashCode());
    }

    /** A bad value fails the spec with one line naming the lookup, the value and how to write it. */
    @Test
    void aBadMaxStalenessFailsTheSpecWithOneLine() {
        ObjectMapper mapper = druidMapper(new SharedLookupConfig(store.toString(), 1000));
        Map<String, String> expected = new java.util.LinkedHashMap<>();
        expected.put("\"5m\"", "not an ISO-8601 period: write it as Druid's periods are written, e.g. \"PT5M\"");
        expected.put("\"P1M\"", "has months or years, whose length varies");
        expected.put("\"PT0.5S\"", "under the least allowed, PT1S");
        expected.put("\"PT0S\"", "under the least allowed, PT1S");
        expected.put("\"-PT5M\"", "not an ISO-8601 period");
        expected.put("300000", "not an ISO-8601 period: write it as a string such as \"PT5M\"");
        expected.forEach((value, problem) -> assertThatThrownBy(() -> mapper.readValue(
                        spec(", \"namespace\": \"users\", \"maxStaleness\": " + value), LookupExtractorFactory.class))
                .as(value)
                .cause()
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("sharedLookup 'users': \"maxStaleness\" is " + value + ", ")
                .hasMessageContaining(problem)
                .satisfies(e -> assertThat(e.getMessage()).as("one line").doesNotContain("\n")));
    }

    private static SharedLookupExtractorFactory factory(String maxStaleness) {
        return new SharedLookupExtractorFactory(
                "users", store.toString(), false, maxStaleness, new SharedLookupConfig(store.toString(), 1000));
    }

    /**
     * A missing store directory fails the lookup's start, not the reading of its spec: Druid reads a node's whole lookup
     * snapshot at start in one go, and one spec that cannot be read there would stop the node from starting.
     */
    @Test
    void missingStoreDirFailsTheStartClearly_notTheSpec() throws Exception {
        ObjectMapper mapper = druidMapper(new SharedLookupConfig());
        Path missing = tmp.resolve("not-mounted");
        LookupExtractorFactory factory = mapper.readValue(
                spec(", \"namespace\": \"users\", \"storeDir\": \"" + missing + "\""), LookupExtractorFactory.class);
        assertThatThrownBy(factory::start)
                .hasMessageContaining("store directory " + missing)
                .hasMessageContaining("does not exist on this node")
                .hasMessageContaining("\"storeDir\" of the lookup spec");
    }

    @Test
    void storeDirThatIsAFileFailsTheStartClearly() throws Exception {
        Path file = Files.writeString(tmp.resolve("a-file"), "x");
        ObjectMapper mapper = druidMapper(new SharedLookupConfig(file.toString(), 1000));
        LookupExtractorFactory factory =
                mapper.readValue(spec(", \"namespace\": \"users\""), LookupExtractorFactory.class);
        assertThatThrownBy(factory::start)
                .hasMessageContaining("store directory " + file)
                .hasMessageContaining("druid.sharedLookup.storeDir");
    }

    /** The whole Druid way: a server injector loads the module via ServiceLoader and binds druid.sharedLookup.*. */
    @Test
    void druidInjectorLoadsTheExtensionAndItsRuntimeProperties() throws Exception {
        Properties properties = new Properties();
        properties.setProperty("druid.sharedLookup.storeDir", store.toString());
        properties.setProperty("druid.sharedLookup.initializationTimeoutMillis", "1234");
        properties.setProperty("druid.sharedLookup.maxReverseLookupKeys", "567");
        properties.setProperty("druid.sharedLookup.closeDelayMillis", "890");
        Injector startup = new StartupInjectorBuilder()
                .withExtensions()
                .withProperties(properties)
                .build();
        Injector injector = ServerInjectorBuilder.makeServerInjector(
                startup,
                Set.of(),
                List.of(binder -> binder.bind(DruidNode.class)
                        .annotatedWith(Self.class)
                        .toInstance(new DruidNode("test", "localhost", false, 8082, null, true, false))));
        SharedLookupConfig config = injector.getInstance(SharedLookupConfig.class);
        assertThat(config.getStoreDir()).isEqualTo(store.toString());
        assertThat(config.getInitializationTimeoutMillis()).isEqualTo(1234);
        assertThat(config.getMaxReverseLookupKeys()).isEqualTo(567);
        assertThat(config.getCloseDelayMillis()).isEqualTo(890);

        ObjectMapper mapper = injector.getInstance(Key.get(ObjectMapper.class, Json.class));
        Map<String, Object> lookups = Map.of(
                "users",
                Map.of(
                        "version",
                        "v1",
                        "lookupExtractorFactory",
                        Map.of("type", "sharedLookup", "namespace", "users")));
        LookupExtractorFactoryContainer container =
                mapper.convertValue(lookups.get("users"), LookupExtractorFactoryContainer.class);
        SharedLookupExtractorFactory factory = (SharedLookupExtractorFactory) container.getLookupExtractorFactory();
        assertThat(factory.storeDirectory()).isEqualTo(store);
    }
}
