"""aiokafka 0.14.0 static members against `regroup serve`: a static member whose heartbeats and
commits carry no instance id keeps working.

Usage: check_aiokafka.py HOST:PORT   (the server has a topic t6 with 6 partitions)

aiokafka joins with JoinGroup v5 and SyncGroup v3 (both with group.instance.id) but only knows
Heartbeat v0-1 and OffsetCommit v2-3, which have no instance id field. Kafka identifies such a
member by its member id alone. The member heartbeats for longer than its session timeout, a second
static member joins and the group rebalances, both commit and read their offsets back, and after
both close (a static member sends no LeaveGroup) DescribeGroups still lists them.
"""

import asyncio
import sys

from aiokafka import AIOKafkaConsumer, TopicPartition
from aiokafka.protocol.commit import OffsetCommitRequest
from aiokafka.protocol.group import HeartbeatRequest
from kafka import KafkaAdminClient

from common import check, fail, run

ADDR = sys.argv[1]
TOPIC = "t6"
PARTITIONS = 6
GROUP = "aio-static6"
SESSION_MS = 6000  # Kafka's group.min.session.timeout.ms


def consumer(instance_id):
    return AIOKafkaConsumer(
        TOPIC,
        bootstrap_servers=ADDR,
        group_id=GROUP,
        group_instance_id=instance_id,
        client_id=f"regroup-{instance_id}",
        enable_auto_commit=False,
        auto_offset_reset="earliest",
        session_timeout_ms=SESSION_MS,
        heartbeat_interval_ms=500,
    )


def state(c):
    coordinator = c._coordinator
    return (
        sorted((tp.topic, tp.partition) for tp in c.assignment()),
        coordinator.generation,
        coordinator.member_id,
    )


async def poll_until(name, consumers, cond, seconds=30.0):
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while not cond():
        if loop.time() > deadline:
            fail(name, f"not within {seconds:.0f} s: {[state(c) for c in consumers]}")
        await asyncio.gather(*(c.getmany(timeout_ms=100) for c in consumers))
    check(name, True)


def negotiated(c, request):
    """The request struct aiokafka builds for `request` on its coordinator connection."""
    conn = next(conn for conn in c._client._conns.values() if conn.connected())
    return request.prepare(conn._versions)


def describe():
    admin = KafkaAdminClient(bootstrap_servers=ADDR, client_id="regroup-aiokafka-admin")
    try:
        g = admin.describe_groups([GROUP])[GROUP]
        return g["group_state"], sorted((m["group_instance_id"], m["member_id"]) for m in g["members"])
    finally:
        admin.close()


async def main():
    one = consumer("aio-1")
    await one.start()
    all_partitions = [(TOPIC, p) for p in range(PARTITIONS)]
    await poll_until(
        "aiokafka: a static member (JoinGroup v5 with its instance id) owns all 6 partitions of t6",
        [one],
        lambda: state(one)[0] == all_partitions,
    )
    _, generation, member_id = state(one)

    heartbeat = negotiated(one, HeartbeatRequest(GROUP, generation, member_id))
    commit = negotiated(one, OffsetCommitRequest(GROUP, generation, member_id, -1, []))
    check(
        "aiokafka: its Heartbeat (v1) and OffsetCommit (v3) have no instance id field",
        (type(heartbeat).API_VERSION, type(commit).API_VERSION) == (1, 3)
        and "group_instance_id" not in heartbeat.SCHEMA.names
        and "group_instance_id" not in commit.SCHEMA.names,
        lambda: (type(heartbeat).__name__, heartbeat.SCHEMA.names, type(commit).__name__, commit.SCHEMA.names),
    )

    # Stay for twice the session timeout: only heartbeats without the instance id keep it alive.
    loop = asyncio.get_running_loop()
    until = loop.time() + 2 * SESSION_MS / 1000
    while loop.time() < until:
        await one.getmany(timeout_ms=200)
    check(
        f"aiokafka: after {2 * SESSION_MS // 1000} s of heartbeats without the instance id it is the same member "
        "in the same generation with the same partitions",
        state(one) == (all_partitions, generation, member_id),
        lambda: f"{state(one)}, before {(all_partitions, generation, member_id)}",
    )

    offsets = {TopicPartition(TOPIC, p): 30 + p for p in range(PARTITIONS)}
    await one.commit(offsets)
    got = {p: await one.committed(TopicPartition(TOPIC, p)) for p in range(PARTITIONS)}
    check(
        "aiokafka: its commit without the instance id is accepted and read back",
        got == {p: 30 + p for p in range(PARTITIONS)},
        got,
    )

    two = consumer("aio-2")
    await two.start()
    await poll_until(
        "aiokafka: a second static member joins and the two split the 6 partitions in a new generation",
        [one, two],
        lambda: (
            len(state(one)[0]) == 3
            and len(state(two)[0]) == 3
            and sorted(state(one)[0] + state(two)[0]) == all_partitions
            and state(one)[1] == state(two)[1] > generation
        ),
    )
    mine = [p for _, p in state(two)[0]]
    await two.commit({TopicPartition(TOPIC, p): 40 + p for p in mine})
    got = {p: await two.committed(TopicPartition(TOPIC, p)) for p in mine}
    check(
        "aiokafka: the second member commits in the new generation without the instance id",
        got == {p: 40 + p for p in mine},
        got,
    )
    members = {"aio-1": state(one)[2], "aio-2": state(two)[2]}
    await one.stop()
    await two.stop()
    group_state, described = describe()
    check(
        "aiokafka: after close both static members are still in the group (no LeaveGroup), with their ids",
        group_state == "Stable" and described == sorted(members.items()),
        lambda: f"{group_state} {described}, expected {sorted(members.items())}",
    )
    print("aiokafka: all checks passed")


if __name__ == "__main__":
    run(lambda: asyncio.run(main()))
