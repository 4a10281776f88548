package io.sharedlookup.druid;

import com.fasterxml.jackson.databind.Module;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.google.inject.Binder;
import java.util.List;
import org.apache.druid.guice.JsonConfigProvider;
import org.apache.druid.initialization.DruidModule;

/**
 * Registers the {@code sharedLookup} lookup type and binds {@link SharedLookupConfig} to the
 * {@code druid.sharedLookup.*} runtime properties. Listed in
 * {@code META-INF/services/org.apache.druid.initialization.DruidModule}, which is how Druid finds it in an extension
 * directory.
 */
public class SharedLookupDruidModule implements DruidModule {
    @Override
    public List<? extends Module> getJacksonModules() {
        return List.of(new SimpleModule("SharedLookupModule").registerSubtypes(SharedLookupExtractorFactory.class));
    }

    @Override
    public void configure(Binder binder) {
        JsonConfigProvider.bind(binder, SharedLookupConfig.PROPERTY_BASE, SharedLookupConfig.class);
    }
}
