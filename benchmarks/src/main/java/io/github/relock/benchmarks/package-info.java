/**
 * <b>Tool</b> (not a library; not published for use): JMH benchmarks comparing relock on each
 * driver with Redisson and with a raw {@code EVALSHA} floor, and the report that writes
 * {@code benchmarks/RESULTS.md}.
 */
package io.github.relock.benchmarks;
