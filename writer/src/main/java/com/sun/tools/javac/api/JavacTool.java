package com.sun.tools.javac.api;

import java.lang.reflect.Proxy;
import javax.tools.JavaCompiler;

/**
 * Stand-in for javac's entry point on JREs without the {@code jdk.compiler} module (Druid's and most slim application
 * images).
 *
 * <p>Why: Chronicle Map's code generator initialises {@code net.openhft.compiler.CompilerUtils}, whose static
 * initialiser looks this class up by name and calls {@code create()} when no system compiler exists, failing with
 * {@code ClassNotFoundException} on a JRE. reader-lib ships every class Chronicle would compile (generated at build
 * time), so the compiler is never used: this stand-in only lets that initialiser finish. Where the real
 * {@code jdk.compiler} module is present, its package wins and this class is never loaded.
 */
public final class JavacTool {
    private JavacTool() {}

    /** Returns a compiler whose every method explains that no compiler is available. */
    public static JavaCompiler create() {
        return (JavaCompiler) Proxy.newProxyInstance(
                JavacTool.class.getClassLoader(), new Class<?>[] {JavaCompiler.class}, (proxy, method, args) -> {
                    switch (method.getName()) {
                        case "toString":
                            return "shared-lookup JRE stand-in for javac";
                        case "hashCode":
                            return System.identityHashCode(proxy);
                        case "equals":
                            return proxy == args[0];
                        default:
                            throw new UnsupportedOperationException("No Java compiler on this JRE: shared-lookup "
                                    + "pre-generates Chronicle's classes, so this should not be needed; please report "
                                    + "which class Chronicle tried to compile");
                    }
                });
    }
}
