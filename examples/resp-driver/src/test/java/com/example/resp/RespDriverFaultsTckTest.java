package com.example.resp;

import io.github.relock.tck.RuleSlice;

/**
 * {@link RespDriverTckTest}'s fault and liveness chapters (18 and 21, about half of the kit's time
 * on this driver), in a test JVM of their own so that the two halves run side by side; that class
 * runs every other chapter.
 */
@RuleSlice(value = {"faults", "liveness"}, elsewhere = "RespDriverTckTest runs them")
class RespDriverFaultsTckTest extends RespDriverTckTest {
}
