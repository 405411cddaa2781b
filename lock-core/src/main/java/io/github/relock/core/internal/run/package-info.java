/**
 * Sending calls: {@code ScriptRunner} runs a {@code protocol.Call} blocking or not (the blocking and
 * async paths of the engine are two runners of one call), owns the NOSCRIPT fallback and, with
 * replica sync, pipelines lock writes with WAIT; a write too few replicas acknowledged throws
 * {@code ReplicaShortfall} carrying its outcome on the master.
 */
package io.github.relock.core.internal.run;
