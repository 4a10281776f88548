package io.sharedlookup.writer.tools;

import io.sharedlookup.internal.store.ContentDigest;
import io.sharedlookup.internal.store.Manifest;
import io.sharedlookup.internal.store.NamespaceNames;
import io.sharedlookup.internal.store.StoreLayout;
import io.sharedlookup.reader.Lookup;
import io.sharedlookup.reader.SharedLookupException;
import io.sharedlookup.reader.SharedLookupStore;
import io.sharedlookup.writer.WriterVersion;
import io.sharedlookup.writer.store.Snapshots;
import io.sharedlookup.writer.store.StorePermissions;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * The writer jar's operator commands: {@code java -jar shared-lookup-writer.jar inspect|get|dump|verify|diff|snapshot
 * …}. Each reads the store through reader-lib (read-only mappings, no lock, no JVM flag), so it can run beside a live
 * writer; {@code snapshot} also writes its copy through the writer's store code.
 * Exit codes: 0 success (found, equal), 1 a negative answer (absent, digests differ, stores differ), 2 bad arguments or
 * an unreadable store, each with one line on stderr saying what is wrong.
 */
@Command(
        name = "shared-lookup-writer",
        mixinStandardHelpOptions = true,
        versionProvider = WriterVersion.class,
        scope = CommandLine.ScopeType.INHERIT, // each command's --version prints the jar's too
        description = "Operator commands: they read a store directory and never change it.",
        subcommands = {
            StoreTools.Inspect.class,
            StoreTools.Get.class,
            StoreTools.Dump.class,
            StoreTools.Verify.class,
            StoreTools.Diff.class,
            StoreTools.Snapshot.class
        })
public final class StoreTools {
    /** The command names, so the writer's main can tell a command from its own options. */
    public static final Set<String> COMMANDS = Set.of("inspect", "get", "dump", "verify", "diff", "snapshot");

    private StoreTools() {}

    /**
     * The commands by name, in the order the writer's {@code --help} lists them; the first line of each one's
     * description is its one-line summary there.
     */
    public static Map<String, CommandLine> commands() {
        return new CommandLine(new StoreTools()).getSubcommands();
    }

    /** Runs one command; returns its exit code. */
    public static int run(String[] args, PrintWriter out, PrintWriter err) {
        CommandLine cli = new CommandLine(new StoreTools());
        cli.setOut(out);
        cli.setErr(err);
        cli.setParameterExceptionHandler((e, a) -> {
            err.println("error: " + e.getMessage() + " (run '"
                    + e.getCommandLine().getCommandName() + " --help' for usage)");
            return 2;
        });
        cli.setExecutionExceptionHandler((e, commandLine, parsed) -> {
            err.println("error: "
                    + (e instanceof ToolException || e instanceof SharedLookupException
                            ? e.getMessage()
                            : e.toString()));
            return 2;
        });
        int rc = cli.execute(args);
        out.flush();
        err.flush();
        return rc;
    }

    /** A bad argument or an unreadable store: one line on stderr, exit code 2. */
    static final class ToolException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        ToolException(String message) {
            super(message);
        }
    }

    static Path existingStore(Path store) {
        if (!Files.isDirectory(store)) {
            throw new ToolException("Store directory " + store + " does not exist or is not a directory: pass the "
                    + "writer's --store-dir");
        }
        requireReadable(store, "Store directory ");
        StoreLayout.namespaceGivenAsStore(store).ifPresent(wrongLevel -> {
            throw new ToolException(wrongLevel);
        });
        return store;
    }

    /**
     * Said as such, not as a missing namespace or a raw AccessDeniedException, which is what a newcomer met. A
     * directory needs read and search permission, a file read permission.
     */
    private static void requireReadable(Path path, String what) {
        if (!readable(path)) {
            throw new ToolException(what + path + " is not readable by this user: run the command as a user in the "
                    + "writer's group (store files and directories are group-readable)");
        }
    }

    /** Whether this user can read {@code path}: a file's bytes, or a directory's entries and what they name. */
    static boolean readable(Path path) {
        return Files.isReadable(path) && (!Files.isDirectory(path) || Files.isExecutable(path));
    }

    /** An I/O failure in one line: an {@code AccessDeniedException} and its kin say no more than a path. */
    static String describe(IOException e) {
        if (e instanceof AccessDeniedException denied) {
            return denied.getFile() + ": permission denied";
        }
        if (e instanceof NoSuchFileException missing) {
            return missing.getFile() + ": no such file or directory";
        }
        if (e instanceof FileSystemException fs && fs.getReason() == null) {
            String kind = e instanceof FileAlreadyExistsException
                    ? "already exists"
                    : e instanceof DirectoryNotEmptyException
                            ? "directory not empty"
                            : e instanceof NotDirectoryException
                                    ? "not a directory"
                                    : "cannot be used (" + e.getClass().getSimpleName() + ")";
            return fs.getMessage() + ": " + kind;
        }
        return e.getMessage() != null ? e.getMessage() : e.toString();
    }

    static String validNamespace(Path store, String namespace) {
        if (!NamespaceNames.isValid(namespace)) {
            throw new ToolException("'" + namespace + "' is not a namespace name ([A-Za-z0-9._-]{1,200})");
        }
        StoreLayout layout = new StoreLayout(store);
        if (Files.isDirectory(layout.namespaceDir(namespace))) {
            requireReadable(layout.namespaceDir(namespace), "Namespace directory ");
        }
        if (!Files.isRegularFile(layout.manifest(namespace), LinkOption.NOFOLLOW_LINKS)) {
            throw new ToolException("No namespace '" + namespace + "' in " + store + " (no manifest; 'inspect " + store
                    + "' lists the namespaces)");
        }
        requireReadable(layout.manifest(namespace), "Manifest ");
        return namespace;
    }

    static Manifest manifest(Path store, String namespace) {
        Path file = new StoreLayout(store).manifest(namespace);
        try {
            return Manifest.read(file);
        } catch (NoSuchFileException e) {
            throw new ToolException("No namespace '" + namespace + "' in " + store);
        } catch (IOException e) {
            if (e instanceof AccessDeniedException) { // the same words as every other command
                requireReadable(file.getParent(), "Namespace directory ");
                requireReadable(file, "Manifest ");
            }
            throw new ToolException("Cannot read the manifest of '" + namespace + "' in " + store + ": " + describe(e));
        } catch (RuntimeException e) {
            throw new ToolException(
                    "Cannot read the manifest of '" + namespace + "' in " + store + ": " + e.getMessage());
        }
    }

    /** Opens {@code namespace} of {@code store} for reading, with one-line errors. */
    static Opened open(Path store, String namespace) {
        validNamespace(existingStore(store), namespace);
        SharedLookupStore s = SharedLookupStore.open(store);
        try {
            return new Opened(s, s.lookup(namespace));
        } catch (RuntimeException e) {
            s.close();
            throw e;
        }
    }

    /** A store and one of its namespaces, closed together. */
    record Opened(SharedLookupStore store, Lookup lookup) implements AutoCloseable {
        @Override
        public void close() {
            store.close();
        }
    }

    /** A command on one namespace of one store: {@code STORE NAMESPACE [more]}. */
    abstract static class NamespaceCommand implements Callable<Integer> {
        @Spec
        CommandLine.Model.CommandSpec spec;

        @Parameters(index = "0", paramLabel = "STORE", description = "The store directory (the writer's --store-dir).")
        Path store;

        @Parameters(index = "1", paramLabel = "NAMESPACE")
        String namespace;

        PrintWriter out() {
            return spec.commandLine().getOut();
        }

        PrintWriter err() {
            return spec.commandLine().getErr();
        }
    }

    @Command(
            name = "inspect",
            mixinStandardHelpOptions = true,
            description = {
                "Every namespace: generation, entries, fill, offsets, digest.",
                "Also its files, writer state, topic, freshness as a reader sees it, attributes and the last skipped "
                        + "records."
            })
    static final class Inspect implements Callable<Integer> {
        @Spec
        CommandLine.Model.CommandSpec spec;

        @Parameters(index = "0", paramLabel = "STORE", description = "The store directory (the writer's --store-dir).")
        Path store;

        @Override
        public Integer call() throws IOException {
            PrintWriter out = spec.commandLine().getOut();
            List<String> namespaces = Inspection.namespaces(existingStore(store));
            if (namespaces.isEmpty()) {
                out.println("No namespaces in " + store);
                return 0;
            }
            try (SharedLookupStore reader = SharedLookupStore.open(store)) {
                for (String ns : namespaces) {
                    Inspection.describe(store, reader, ns, out);
                }
            }
            return 0;
        }
    }

    @Command(
            name = "get",
            mixinStandardHelpOptions = true,
            description = "The value of KEY in NAMESPACE; exit code 1 when absent.")
    static final class Get extends NamespaceCommand {
        @Parameters(index = "2", paramLabel = "KEY")
        String key;

        @Override
        public Integer call() {
            try (Opened o = open(store, namespace)) {
                String value = o.lookup().get(key);
                if (value == null) {
                    err().println("'" + key + "' is not in namespace '" + namespace + "'");
                    return 1;
                }
                out().println(value);
                return 0;
            }
        }
    }

    @Command(
            name = "dump",
            mixinStandardHelpOptions = true,
            description = {
                "Every entry of NAMESPACE as TSV: key, tab, value.",
                "Streaming, in no particular order; \\t \\n \\r \\\\ escaped."
            })
    static final class Dump extends NamespaceCommand {
        @Override
        public Integer call() {
            PrintWriter out = out();
            try (Opened o = open(store, namespace)) {
                o.lookup()
                        .forEach((k, v) -> out.append(Tsv.escape(k))
                                .append('\t')
                                .append(Tsv.escape(v))
                                .append('\n'));
            }
            return 0;
        }
    }

    @Command(
            name = "verify",
            mixinStandardHelpOptions = true,
            description = {
                "Checks entries against the published digest; exit 1 if not.",
                "Recomputes the content digest from the entries and compares it with the one the writer published "
                        + "with its offsets; exit code 0 when equal, 1 when not. Run it when the topic is idle: "
                        + "updates applied after the writer's last checkpoint differ from the published digest until "
                        + "the next one."
            })
    static final class Verify extends NamespaceCommand {
        @Override
        public Integer call() {
            try (Opened o = open(store, namespace)) {
                return Digests.verify(store, namespace, o.lookup(), out(), err());
            }
        }
    }

    @Command(
            name = "snapshot",
            mixinStandardHelpOptions = true,
            description = {
                "Copies NAMESPACE into OUT, for a new host's --seed.",
                "Writes a snapshot into OUT (a new or empty directory) while the writer runs: a copy of its entries "
                        + "with the offsets its manifest had before the copy and the copy's digest. A writer started "
                        + "with --seed OUT on a host whose store lacks the namespace resumes from it instead of "
                        + "replaying the topic."
            })
    static final class Snapshot extends NamespaceCommand {
        @Parameters(index = "2", paramLabel = "OUT")
        Path out;

        @Override
        public Integer call() throws IOException {
            validNamespace(existingStore(store), namespace);
            Snapshots.Taken taken;
            try {
                taken = Snapshots.take(store, namespace, out, StorePermissions.DEFAULT);
            } catch (IOException e) {
                throw new ToolException("Cannot take the snapshot: " + describe(e));
            }
            out().println("snapshot of '" + namespace + "': " + taken.entries() + " entries at "
                    + "offsets " + taken.manifest().offsets() + ", digest " + ContentDigest.hex(taken.digest())
                    + ", in " + taken.dir() + "; a new host's writer starts from it with --seed " + out);
            return 0;
        }
    }

    @Command(
            name = "diff",
            mixinStandardHelpOptions = true,
            description = {
                "Keys whose values differ between two stores; exit 1 if any.",
                "As TSV (key, value in A, value in B, then 'differs', 'only-in-a' or 'only-in-b'), without copying "
                        + "either store onto the heap; exit code 0 when none differ, 1 otherwise."
            })
    static final class Diff implements Callable<Integer> {
        @Spec
        CommandLine.Model.CommandSpec spec;

        @Parameters(index = "0", paramLabel = "STORE_A")
        Path storeA;

        @Parameters(index = "1", paramLabel = "STORE_B")
        Path storeB;

        @Parameters(index = "2", paramLabel = "NAMESPACE")
        String namespace;

        @Override
        public Integer call() {
            try (Opened a = open(storeA, namespace);
                    Opened b = open(storeB, namespace)) {
                long differing =
                        Digests.diff(a.lookup(), b.lookup(), spec.commandLine().getOut());
                spec.commandLine().getErr().println(differing + " key(s) differ");
                return differing == 0 ? 0 : 1;
            }
        }
    }
}
