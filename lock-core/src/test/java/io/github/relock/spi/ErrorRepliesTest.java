package io.github.relock.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.github.relock.api.RedisErrorException;
import io.github.relock.api.RedisUnavailableException;
import org.junit.jupiter.api.Test;

/** How a script's error reads on Redis 6.2, which wraps the error of the command the script called. */
class ErrorRepliesTest {

    @Test
    void redis62ScriptErrorWrappingACommandsError_hasTheWrappedCode() {
        RedisErrorException e = assertInstanceOf(RedisErrorException.class, ErrorReplies.toException(
                "ERR Error running script (call to f_dd20701f685db3a61e44477b8c4867b08a0a0d15): @user_script:2:"
                        + " WRONGTYPE Operation against a key holding the wrong kind of value", "EVALSHA x", null));
        assertEquals("WRONGTYPE", e.errorCode(), "what Redis 7 reports for the same script");
    }

    @Test
    void redis62ScriptCallingAReadOnlyReplica_isUnavailable_asOnRedis7() {
        assertInstanceOf(RedisUnavailableException.class, ErrorReplies.toException(
                "ERR Error running script (call to f_1): @user_script:1: READONLY You can't write against a read only"
                        + " replica.", "EVALSHA lock-acquire", null));
    }

    @Test
    void luaErrorOfTheScriptItself_staysErr() {
        RedisErrorException e = assertInstanceOf(RedisErrorException.class, ErrorReplies.toException(
                "ERR Error running script (call to f_1): @user_script:5: user_script:5: bad argument", "EVAL x", null));
        assertEquals("ERR", e.errorCode());
    }
}
