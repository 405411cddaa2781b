/**
 * <b>Test kit</b> (public, for driver authors; evolves with the rules): the relock compatibility
 * kit. A driver certifies itself by extending {@link io.github.relock.tck.DriverTck} (the driver
 * contract); {@link io.github.relock.tck.EngineSpec} holds the engine's chapters and
 * {@link io.github.relock.tck.RelockTck} both. Chapters are abstract JUnit classes whose tests are
 * named after numbered rules. Also the {@link io.github.relock.tck.FaultInjectingDriver}. The
 * real Redis they run on is in {@code io.github.relock.tck.fixtures} (artifact
 * {@code relock-tck-fixtures}).
 */
package io.github.relock.tck;
