"""confluent-kafka 2.16.1 (librdkafka 2.16.0) with `group.protocol=consumer` (KIP-848) against
`regroup serve`.

Usage: check_confluent_consumer.py HOST:PORT   (the server has a topic t6 with 6 partitions and
runs with group.consumer.heartbeat.interval.ms=500, its minimum lowered to match)

* Dynamic members: two consumers share t6 (the server's `uniform` assignor gives 3 each), every
  partition owned exactly once; the group as ConsumerGroupDescribe and the AdminClient show it;
  when one leaves, the other gets all 6.
* Static members (group.instance.id): one is closed (ConsumerGroupHeartbeat epoch -2) and
  restarted within its session: it gets the same partitions back at the same member epoch, the
  group epoch does not move and the other member does not rebalance, as Kafka 4.4.0 does.
* Regular expressions: a member subscribed to `^t[0-9]+` owns t1's and t6's partitions once the
  coordinator has resolved the regex (the group at epoch 2).
* Offsets: commits under the consumer protocol (OffsetCommit with the member epoch) are read back,
  also after a restart and by the member that took the partitions over.

Epochs come from a raw ConsumerGroupDescribe (cg_describe.py); the member epoch the client holds
from librdkafka's serialized group metadata (`consumer_group_metadata()`: "CGMDv2:", then the
generation, which under KIP-848 is the member epoch, as a host-order int32).
"""

import sys
import time

from confluent_kafka import Consumer, TopicPartition
from confluent_kafka.admin import AdminClient

from cg_describe import describe
from common import Worker, check, covers, run, wait_until
from confluent_adapter import Adapter

ADDR = sys.argv[1]
TOPIC = "t6"
PARTITIONS = 6


def consumer(name, group, instance_id=None, topics=(TOPIC,)):
    def make(worker):
        def on_error(err):
            worker.errors.append(("fatal " if err.fatal() else "") + f"{err.name()}: {err.str()}")

        config = {
            "bootstrap.servers": ADDR,
            "group.id": group,
            "group.protocol": "consumer",
            "client.id": f"regroup-{name}",
            "enable.auto.commit": False,
            "auto.offset.reset": "earliest",
            "error_cb": on_error,
        }
        if instance_id is not None:
            config["group.instance.id"] = instance_id
        c = Consumer(config)
        c.subscribe(
            list(topics),
            on_assign=lambda *_: worker.on_rebalance(),
            on_revoke=lambda *_: worker.on_rebalance(),
        )
        return c

    return Worker(name, make, Adapter)


def committed(worker, partitions):
    got = worker.call(lambda c: c.committed([TopicPartition(TOPIC, p) for p in partitions], timeout=10))
    return sorted((tp.partition, tp.offset, tp.error) for tp in got)


def commit(worker, offsets):
    """Commits {partition: offset} synchronously; returns the per-partition errors."""
    tps = [TopicPartition(TOPIC, p, o) for p, o in sorted(offsets.items())]
    got = worker.call(lambda c: c.commit(offsets=tps, asynchronous=False))
    return sorted((tp.partition, tp.offset, tp.error) for tp in got)


def stable(group, members):
    """The group is Stable and every member's assignment equals its target."""
    g = describe(ADDR, group)
    return (
        g["error_code"] == 0
        and g["group_state"] == "Stable"
        and len(g["members"]) == members
        and all(m["assignment"] == m["target_assignment"] for m in g["members"].values())
    )


def dynamic_members():
    group = "rd848-dyn"
    a = consumer("rd848-a", group)
    b = consumer("rd848-b", group)
    wait_until(
        "consumer protocol: two dynamic members own t6's 6 partitions, each exactly once",
        lambda: covers([a, b], TOPIC, PARTITIONS) and stable(group, 2),
        lambda: [w.describe() for w in (a, b)] + [describe(ADDR, group)],
    )
    check(
        "consumer protocol: the uniform assignor gives each member 3 partitions",
        len(a.assignment) == 3 and len(b.assignment) == 3,
        lambda: [a.assignment, b.assignment],
    )
    g = describe(ADDR, group)
    # Epochs start at 1; each join bumps the group epoch: 2 for the first member, 3 for the second.
    check(
        "consumer protocol: ConsumerGroupDescribe shows group epoch 3, assignment epoch 3, "
        "assignor uniform, both members at epoch 3 (v1 MemberType 1, consumer protocol)",
        (g["group_epoch"], g["assignment_epoch"], g["assignor_name"]) == (3, 3, "uniform")
        and sorted(m["member_epoch"] for m in g["members"].values()) == [3, 3]
        and all(m["member_type"] == 1 for m in g["members"].values()),
        g,
    )
    check(
        "consumer protocol: librdkafka holds member epoch 3 on both members",
        a.generation == 3 and b.generation == 3,
        lambda: [a.generation, b.generation],
    )
    by_client = {m["client_id"]: m for m in g["members"].values()}
    check(
        "consumer protocol: each member's described assignment is what the client owns",
        by_client["regroup-rd848-a"]["assignment"] == a.assignment
        and by_client["regroup-rd848-b"]["assignment"] == b.assignment,
        lambda: (by_client, a.assignment, b.assignment),
    )

    admin = AdminClient({"bootstrap.servers": ADDR})
    d = admin.describe_consumer_groups([group])[group].result(10)
    described = sorted(
        (m.client_id, sorted((tp.topic, tp.partition) for tp in m.assignment.topic_partitions))
        for m in d.members
    )
    check(
        "consumer protocol: AdminClient.describe_consumer_groups shows a CONSUMER group, STABLE, "
        "assignor uniform, the members' assignments",
        d.type.name == "CONSUMER"
        and d.state.name == "STABLE"
        and d.partition_assignor == "uniform"
        and described == [("regroup-rd848-a", a.assignment), ("regroup-rd848-b", b.assignment)],
        lambda: (d.type, d.state, d.partition_assignor, described),
    )

    a_owned = [p for _, p in a.assignment]
    check(
        "consumer protocol: a member's commit (OffsetCommit with its member epoch) is read back",
        commit(a, {p: 100 + p for p in a_owned}) == [(p, 100 + p, None) for p in a_owned]
        and committed(a, a_owned) == [(p, 100 + p, None) for p in a_owned],
        lambda: committed(a, a_owned),
    )

    a.close()
    wait_until(
        "consumer protocol: when a member leaves, the other owns all 6 partitions",
        lambda: b.assignment == [(TOPIC, p) for p in range(PARTITIONS)] and stable(group, 1),
        lambda: (b.describe(), describe(ADDR, group)),
    )
    g = describe(ADDR, group)
    # The leave bumps the epoch to 4; the remaining member reconciles to it.
    check(
        "consumer protocol: after the leave the group epoch is 4 and the remaining member is at 4",
        g["group_epoch"] == 4
        and [m["member_epoch"] for m in g["members"].values()] == [4]
        and b.generation == 4,
        lambda: (g, b.generation),
    )
    check(
        "consumer protocol: the member that took the partitions over reads the leaver's commits",
        committed(b, a_owned) == [(p, 100 + p, None) for p in a_owned],
        lambda: committed(b, a_owned),
    )
    everything = list(range(PARTITIONS))
    check(
        "consumer protocol: it commits all 6 partitions and reads them back",
        commit(b, {p: 200 + p for p in everything}) == [(p, 200 + p, None) for p in everything]
        and committed(b, everything) == [(p, 200 + p, None) for p in everything],
        lambda: committed(b, everything),
    )
    b.close()
    g = describe(ADDR, group)
    check(
        "consumer protocol: after both leave the group is Empty at epoch 5",
        (g["group_state"], g["group_epoch"], g["members"]) == ("Empty", 5, {}),
        g,
    )


def static_members():
    group = "rd848-static"
    s1 = consumer("rd848-s1", group, "s1")
    s2 = consumer("rd848-s2", group, "s2")
    wait_until(
        "consumer protocol: two static members own t6's 6 partitions, each exactly once",
        lambda: covers([s1, s2], TOPIC, PARTITIONS) and stable(group, 2),
        lambda: [w.describe() for w in (s1, s2)] + [describe(ADDR, group)],
    )
    before = describe(ADDR, group)
    epoch = before["group_epoch"]
    check(
        "consumer protocol: the static group is at epoch 3 with both members at 3",
        epoch == 3
        and before["assignment_epoch"] == 3
        and before["members"]["s1"]["member_epoch"] == 3
        and before["members"]["s2"]["member_epoch"] == 3,
        before,
    )
    s2_owned = [p for _, p in s2.assignment]
    commit(s2, {p: 300 + p for p in s2_owned})
    s2_assignment = s2.assignment
    s2_member_id = before["members"]["s2"]["member_id"]
    s1_rebalances = s1.rebalances

    s2.close()
    gone = describe(ADDR, group)
    check(
        "consumer protocol: a closed static member is kept at member epoch -2 with its "
        "partitions, and the group epoch does not move",
        gone["group_epoch"] == epoch
        and gone["members"]["s2"]["member_epoch"] == -2
        and gone["members"]["s2"]["assignment"] == s2_assignment,
        gone,
    )
    started = time.monotonic()
    s2b = consumer("rd848-s2 (restarted)", group, "s2")
    wait_until(
        "consumer protocol: the restarted static member is assigned within its session",
        lambda: s2b.assignment != [],
        lambda: s2b.describe(),
        seconds=40,
    )
    print(f"     (assigned {time.monotonic() - started:.1f} s after the restart)")
    after = describe(ADDR, group)
    check(
        "consumer protocol: the restarted member owns the same partitions as before",
        s2b.assignment == s2_assignment and after["members"]["s2"]["assignment"] == s2_assignment,
        lambda: (s2b.assignment, s2_assignment, after),
    )
    check(
        f"consumer protocol: the restart kept the group epoch at {epoch} and the member epoch",
        after["group_epoch"] == epoch
        and after["assignment_epoch"] == epoch
        and after["members"]["s2"]["member_epoch"] == epoch
        and s2b.generation == epoch,
        lambda: (after, s2b.generation),
    )
    check(
        "consumer protocol: the restarted member has a new member id (it replaced the old one)",
        after["members"]["s2"]["member_id"] != s2_member_id,
        lambda: (after["members"]["s2"]["member_id"], s2_member_id),
    )
    check(
        "consumer protocol: the other static member did not rebalance",
        s1.rebalances == s1_rebalances and s1.generation == epoch,
        lambda: (s1.describe(), s1_rebalances),
    )
    check(
        "consumer protocol: the commits made before the restart are read after it",
        committed(s2b, s2_owned) == [(p, 300 + p, None) for p in s2_owned],
        lambda: committed(s2b, s2_owned),
    )
    for w in (s1, s2b):
        w.close(10)


def regex_member():
    """A regular-expression subscription (librdkafka sends it as SubscribedTopicRegex): the coordinator
    resolves it after the join (Kafka's asynchronous refresh) and assigns every partition of the topics
    it matches, t1 (2) and t6 (6)."""
    group = "rd848-regex"
    r = consumer("rd848-r", group, topics=("^t[0-9]+",))
    everything = sorted([("t1", p) for p in range(2)] + [(TOPIC, p) for p in range(PARTITIONS)])
    wait_until(
        "consumer protocol: a regex subscription owns every partition of the topics it matches (t1, t6)",
        lambda: sorted(r.assignment) == everything and stable(group, 1),
        lambda: (r.describe(), describe(ADDR, group)),
    )
    g = describe(ADDR, group)
    member = list(g["members"].values())[0]
    print(f"     (SubscribedTopicRegex sent by librdkafka: {member['subscribed_topic_regex']!r})")
    # The join finds the regex unresolved (no epoch bump, member at epoch 1); the resolution written
    # right after it bumps the group to epoch 2; the member then reconciles to 2.
    check(
        "consumer protocol: the regex member is described with its regex and no names, the group "
        "and the member at epoch 2",
        member["subscribed_topic_regex"] not in (None, "")
        and member["subscribed_topic_names"] == []
        and (g["group_epoch"], g["assignment_epoch"], member["member_epoch"]) == (2, 2, 2)
        and r.generation == 2,
        lambda: (g, r.generation),
    )
    r.close()


def main():
    dynamic_members()
    static_members()
    regex_member()
    print("confluent-kafka (group.protocol=consumer): all checks passed")


if __name__ == "__main__":
    run(main)
