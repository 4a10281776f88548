package io.sharedlookup.writer.store;

import io.sharedlookup.internal.store.StringKeyHash;
import net.openhft.chronicle.algo.hashing.LongHashFunction;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.bytes.BytesUtil;
import net.openhft.chronicle.bytes.RandomDataInput;
import net.openhft.chronicle.hash.AbstractData;
import net.openhft.chronicle.hash.Data;
import net.openhft.chronicle.hash.serialization.DataAccess;
import net.openhft.chronicle.wire.WireIn;
import net.openhft.chronicle.wire.WireOut;

/**
 * How Chronicle Map sees the writer's keys: the same bytes as Chronicle's own {@code CharSequence} keys (per-char
 * UTF-8), hashed by {@link StringKeyHash} instead of XXH64 over those bytes, so that readers hash a {@code String}
 * key from the hash code it caches (store encoding {@code string-hash64}). Chronicle records this class in the file's
 * header and uses it for every key it hashes on the way in; files written before it keep Chronicle's own access, and
 * their published encoding says {@code xxh64}.
 *
 * <p>Chronicle hashes a stored key's bytes itself (with XXH64) only for entry checksums, which the writer's files do
 * not have, and to recover a damaged file, which the writer never does (it rebuilds from Kafka). Like Chronicle's own
 * accesses, an instance is used by one thread; Chronicle {@link #copy()}s it per thread.
 */
public final class StringHashKeyAccess extends AbstractData<CharSequence> implements DataAccess<CharSequence> {
    private static final int INITIAL_CAPACITY = 64;

    private transient Bytes<?> bytes;
    private transient CharSequence key;

    public StringHashKeyAccess() {
        bytes = Bytes.elasticHeapByteBuffer(INITIAL_CAPACITY);
    }

    @Override
    public Data<CharSequence> getData(CharSequence key) {
        this.key = key;
        bytes.clear();
        BytesUtil.appendUtf8(bytes, key);
        return this;
    }

    @Override
    public void uninit() {
        key = null;
    }

    @Override
    public DataAccess<CharSequence> copy() {
        return new StringHashKeyAccess();
    }

    @Override
    public long hash(LongHashFunction ignored) {
        return StringKeyHash.of(key);
    }

    @Override
    public RandomDataInput bytes() {
        return bytes.bytesStore();
    }

    @Override
    public long offset() {
        return 0;
    }

    @Override
    public long size() {
        return bytes.readRemaining();
    }

    @Override
    public CharSequence get() {
        return key;
    }

    @Override
    public CharSequence getUsing(CharSequence using) {
        StringBuilder sb = using instanceof StringBuilder b ? b : new StringBuilder(key.length());
        sb.setLength(0);
        return sb.append(key);
    }

    @Override
    public void readMarshallable(WireIn wire) {
        // no settings: recorded in the file's header by class name only
        bytes = Bytes.elasticHeapByteBuffer(INITIAL_CAPACITY);
    }

    @Override
    public void writeMarshallable(WireOut wire) {
        // no settings to record
    }
}
