import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Build step (run by exec-maven-plugin with the source launcher): writes the Java source of the classes Chronicle Map
 * would otherwise generate and compile with javac when a map is first opened. Compiled into the writer, they let it run
 * on a JVM without the jdk.compiler module (its JRE image). Readers need none of this: they never run Chronicle. Chronicle's generator is
 * package-private, hence the reflection.
 *
 * <p>Arguments: output source directory, then fully qualified value interfaces to generate a native class for.
 */
public class GenerateChronicleNativeClasses {
    public static void main(String[] args) throws Exception {
        Path out = Path.of(args[0]);
        Class<?> valueModelClass = Class.forName("net.openhft.chronicle.values.ValueModel");
        Method acquire = valueModelClass.getMethod("acquire", Class.class);
        Class<?> generators = Class.forName("net.openhft.chronicle.values.Generators");
        Method generateNative = generators.getDeclaredMethod("generateNativeClass", valueModelClass, String.class);
        generateNative.setAccessible(true);
        for (int i = 1; i < args.length; i++) {
            Class<?> type = Class.forName(args[i]);
            String simpleName = type.getSimpleName() + "$$Native";
            String source = suppressRawTypes((String) generateNative.invoke(null, acquire.invoke(null, type), simpleName));
            Path file = out.resolve(type.getPackageName().replace('.', '/')).resolve(simpleName + ".java");
            Files.createDirectories(file.getParent());
            Files.writeString(file, source, StandardCharsets.UTF_8); // silently: a build with -q prints nothing
        }
    }

    /**
     * Chronicle's generator writes raw {@code BytesStore}, {@code BytesIn} and {@code BytesOut}; the build compiles with
     * -Xlint:all -Werror, and the source is theirs, so its class is marked to allow exactly that lint.
     */
    private static String suppressRawTypes(String source) {
        String declaration = "\npublic class ";
        if (!source.contains(declaration)) {
            throw new IllegalStateException("GenerateChronicleNativeClasses: the generated source has no top-level "
                    + "'public class' declaration to mark @SuppressWarnings(\"rawtypes\"); Chronicle's generator changed,"
                    + " adapt suppressRawTypes to its new output");
        }
        return source.replaceFirst(declaration, "\n@SuppressWarnings(\"rawtypes\")" + declaration);
    }
}
