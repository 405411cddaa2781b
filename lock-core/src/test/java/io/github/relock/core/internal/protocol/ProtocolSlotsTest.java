package io.github.relock.core.internal.protocol;

import static io.github.relock.core.internal.protocol.ReentrantProtocolTest.SHARDED_CLUSTER;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.relock.core.internal.protocol.ReentrantProtocol.Variant;
import io.github.relock.spi.Slots;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** On a cluster a call goes to the node of its first key: every key of every call must share the lock name's slot. */
class ProtocolSlotsTest {

    static Stream<String> names() {
        return Stream.of("orders", "orders:{42}", "{user1000}.following", "a{b}c{d}");
    }

    private static List<LockProtocol> protocols(String name) {
        List<LockProtocol> all = new ArrayList<>();
        for (Variant v : Variant.values()) {
            all.add(new ReentrantProtocol(SHARDED_CLUSTER, name, v));
        }
        all.add(new FairProtocol(SHARDED_CLUSTER, name, true));
        all.add(new FairProtocol(SHARDED_CLUSTER, name, false));
        all.add(ReadWriteProtocol.read(SHARDED_CLUSTER, name));
        all.add(ReadWriteProtocol.write(SHARDED_CLUSTER, name));
        return all;
    }

    private static List<Call<?>> calls(LockProtocol p) {
        String field = p.ownerField("client", 1);
        List<Call<?>> calls = new ArrayList<>();
        for (AttemptMode mode : AttemptMode.values()) {
            calls.add(p.acquire(field, 30_000, mode));
        }
        calls.add(p.release(field, 30_000, null));
        calls.add(p.release(field, 30_000, new Candidate(p.ownerField("client", 2), 30_000)));
        calls.add(p.forceRelease());
        calls.add(p.expire(field, 30_000));
        calls.add(p.state(field));
        Call<Void> giveUp = p.giveUp(field);
        if (giveUp != null) {
            calls.add(giveUp);
        }
        return calls;
    }

    @ParameterizedTest
    @MethodSource("names")
    void everyCall_anyProtocol_keepsAllKeysAndChannelsInTheNamesSlot(String name) {
        int slot = Slots.slot(name);
        for (LockProtocol p : protocols(name)) {
            for (Call<?> c : calls(p)) {
                for (String key : c.keys()) {
                    assertEquals(slot, Slots.slot(key), p.kind() + " " + c.script().name() + " key " + key);
                }
            }
            String channel = p.waitChannel(p.ownerField("client", 1));
            if (channel != null) {
                assertEquals(slot, Slots.slot(channel), p.kind() + " channel " + channel);
            }
        }
    }
}
