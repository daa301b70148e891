package dev.regroup.oracle.script;

import org.apache.kafka.server.util.timer.Timer;
import org.apache.kafka.server.util.timer.TimerTask;
import org.apache.kafka.server.util.timer.TimerTaskEntry;

import java.util.Map;
import java.util.TreeMap;

/**
 * Kafka's system {@link Timer} over the simulated clock. Every task added (coordinator timers through
 * Kafka's own CoordinatorTimerImpl, the runtime's write timeouts) is kept by (deadline, order of adding);
 * the runner pops due tasks one at a time, so that a task may add or cancel others before the next one is
 * chosen. Tasks due at the same millisecond fire in the order they were scheduled, the rule regroup's
 * timers use.
 */
public final class SimTimer implements Timer {
    private record Slot(long deadlineMs, long seq) implements Comparable<Slot> {
        @Override
        public int compareTo(Slot o) {
            int c = Long.compare(deadlineMs, o.deadlineMs);
            return c != 0 ? c : Long.compare(seq, o.seq);
        }
    }

    private final SimTime time;
    private final TreeMap<Slot, TimerTaskEntry> queue = new TreeMap<>();
    private long nextSeq;

    public SimTimer(SimTime time) {
        this.time = time;
    }

    @Override
    public void add(TimerTask task) {
        // The entry registers itself with the task; cancelling the task detaches it, which is how a
        // cancelled task is recognised (and skipped) later.
        TimerTaskEntry entry = new TimerTaskEntry(task, time.milliseconds() + task.delayMs);
        queue.put(new Slot(entry.expirationMs, nextSeq++), entry);
    }

    /** The earliest live task due at or before {@code nowMs}, removed from the queue; null if none. */
    public TimerTaskEntry pollDue(long nowMs) {
        while (!queue.isEmpty()) {
            Map.Entry<Slot, TimerTaskEntry> first = queue.firstEntry();
            if (first.getValue().cancelled()) {
                queue.pollFirstEntry();
                continue;
            }
            if (first.getKey().deadlineMs() > nowMs) return null;
            queue.pollFirstEntry();
            return first.getValue();
        }
        return null;
    }

    @Override
    public boolean advanceClock(long timeoutMs) {
        // Time is driven by the runner (pollDue), never by a reaper thread.
        return false;
    }

    @Override
    public int size() {
        int n = 0;
        for (TimerTaskEntry e : queue.values()) if (!e.cancelled()) n++;
        return n;
    }

    @Override
    public void close() {
        queue.clear();
    }
}
