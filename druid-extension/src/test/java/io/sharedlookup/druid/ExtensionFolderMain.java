package io.sharedlookup.druid;

import com.fasterxml.jackson.databind.InjectableValues;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.ServiceLoader;
import org.apache.druid.initialization.DruidModule;
import org.apache.druid.jackson.DefaultObjectMapper;
import org.apache.druid.query.lookup.LookupExtractor;
import org.apache.druid.query.lookup.LookupExtractorFactory;

/**
 * Child JVM main: loads the built extension folder in its own class loader, as Druid loads extensions (the class path
 * holds Druid but neither reader-lib nor Chronicle), reads a sharedLookup spec with Druid's ObjectMapper, and resolves
 * keys. Arguments: extensionDir storeDir namespace keys...
 */
public final class ExtensionFolderMain {
    public static void main(String[] args) throws Exception {
        System.out.println("JDK_COMPILER_PRESENT="
                + ModuleLayer.boot().findModule("jdk.compiler").isPresent());
        List<Path> jars;
        try (var files = Files.list(Path.of(args[0]))) {
            jars = files.filter(p -> p.toString().endsWith(".jar")).toList();
        }
        URL[] urls = new URL[jars.size()];
        for (int i = 0; i < urls.length; i++) {
            urls[i] = jars.get(i).toUri().toURL();
        }
        URLClassLoader extensionLoader =
                new URLClassLoader("druid-shared-lookup", urls, ExtensionFolderMain.class.getClassLoader());
        System.out.println("READER_LIB_ON_CLASS_PATH=" + visible("io.sharedlookup.reader.SharedLookupStore"));

        ObjectMapper mapper = new DefaultObjectMapper();
        InjectableValues.Std injectables = new InjectableValues.Std();
        for (DruidModule module : ServiceLoader.load(DruidModule.class, extensionLoader)) {
            module.getJacksonModules().forEach(mapper::registerModule);
            System.out.println("MODULE " + module.getClass().getName() + " loader="
                    + module.getClass().getClassLoader().getName());
        }
        Class<?> config = extensionLoader.loadClass("io.sharedlookup.druid.SharedLookupConfig");
        injectables.addValue(config, config.getConstructor().newInstance());
        mapper.setInjectableValues(injectables);

        LookupExtractorFactory factory = mapper.readValue(
                "{\"type\": \"sharedLookup\", \"namespace\": \"" + args[2] + "\", \"storeDir\": \"" + args[1] + "\"}",
                LookupExtractorFactory.class);
        if (!factory.start()) {
            throw new IllegalStateException("factory did not start");
        }
        factory.awaitInitialization();
        LookupExtractor extractor = factory.get();
        for (int i = 3; i < args.length; i++) {
            System.out.println("APPLY " + args[i] + "=" + extractor.apply(args[i]));
        }
        factory.close();
        System.out.println("DONE");
    }

    private static boolean visible(String className) {
        try {
            Class.forName(className, false, ExtensionFolderMain.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }
}
