"""kafka-python 3.0.12 static members (KIP-345) against `regroup serve`.

Usage: check_kafka_python.py HOST:PORT   (the server has a topic t6 with 6 partitions)

Three static consumers share t6 (JoinGroup v7, SyncGroup v5, Heartbeat v4, OffsetCommit v8, all
with the instance id); DescribeGroups shows their instance ids; one commits, closes (a static
member sends no LeaveGroup) and restarts within the session timeout with the same partitions and
generation and reads its commits back; a consumer reusing an instance id fences the older one
(FENCED_INSTANCE_ID); and `KafkaAdminClient.remove_group_members` by instance id (LeaveGroup v5)
removes a closed static member, after which the group rebalances onto the others. Last,
`KafkaAdminClient.delete_group_offsets` (OffsetDelete v0): refused per partition with
GROUP_SUBSCRIBED_TO_TOPIC while the group consumes t6, done for a group that only committed, and
GROUP_ID_NOT_FOUND for an unknown group.
"""

import sys

from kafka import KafkaAdminClient, KafkaConsumer, TopicPartition
from kafka import errors as Errors
from kafka.admin import MemberToRemove
from kafka.consumer.subscription_state import ConsumerRebalanceListener
from kafka.structs import OffsetAndMetadata

from common import Worker, check, covers, run, wait_until

ADDR = sys.argv[1]
TOPIC = "t6"
PARTITIONS = 6
GROUP = "py-static6"
# 20 s rather than 10 s: the three consumers share one Python process (and the GIL) with the checks,
# so a heartbeat thread starved on a loaded machine gets more slack (a run at load 7 once lost a
# member from the group; a 10 s session expiry is the likely cause).
SESSION_MS = 20000


class Adapter:
    @staticmethod
    def poll(c):
        try:
            c.poll(timeout_ms=100)
        except Errors.KafkaError as e:
            return type(e).__name__
        return None

    @staticmethod
    def assignment(c):
        return sorted((tp.topic, tp.partition) for tp in c.assignment())

    @staticmethod
    def generation(c):
        # kafka-python keeps the generation it joined in on its coordinator.
        return c._coordinator._generation.generation_id

    @staticmethod
    def close(c):
        c.close()


class Listener(ConsumerRebalanceListener):
    def __init__(self, worker):
        self.worker = worker

    def on_partitions_revoked(self, revoked):
        self.worker.on_rebalance()

    def on_partitions_assigned(self, assigned):
        self.worker.on_rebalance()


def static_consumer(name, instance_id):
    def make(worker):
        c = KafkaConsumer(
            bootstrap_servers=ADDR,
            group_id=GROUP,
            group_instance_id=instance_id,
            client_id=f"regroup-{name}",
            enable_auto_commit=False,
            auto_offset_reset="earliest",
            session_timeout_ms=SESSION_MS,
            heartbeat_interval_ms=500,
            request_timeout_ms=20000,
        )
        c.subscribe([TOPIC], listener=Listener(worker))
        return c

    return Worker(name, make, Adapter)


def admin():
    return KafkaAdminClient(bootstrap_servers=ADDR, client_id="regroup-kafka-python-admin")


def described(a):
    g = a.describe_groups([GROUP])[GROUP]
    members = sorted((m["group_instance_id"], m["client_id"]) for m in g["members"])
    return g["group_state"], members


def committed(worker, partitions):
    return worker.call(lambda c: sorted((p, c.committed(TopicPartition(TOPIC, p))) for p in partitions))


def main():
    a = static_consumer("py-a", "py-a")
    b = static_consumer("py-b", "py-b")
    c = static_consumer("py-c", "py-c")
    members = [a, b, c]
    wait_until(
        "kafka-python: three static members each own partitions of t6, disjoint and covering all 6",
        lambda: covers(members, TOPIC, PARTITIONS) and len({w.generation for w in members}) == 1,
        lambda: [w.describe() for w in members],
    )
    generation = a.generation
    adm = admin()
    state, described_members = described(adm)
    check(
        "kafka-python: DescribeGroups shows a stable group with the three instance ids",
        state == "Stable"
        and described_members == [("py-a", "regroup-py-a"), ("py-b", "regroup-py-b"), ("py-c", "regroup-py-c")],
        lambda: (state, described_members),
    )

    owned = [p for _, p in b.assignment]
    b.call(lambda cons: cons.commit({TopicPartition(TOPIC, p): OffsetAndMetadata(20 + p, "", -1) for p in owned}))
    check(
        "kafka-python: a static member's commit (OffsetCommit v8 with its instance id) is read back",
        committed(b, owned) == [(p, 20 + p) for p in owned],
        lambda: committed(b, owned),
    )

    before = {w.name: w.rebalances for w in (a, c)}
    b_assignment = b.assignment
    b.close()
    state, described_members = described(adm)
    check(
        "kafka-python: the closed static member is still in the group (no LeaveGroup)",
        state == "Stable" and ("py-b", "regroup-py-b") in described_members,
        lambda: (state, described_members),
    )
    b2 = static_consumer("py-b (restarted)", "py-b")
    wait_until(
        "kafka-python: the restarted static member is assigned within the session timeout",
        lambda: b2.assignment != [],
        lambda: b2.describe(),
        seconds=SESSION_MS / 1000,
    )
    check(
        "kafka-python: the restarted member owns the same partitions as before",
        b2.assignment == b_assignment,
        lambda: f"{b2.assignment} after, {b_assignment} before",
    )
    check(
        f"kafka-python: the restart kept generation {generation}",
        [w.generation for w in (a, b2, c)] == [generation] * 3,
        lambda: f"generations {[w.generation for w in (a, b2, c)]}, before {generation}",
    )
    check(
        "kafka-python: the other members did not rebalance",
        {w.name: w.rebalances for w in (a, c)} == before,
        lambda: f"rebalance callbacks {[(w.name, w.rebalances) for w in (a, c)]}, before {before}",
    )
    check(
        "kafka-python: the commits made before the restart are fetched after it",
        committed(b2, owned) == [(p, 20 + p) for p in owned],
        lambda: committed(b2, owned),
    )

    # A second consumer with py-a's instance id replaces it; py-a's next heartbeat or commit is
    # answered FENCED_INSTANCE_ID.
    a_assignment = a.assignment
    d = static_consumer("py-a (duplicate)", "py-a")
    wait_until(
        "kafka-python: the consumer reusing an instance id owns the replaced member's partitions",
        lambda: d.assignment == a_assignment and d.generation == generation,
        lambda: f"{d.describe()}; the replaced member had {a_assignment} in generation {generation}",
    )

    def commit_as_old_member(cons):
        try:
            cons.commit({TopicPartition(TOPIC, a_assignment[0][1]): OffsetAndMetadata(1, "", -1)})
        except Errors.KafkaError as e:
            return type(e).__name__
        return "committed"

    outcome = a.call(commit_as_old_member)
    check(
        "kafka-python: the older consumer with that instance id is fenced (FencedInstanceIdError)",
        outcome == "FencedInstanceIdError",
        lambda: f"its commit gave {outcome}; {a.describe()}",
    )
    a.close()

    # c closes (it stays in the group, being static) and the admin client removes it by instance id.
    c.close()
    survivors = [b2, d]
    result = adm.remove_group_members(GROUP, [MemberToRemove(group_instance_id="py-c")])
    # Kafka echoes the request's member id ("") in the LeaveGroup v5 answer, so kafka-python keys
    # the result by the instance id.
    check(
        "kafka-python: remove_group_members by instance id succeeds (LeaveGroup v5)",
        result == {"py-c": Errors.NoError},
        lambda: result,
    )
    state, described_members = described(adm)
    check(
        "kafka-python: the removed static member is gone from DescribeGroups",
        all(inst != "py-c" for inst, _ in described_members),
        lambda: (state, described_members),
    )
    # Not "exactly one more generation": kafka-python 3.0.12 sometimes joins once more by itself
    # when a poll's timeout ends while its SyncGroup is in flight (its log says need_rejoin from
    # base.rejoin_needed right after a successful SyncGroup).
    wait_until(
        "kafka-python: the group rebalances (a new generation) and the two remaining members own all 6 partitions",
        lambda: covers(survivors, TOPIC, PARTITIONS)
        and len({w.generation for w in survivors}) == 1
        and all(w.generation is not None and w.generation > generation for w in survivors),
        lambda: [w.describe() for w in survivors],
    )
    offset_delete(adm)
    b2.close()
    d.close()
    adm.close()
    print("kafka-python: all checks passed")


def offset_delete(adm):
    subscribed = adm.delete_group_offsets(GROUP, [TopicPartition(TOPIC, 0), TopicPartition(TOPIC, 1)])
    check(
        "kafka-python: delete_group_offsets on a topic the group consumes is refused per partition "
        "with GROUP_SUBSCRIBED_TO_TOPIC",
        sorted((tp.partition, e.__name__) for tp, e in subscribed.items())
        == [(0, "GroupSubscribedToTopicError"), (1, "GroupSubscribedToTopicError")],
        lambda: subscribed,
    )
    # A group that only commits: no members, no subscription.
    simple = "py-offsets-only"
    c = KafkaConsumer(bootstrap_servers=ADDR, group_id=simple, enable_auto_commit=False)
    try:
        c.commit({TopicPartition(TOPIC, p): OffsetAndMetadata(40 + p, "", -1) for p in (0, 1)})
        before = [c.committed(TopicPartition(TOPIC, p)) for p in (0, 1)]
        deleted = adm.delete_group_offsets(simple, [TopicPartition(TOPIC, 0)])
        after = [c.committed(TopicPartition(TOPIC, p)) for p in (0, 1)]
    finally:
        c.close()
    check(
        "kafka-python: delete_group_offsets removes a committed offset of a group without members",
        before == [40, 41] and deleted == {TopicPartition(TOPIC, 0): Errors.NoError} and after == [None, 41],
        lambda: f"committed {before}, delete answered {deleted}, committed afterwards {after}",
    )
    try:
        unknown = adm.delete_group_offsets("py-no-such-group", [TopicPartition(TOPIC, 0)])
    except Errors.GroupIdNotFoundError as e:
        unknown = e
    check(
        "kafka-python: delete_group_offsets of an unknown group fails with GROUP_ID_NOT_FOUND",
        isinstance(unknown, Errors.GroupIdNotFoundError),
        lambda: repr(unknown),
    )


if __name__ == "__main__":
    run(main)
