package io.sharedlookup.writer;

import picocli.CommandLine.IVersionProvider;

/** What {@code --version} prints, for the writer and each operator command alike: the jar's version. */
public final class WriterVersion implements IVersionProvider {
    @Override
    public String[] getVersion() {
        String v = WriterVersion.class.getPackage().getImplementationVersion();
        return new String[] {"shared-lookup-writer " + (v == null ? "(development build)" : v)};
    }
}
