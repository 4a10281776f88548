package io.sharedlookup.writer.store;

/**
 * No generation can be made to take an entry this large: its tiers would pass what readers map (a tier of
 * 1 GiB) or a sane share of the free disk. See {@link EntryRoom#refusal}.
 */
public final class NoRoomForEntryException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    NoRoomForEntryException(String message) {
        super(message);
    }
}
