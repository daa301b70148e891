package dev.regroup.oracle.script;

import org.apache.kafka.common.utils.Time;

/**
 * The script's clock. Kafka's coordinator reads time only through {@link Time}; here it moves only when the
 * script runner sets it (to a line's {@code at}, or to a timer's deadline while that timer runs).
 */
public final class SimTime implements Time {
    private long nowMs;

    public void set(long ms) {
        if (ms < nowMs) throw new IllegalStateException("time cannot go back from " + nowMs + " to " + ms);
        nowMs = ms;
    }

    @Override
    public long milliseconds() {
        return nowMs;
    }

    @Override
    public long nanoseconds() {
        return nowMs * 1_000_000L;
    }

    @Override
    public void sleep(long ms) {
        // Nothing in the coordinator sleeps on a single-threaded run; advancing time here would move the
        // script's clock behind the runner's back.
        throw new UnsupportedOperationException("the simulated clock cannot sleep");
    }
}
