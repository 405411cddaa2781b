/**
 * relock's reference driver: the SPI ({@code io.github.relock.spi}) implemented over a plain socket
 * and RESP2, certified by the driver contract kit ({@code RespDriverTckTest}). Start at
 * {@link com.example.resp.RespDriverProvider}; {@code docs/guide/writing-a-driver.md} walks
 * through the files.
 */
package com.example.resp;
