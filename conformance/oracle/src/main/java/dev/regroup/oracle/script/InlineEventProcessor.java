package dev.regroup.oracle.script;

import org.apache.kafka.coordinator.common.runtime.CoordinatorEvent;
import org.apache.kafka.coordinator.common.runtime.CoordinatorEventProcessor;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Runs the coordinator runtime's events on the caller's thread. Events enqueued while one runs (flushes,
 * high-watermark updates, timer operations) join the queue and run, in queue order, before the outermost
 * enqueue returns, so one script step ends with the runtime idle. This replaces Kafka's
 * MultiThreadedEventProcessor, whose threads would make the order of steps depend on scheduling.
 */
public final class InlineEventProcessor implements CoordinatorEventProcessor {
    private final Deque<CoordinatorEvent> queue = new ArrayDeque<>();
    private boolean running;
    private boolean closed;

    @Override
    public void enqueueLast(CoordinatorEvent event) {
        queue.addLast(event);
        drain();
    }

    @Override
    public void enqueueFirst(CoordinatorEvent event) {
        queue.addFirst(event);
        drain();
    }

    private void drain() {
        if (running || closed) return;
        running = true;
        try {
            while (!queue.isEmpty()) {
                CoordinatorEvent event = queue.pollFirst();
                try {
                    event.run();
                } catch (Throwable t) {
                    // What MultiThreadedEventProcessor does with an event that throws: fail it.
                    event.complete(t);
                }
            }
        } finally {
            running = false;
        }
    }

    @Override
    public void close() {
        closed = true;
        queue.clear();
    }
}
