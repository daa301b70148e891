"""confluent-kafka 2.16.1 (librdkafka 2.16.0) static members (KIP-345) against `regroup serve`.

Usage: check_confluent.py HOST:PORT   (the server has a topic t6 with 6 partitions)

Three static consumers (group.instance.id) share t6; one commits, closes and is restarted within
the session timeout: it gets the same partitions in the same generation and nobody rebalances,
and it reads its commits back. Then a new consumer takes an instance id that is in use and the
older consumer fails with FENCED_INSTANCE_ID.

The generation is read from librdkafka's serialized group metadata (`consumer_group_metadata()`:
"CGMDv2:", the generation as a host-order int32, then group id, member id and instance id).
"""

import sys

from confluent_kafka import Consumer, KafkaError, TopicPartition

from common import Worker, check, covers, run, wait_until
from confluent_adapter import Adapter

ADDR = sys.argv[1]
TOPIC = "t6"
PARTITIONS = 6
GROUP = "rd-static6"
SESSION_MS = 10000


def static_consumer(name, instance_id):
    def make(worker):
        def on_error(err):
            worker.errors.append(("fatal " if err.fatal() else "") + f"{err.name()}: {err.str()}")

        c = Consumer(
            {
                "bootstrap.servers": ADDR,
                "group.id": GROUP,
                "group.instance.id": instance_id,
                "client.id": f"regroup-{name}",
                "enable.auto.commit": False,
                "auto.offset.reset": "earliest",
                "session.timeout.ms": SESSION_MS,
                "heartbeat.interval.ms": 500,
                "partition.assignment.strategy": "range",
                "error_cb": on_error,
            }
        )
        c.subscribe(
            [TOPIC],
            on_assign=lambda *_: worker.on_rebalance(),
            on_revoke=lambda *_: worker.on_rebalance(),
        )
        return c

    return Worker(name, make, Adapter)


def committed(worker, partitions):
    got = worker.call(lambda c: c.committed([TopicPartition(TOPIC, p) for p in partitions], timeout=10))
    return sorted((tp.partition, tp.offset, tp.error) for tp in got)


def main():
    a = static_consumer("rd-a", "rd-a")
    b = static_consumer("rd-b", "rd-b")
    c = static_consumer("rd-c", "rd-c")
    members = [a, b, c]
    wait_until(
        "librdkafka: three static members each own partitions of t6, disjoint and covering all 6",
        lambda: covers(members, TOPIC, PARTITIONS) and len({w.generation for w in members}) == 1,
        lambda: [w.describe() for w in members],
    )
    generation = a.generation
    check(
        "librdkafka: the range assignor gives each member 2 partitions",
        all(len(w.assignment) == 2 for w in members),
        lambda: [w.assignment for w in members],
    )

    owned = [p for _, p in b.assignment]
    offsets = [TopicPartition(TOPIC, p, 10 + p) for p in owned]
    b.call(lambda cons: cons.commit(offsets=offsets, asynchronous=False))
    check(
        "librdkafka: a static member's commit in the current generation is read back",
        committed(b, owned) == [(p, 10 + p, None) for p in owned],
        lambda: committed(b, owned),
    )

    before = {w.name: w.rebalances for w in (a, c)}
    b_assignment = b.assignment
    b.close()
    b2 = static_consumer("rd-b (restarted)", "rd-b")
    wait_until(
        "librdkafka: the restarted static member is assigned within the session timeout",
        lambda: b2.assignment != [],
        lambda: b2.describe(),
        seconds=SESSION_MS / 1000,
    )
    check(
        "librdkafka: the restarted member owns the same partitions as before",
        b2.assignment == b_assignment,
        lambda: f"{b2.assignment} after, {b_assignment} before",
    )
    check(
        f"librdkafka: the restart kept generation {generation}",
        b2.generation == generation and a.generation == generation and c.generation == generation,
        lambda: f"generations {[w.generation for w in (a, b2, c)]}, before {generation}",
    )
    check(
        "librdkafka: the other members did not rebalance",
        {w.name: w.rebalances for w in (a, c)} == before,
        lambda: f"rebalance callbacks {[(w.name, w.rebalances) for w in (a, c)]}, before {before}",
    )
    check(
        "librdkafka: the commits made before the restart are fetched after it",
        committed(b2, owned) == [(p, 10 + p, None) for p in owned],
        lambda: committed(b2, owned),
    )

    a_assignment = a.assignment
    d = static_consumer("rd-a (duplicate)", "rd-a")

    # librdkafka raises a broker's FENCED_INSTANCE_ID as a fatal error (_FATAL) that carries the
    # broker error's description.
    fenced_text = KafkaError(KafkaError.FENCED_INSTANCE_ID).str()

    wait_until(
        "librdkafka: a second consumer with a used instance id fences the older one with a fatal "
        "FENCED_INSTANCE_ID",
        lambda: any(e.startswith(("_FATAL", "fatal _FATAL")) and fenced_text in e for e in a.errors),
        lambda: f"{a.describe()}; expected a fatal error saying {fenced_text!r}",
    )
    wait_until(
        "librdkafka: the new consumer with that instance id owns the fenced member's partitions",
        lambda: d.assignment == a_assignment,
        lambda: f"{d.describe()}; the fenced member had {a_assignment}",
    )
    for w in (a, b2, c, d):
        try:
            w.close(10)
        except Exception:
            pass  # the fenced consumer may refuse a clean close
    print("confluent-kafka: all checks passed")


if __name__ == "__main__":
    run(main)
