package sample;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The sample's test, run unchanged (after the migration) on Redisson and on relock: every
 * acquisition style excludes the others, the multi-lock moves stock without losing any, the
 * semaphore admits at most two, the latch opens. Throws AssertionError on the first difference.
 */
public final class InventoryCheck {
    private InventoryCheck() {
    }

    public static void run(Inventory inventory) throws Exception {
        require(inventory.clientId() != null && !inventory.clientId().isEmpty(), "a client id");
        int threads = 4;
        int rounds = 40;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> work = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int style = t;
                work.add(pool.submit(() -> {
                    for (int i = 0; i < rounds; i++) {
                        switch ((style + i) % 4) {
                            case 0 -> inventory.add("apples");
                            case 1 -> require(inventory.tryAdd("apples"), "tryAdd within 10 s");
                            case 2 -> inventory.addAsync("apples").join();
                            default -> inventory.addReactive("apples").block();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : work) {
                f.get();
            }
            require(inventory.count("apples") == threads * rounds,
                    "apples " + inventory.count("apples") + ", expected " + threads * rounds + " (a lost update)");

            work.clear();
            for (int t = 0; t < threads; t++) {
                work.add(pool.submit(() -> {
                    for (int i = 0; i < 10; i++) {
                        inventory.move("apples", "pears");
                        inventory.pack("pears");
                    }
                    return null;
                }));
            }
            for (Future<?> f : work) {
                f.get();
            }
            require(inventory.count("apples") == threads * rounds - threads * 10
                    && inventory.count("pears") == threads * 10,
                    "apples " + inventory.count("apples") + " pears " + inventory.count("pears") + " after the moves");
            require(inventory.mostPackersAtOnce() <= 2 && inventory.mostPackersAtOnce() >= 1,
                    inventory.mostPackersAtOnce() + " packers at once, the semaphore allows 2");
            require(inventory.shipAndAwait(3), "the latch opened");
        } finally {
            pool.shutdownNow();
        }
    }

    private static void require(boolean condition, String what) {
        if (!condition) {
            throw new AssertionError(what);
        }
    }
}
