"""Checks `regroup serve` with two Kafka client stacks nobody on the project wrote.

Usage: check_serve.py HOST:PORT   (the server runs with a topic t1 of 2 partitions)

* kafka-python 3.0.12 (pure Python, codec generated from Kafka's JSON schemas): ApiVersions
  negotiation, Metadata (describe_cluster, list_topics, describe_topics) and FindCoordinator.
* confluent-kafka 2.16.1 / librdkafka 2.16.0: ApiVersions + Metadata (list_topics), and the
  feature check librdkafka makes before it fetches (Produce >= 3 and Fetch >= 4 advertised).

Prints one line per check and exits 1 on the first failure.
"""

import sys

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


if __name__ == "__main__":
    kafka_python()
    confluent()
    print("all checks passed")
