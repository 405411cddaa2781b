package io.github.relock.examples.testing;

/** What the guide's tests need that the guide leaves out: this repository's runs against {@code REDIS_URL}. */
final class GuideTests {
    static final String WHY_SKIPPED = "REDIS_URL is set: this machine may have no embedded redis-server to start";

    private GuideTests() {
    }

    /** @return false when the build runs against {@code REDIS_URL}, where no embedded server may start */
    static boolean embeddedAllowed() {
        String url = System.getenv("REDIS_URL");
        return url == null || url.isBlank();
    }
}
