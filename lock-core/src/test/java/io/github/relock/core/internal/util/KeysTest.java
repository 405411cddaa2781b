package io.github.relock.core.internal.util;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.relock.spi.Slots;
import org.junit.jupiter.api.Test;

/**
 * Key, channel and field names (spec 1.3/1.4). The one rule: a name that contains '{' anywhere is
 * used as it is; any other name is wrapped in braces, so every derived key shares the lock's slot.
 * Building names checks nothing, as in Redisson; on a cluster, requireOneSlot refuses a name whose
 * derived keys would not share its slot.
 */
class KeysTest {

    @Test
    void prefixName_nameWithoutBrace_wrapsTheNameInBraces() {
        assertEquals("redisson_lock_queue:{orders}", Keys.prefixName("redisson_lock_queue", "orders"));
        assertEquals("redisson_lock_timeout:{a:b}", Keys.prefixName("redisson_lock_timeout", "a:b"));
    }

    @Test
    void prefixName_closingBraceAlone_isNotTheRule_nameStillWrapped() {
        assertEquals("p:{a}b}", Keys.prefixName("p", "a}b"));
    }

    @Test
    void prefixName_nameWithHashTag_keptAsIs() {
        assertEquals("redisson_lock_queue:{tenant}:orders", Keys.prefixName("redisson_lock_queue", "{tenant}:orders"));
        assertEquals("redisson_lock_queue:a{b}c", Keys.prefixName("redisson_lock_queue", "a{b}c"));
    }

    @Test
    void prefixName_braceWithoutValidTag_stillKeptAsIs_theOnlyTestIsTheBrace() {
        assertEquals("redisson_lock_queue:odd{", Keys.prefixName("redisson_lock_queue", "odd{"));
        assertEquals("p:a{b", Keys.prefixName("p", "a{b"));
        assertEquals("p:{}", Keys.prefixName("p", "{}"));
        assertEquals("p:}{", Keys.prefixName("p", "}{"));
    }

    @Test
    void suffixName_followsTheSameBraceRule() {
        assertEquals("{orders}:suffix", Keys.suffixName("orders", "suffix"));
        assertEquals("{t}:orders:suffix", Keys.suffixName("{t}:orders", "suffix"));
        assertEquals("odd{:suffix", Keys.suffixName("odd{", "suffix"));
    }

    @Test
    void lockChannel_isTheTwoUnderscoreChannelPrefix_withTheBraceRule() {
        assertEquals("redisson_lock__channel", Keys.LOCK_CHANNEL_PREFIX);
        assertEquals("redisson_lock__channel:{orders}", Keys.lockChannel("orders"));
        assertEquals("redisson_lock__channel:{foo}:bar", Keys.lockChannel("{foo}:bar")); // spec 1.4's example
        assertEquals("redisson_lock__channel:odd{", Keys.lockChannel("odd{"));
    }

    @Test
    void derivedKeys_plainName_shareTheLockKeysSlot() {
        // CLUSTER KEYSLOT on redis-server 7.0.15: orders, and all three derived names, are in slot 105.
        assertEquals(105, Slots.slot("orders"));
        assertEquals(105, Slots.slot(Keys.lockChannel("orders")));
        assertEquals(105, Slots.slot(Keys.prefixName("redisson_lock_queue", "orders")));
        assertEquals(105, Slots.slot(Keys.prefixName("redisson_lock_timeout", "orders")));
    }

    @Test
    void derivedKeys_nameWithHashTag_shareTheTagsSlot() {
        // CLUSTER KEYSLOT: {tenant}:orders, tenant and redisson_lock_queue:{tenant}:orders are all 14419.
        assertEquals(14419, Slots.slot("{tenant}:orders"));
        assertEquals(14419, Slots.slot(Keys.prefixName("redisson_lock_queue", "{tenant}:orders")));
        assertEquals(14419, Slots.slot(Keys.lockChannel("{tenant}:orders")));
    }

    @Test
    void derivedKeys_braceWithoutTag_mayLeaveTheLockKeysSlot_asRedissonsDo() {
        // Spec 1.3: reproduce the rule, don't fix it. CLUSTER KEYSLOT: odd{ is 645,
        // redisson_lock__channel:odd{ is 10718, redisson_lock_queue:odd{ is 1848.
        assertEquals(645, Slots.slot("odd{"));
        assertEquals(10718, Slots.slot(Keys.lockChannel("odd{")));
        assertEquals(1848, Slots.slot(Keys.prefixName("redisson_lock_queue", "odd{")));
        assertNotEquals(Slots.slot("odd{"), Slots.slot(Keys.lockChannel("odd{")));
    }

    @Test
    void ownerField_isClientIdColonSignedDecimalThreadId() {
        assertEquals("c1:42", Keys.ownerField("c1", 42));
        assertEquals("c1:-7", Keys.ownerField("c1", -7));
        assertEquals("c1:0", Keys.ownerField("c1", 0));
        assertEquals("c1:9223372036854775807", Keys.ownerField("c1", Long.MAX_VALUE));
        assertEquals("c1:-9223372036854775808", Keys.ownerField("c1", Long.MIN_VALUE));
        assertEquals("3f2b7a1e-0c4d-4e5f-8a9b-1c2d3e4f5a6b:1",
                Keys.ownerField("3f2b7a1e-0c4d-4e5f-8a9b-1c2d3e4f5a6b", 1));
    }

    @Test
    void requireOneSlot_noBraceOrCompleteTag_accepted() {
        for (String name : new String[] {"orders", "a:b c", "{tenant}:orders", "a{b}c", "a{b}}", "a}b{c}"}) {
            Keys.requireOneSlot(name);
        }
    }

    @Test
    void requireOneSlot_braceWithoutCompleteTag_rejectedNamingTheSlotsAndTheFix() {
        for (String name : new String[] {"{", "a{}b", "a}b", "a}{"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Keys.requireOneSlot(name), name);
            assertTrue(e.getMessage().contains("'" + name + "' cannot be used on a Redis Cluster")
                    && e.getMessage().contains("CROSSSLOT") && e.getMessage().contains("complete hash tag"), e.getMessage());
        }
    }
}
