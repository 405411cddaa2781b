/**
 * <b>Test kit</b> (public, for driver authors; evolves with the rules): the relock compatibility
 * kit. A driver certifies itself by extending {@link io.github.relock.tck.DriverTck} (the driver
 * contract); {@link io.github.relock.tck.EngineSpec} holds the engine's chapters and
 * {@link io.github.relock.tck.RelockTck} both. Chapters are abstract JUnit classes whose tests are
 * named after numbered rules. Also the real-Redis fixture
 * ({@link io.github.relock.tck.RedisFixture}, {@link io.github.relock.tck.RedisServer},
 * {@link io.github.relock.tck.RespClient}) and the {@link io.github.relock.tck.FaultInjectingDriver}.
 */
package io.github.relock.tck;
