/**
 * relock's public API: lock interfaces, options and exceptions. Applications compile against this
 * module only; the engine ({@code io.github.relock.core}) and a driver are runtime choices.
 */
module io.github.relock.api {
    exports io.github.relock.api;
}
