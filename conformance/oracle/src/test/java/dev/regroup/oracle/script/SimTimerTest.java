package dev.regroup.oracle.script;

import org.apache.kafka.server.util.timer.TimerTask;
import org.apache.kafka.server.util.timer.TimerTaskEntry;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

class SimTimerTest {
    private static TimerTask task(long delay, String name, List<String> ran) {
        return new TimerTask(delay) {
            @Override
            public void run() {
                ran.add(name);
            }
        };
    }

    @Test
    void firesByDeadlineThenSchedulingOrderAndSkipsCancelledTasks() {
        SimTime time = new SimTime();
        SimTimer timer = new SimTimer(time);
        List<String> ran = new ArrayList<>();
        timer.add(task(20, "b", ran));
        timer.add(task(10, "a", ran));
        TimerTask cancelled = task(15, "x", ran);
        timer.add(cancelled);
        timer.add(task(20, "c", ran));
        cancelled.cancel();
        assertEquals(3, timer.size());
        assertNull(timer.pollDue(9));
        TimerTaskEntry e;
        while ((e = timer.pollDue(20)) != null) e.timerTask.run();
        assertEquals(List.of("a", "b", "c"), ran);
    }
}
