"""Checks `regroup serve` with two Kafka client stacks nobody on the project wrote.

Usage: check_serve.py HOST:PORT   (the server runs with a topic t1 of 2 partitions)

* kafka-python 3.0.12 (pure Python, codec generated from Kafka's JSON schemas): ApiVersions
  negotiation, Metadata (describe_cluster, list_topics, describe_topics) and FindCoordinator.
* confluent-kafka 2.16.1 / librdkafka 2.16.0: ApiVersions + Metadata (list_topics).
* Both: a classic static member (group.instance.id) joins, is assigned both partitions of t1,
  commits an offset and reads it back (librdkafka only fetches, and so only runs its consumer
  loop, when the broker advertises Produce >= 3 and Fetch >= 4).

Prints one line per check and exits 1 on the first failure.
"""

import sys
import time

ADDR = sys.argv[1]
HOST, PORT = ADDR.rsplit(":", 1)
PORT = int(PORT)


def check(name, cond, detail=""):
    if not cond:
        print(f"FAIL {name}: {detail}")
        sys.exit(1)
    print(f"ok   {name}")


def kafka_python():
    from kafka import KafkaAdminClient
    from kafka.protocol.metadata import FindCoordinatorRequest, MetadataRequest

    admin = KafkaAdminClient(
        bootstrap_servers=ADDR, client_id="regroup-conformance", request_timeout_ms=10000
    )
    try:
        versions = admin._manager.broker_version_data
        check(
            "kafka-python negotiates FindCoordinator v6",
            versions.api_version(FindCoordinatorRequest) == 6,
            versions.api_version(FindCoordinatorRequest),
        )
        check(
            "kafka-python negotiates Metadata v13",
            versions.api_version(MetadataRequest) >= 12,
            versions.api_version(MetadataRequest),
        )
        cluster = admin.describe_cluster()
        brokers = cluster["brokers"]
        check("kafka-python describe_cluster: one broker", len(brokers) == 1, cluster)
        b = brokers[0]
        check(
            "kafka-python describe_cluster: broker 1 at the served address",
            b["broker_id"] == 1 and b["host"] == HOST and b["port"] == PORT,
            b,
        )
        check("kafka-python describe_cluster: controller is broker 1", cluster["controller_id"] == 1, cluster)
        topics = admin.list_topics()
        check("kafka-python list_topics has t1", "t1" in topics, topics)
        described = admin.describe_topics(["t1"])
        parts = described[0]["partitions"]
        check(
            "kafka-python describe_topics t1: 2 partitions led by 1",
            described[0]["error_code"] == 0
            and sorted(p["partition_index"] for p in parts) == [0, 1]
            and all(p["leader_id"] == 1 for p in parts),
            described,
        )
        ids = admin._manager.run(admin._find_coordinator_ids, ["g1", "another-group"])
        check("kafka-python FindCoordinator v4+: both groups on broker 1", ids == {"g1": 1, "another-group": 1}, ids)
    finally:
        admin.close()


def confluent():
    from confluent_kafka.admin import AdminClient

    a = AdminClient({"bootstrap.servers": ADDR, "client.id": "regroup-conformance"})
    md = a.list_topics(timeout=10)
    check("librdkafka list_topics: one broker", list(md.brokers.keys()) == [1], md.brokers)
    broker = md.brokers[1]
    check("librdkafka list_topics: broker address", broker.host == HOST and broker.port == PORT, broker)
    check("librdkafka list_topics: cluster id", md.cluster_id == "cmVncm91cC1jbHVzdGVyAA", md.cluster_id)
    t1 = md.topics.get("t1")
    check("librdkafka list_topics: t1 without error", t1 is not None and t1.error is None, t1)
    check(
        "librdkafka list_topics: t1 partitions led by 1",
        sorted(t1.partitions) == [0, 1] and all(p.leader == 1 and p.replicas == [1] for p in t1.partitions.values()),
        t1.partitions,
    )
    internal = md.topics.get("__consumer_offsets")
    check("librdkafka list_topics: __consumer_offsets exists", internal is not None and internal.error is None, internal)


def wait_assignment(poll, assignment, what, seconds=30):
    deadline = time.time() + seconds
    while not assignment():
        check(f"{what} is assigned within {seconds} s", time.time() < deadline, "timed out")
        poll()
    return assignment()


def kafka_python_static_member():
    from kafka import KafkaConsumer, KafkaAdminClient, TopicPartition
    from kafka.structs import OffsetAndMetadata

    c = KafkaConsumer(
        "t1",
        bootstrap_servers=ADDR,
        group_id="py-static",
        group_instance_id="py-1",
        enable_auto_commit=False,
        auto_offset_reset="earliest",
        session_timeout_ms=10000,
        heartbeat_interval_ms=1000,
        client_id="regroup-conformance",
    )
    try:
        assigned = wait_assignment(lambda: c.poll(timeout_ms=200), c.assignment, "kafka-python static member")
        check(
            "kafka-python static member owns t1-0 and t1-1",
            assigned == {TopicPartition("t1", 0), TopicPartition("t1", 1)},
            assigned,
        )
        c.commit({TopicPartition("t1", 0): OffsetAndMetadata(5, "py", -1)})
        got = c.committed(TopicPartition("t1", 0))
        check("kafka-python reads its committed offset back", got == 5, got)
    finally:
        c.close()
    admin = KafkaAdminClient(bootstrap_servers=ADDR, client_id="regroup-conformance")
    try:
        group = admin.describe_groups(["py-static"])["py-static"]
        members = group["members"]
        check(
            "kafka-python describe_groups: the static member stays after close (no LeaveGroup)",
            group["error"] is None
            and group["group_state"] == "Stable"
            and len(members) == 1
            and members[0]["group_instance_id"] == "py-1",
            group,
        )
    finally:
        admin.close()


def confluent_static_member():
    from confluent_kafka import Consumer, TopicPartition

    c = Consumer(
        {
            "bootstrap.servers": ADDR,
            "group.id": "rd-static",
            "group.instance.id": "rd-1",
            "enable.auto.commit": False,
            "auto.offset.reset": "earliest",
            "session.timeout.ms": 10000,
            "client.id": "regroup-conformance",
        }
    )
    try:
        c.subscribe(["t1"])
        assigned = wait_assignment(lambda: c.poll(0.2), c.assignment, "librdkafka static member")
        check(
            "librdkafka static member owns t1-0 and t1-1",
            sorted((tp.topic, tp.partition) for tp in assigned) == [("t1", 0), ("t1", 1)],
            assigned,
        )
        c.commit(offsets=[TopicPartition("t1", 1, 7)], asynchronous=False)
        (got,) = c.committed([TopicPartition("t1", 1)], timeout=10)
        check("librdkafka reads its committed offset back", got.offset == 7 and got.error is None, got)
    finally:
        c.close()


if __name__ == "__main__":
    kafka_python()
    confluent()
    kafka_python_static_member()
    confluent_static_member()
    print("all checks passed")
