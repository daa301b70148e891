"""Helpers shared by the real-client checks: one line per check, bounded waits, and a consumer
driven by its own thread.

A failed check prints `FAIL name: detail`, then what every live consumer saw (its assignment,
generation and the errors it got), and exits 1. Checks never wait without a bound.
"""

import logging
import os
import queue
import sys
import threading
import time
import traceback

_consumers = []

# The client libraries' own logs go to the file CLIENT_LOG names (run.sh prints its tail when a
# check fails), at CLIENT_LOG_LEVEL (default INFO).
if os.environ.get("CLIENT_LOG"):
    logging.basicConfig(
        filename=os.environ["CLIENT_LOG"],
        level=os.environ.get("CLIENT_LOG_LEVEL", "INFO"),
        format="%(asctime)s %(threadName)s %(levelname)s %(name)s: %(message)s",
    )


def _dump():
    print("--- what the clients saw")
    for w in list(_consumers):
        print(f"  {w.describe()}")
    sys.stdout.flush()


def fail(name, detail):
    print(f"FAIL {name}: {detail}")
    _dump()
    sys.stdout.flush()
    # Consumer threads may be blocked inside a client library; leave without joining them.
    os._exit(1)


def check(name, cond, detail=""):
    if not cond:
        fail(name, detail() if callable(detail) else detail)
    print(f"ok   {name}")
    sys.stdout.flush()


def wait_until(name, cond, detail, seconds=30.0, step=0.1):
    """Checks that `cond()` becomes true within `seconds`."""
    deadline = time.monotonic() + seconds
    while True:
        for w in list(_consumers):
            if w.crashed is not None:
                fail(name, f"{w.name} crashed: {w.crashed}")
        if cond():
            break
        if time.monotonic() > deadline:
            fail(name, f"not within {seconds:.0f} s: " + str(detail() if callable(detail) else detail))
        time.sleep(step)
    print(f"ok   {name}")
    sys.stdout.flush()


def run(main):
    """Runs a check script's `main`; an unexpected exception fails like a check, with the state."""
    try:
        main()
    except SystemExit:
        raise
    except BaseException:
        fail("unexpected error", traceback.format_exc())
    sys.stdout.flush()
    # Client threads (kafka-python's heartbeat, librdkafka's) must not hold the exit.
    os._exit(0)


class Worker:
    """Owns one consumer and calls it only from its own thread (neither kafka-python nor aiokafka
    consumers may be shared between threads). Between polls it runs the jobs `call` queues.

    `adapter` tells how to drive the client: `poll(consumer)` makes progress and returns an error
    (or None), `assignment(consumer)` the owned partitions as a sorted list of (topic, partition),
    `generation(consumer)` the group generation if the client exposes it, and `close(consumer)`.
    """

    def __init__(self, name, make, adapter):
        self.name = name
        self.adapter = adapter
        self.assignment = []
        self.generation = None
        self.errors = []
        self.crashed = None
        self.closed = False
        self.rebalances = 0
        self._jobs = queue.Queue()
        self._stop = threading.Event()
        self._ready = threading.Event()
        self._make = make
        self.consumer = None
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        _consumers.append(self)
        self._thread.start()
        if not self._ready.wait(30):
            fail(f"{name} starts", "the consumer was not created within 30 s")

    def describe(self):
        state = "closed" if self.closed else "live"
        return (
            f"{self.name} ({state}): assignment={self.assignment} generation={self.generation} "
            f"rebalances={self.rebalances} errors={self.errors[-5:]} crashed={self.crashed}"
        )

    def on_rebalance(self):
        self.rebalances += 1

    def _run(self):
        try:
            self.consumer = self._make(self)
            self._ready.set()
            while not self._stop.is_set():
                try:
                    job, reply = self._jobs.get_nowait()
                except queue.Empty:
                    job = None
                if job is not None:
                    try:
                        reply.put((True, job(self.consumer)))
                    except Exception as e:  # the job's exception goes back to the caller
                        reply.put((False, e))
                    continue
                started = time.monotonic()
                err = self.adapter.poll(self.consumer)
                if time.monotonic() - started < 0.01:
                    # A poll that returns at once must not spin: a spinning kafka-python 3.0.12
                    # consumer thread was seen to starve its own I/O thread (no heartbeats, the
                    # member timed out of the group).
                    time.sleep(0.02)
                if err is not None:
                    self.errors.append(err)
                self.assignment = self.adapter.assignment(self.consumer)
                self.generation = self.adapter.generation(self.consumer)
        except Exception:
            self.crashed = traceback.format_exc(limit=4)
            self._ready.set()

    def call(self, job, seconds=30.0):
        """Runs `job(consumer)` on the worker's thread and returns its result (raises its error)."""
        reply = queue.Queue()
        self._jobs.put((job, reply))
        try:
            ok, value = reply.get(timeout=seconds)
        except queue.Empty:
            fail(f"{self.name} answers", f"a call did not return within {seconds:.0f} s")
        if not ok:
            raise value
        return value

    def close(self, seconds=30.0):
        """Closes the consumer on its thread and stops the thread."""
        self.call(self.adapter.close, seconds)
        self.closed = True
        self._stop.set()
        self._thread.join(seconds)
        _consumers.remove(self)


def partitions_of(workers):
    """The union of the assignments and whether they are disjoint."""
    seen = []
    for w in workers:
        seen.extend(w.assignment)
    return sorted(seen), len(seen) == len(set(seen))


def covers(workers, topic, partitions):
    """Every worker owns something, nobody owns a partition twice, and all are owned."""
    union, disjoint = partitions_of(workers)
    return (
        all(w.assignment for w in workers)
        and disjoint
        and union == [(topic, p) for p in range(partitions)]
    )
