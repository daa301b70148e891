#!/usr/bin/env python3
"""Writes the fixed corpus of `regroup conformance --corpus conformance/corpus`.

Each scenario is a `regroup script` (one JSON object per line) that replays, as a request sequence, one of
the Kafka unit-test scenarios listed in the reference files:

* `s8-N`  : /work/shared/reference/streams-protocol.md section 8, scenario N;
* `d7-N`  : streams-44-delta.md section 7, scenario N;
* `sm6-N` : static-membership.md section 6, row N;
* `c4-N`  : classic-44-delta.md section 4.1, row N.

Kafka's tests often start from a prepared state (a mock assignor's target, a group at epoch 10, a forced
state); here every state is reached through requests, so epochs and assignments are those the real
coordinator and the real sticky assignor produce. The scripts carry no expected output: the oracle runs
each one through regroup and through Kafka 4.4.0 and compares every line. Scenarios that need a failing log
append, a mock assignor, a forced group state, a coordinator fail-over or a topology-description plugin are
not expressible as requests and are left out (see README.md in this directory).

Run from anywhere: `python3 conformance/corpus/make_corpus.py` rewrites every `*.jsonl` here.
"""

import base64
import json
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def consumer_subscription(topics):
    """A ConsumerProtocolSubscription v0 (what a Java consumer puts in its JoinGroup protocol metadata)."""
    out = struct.pack(">hi", 0, len(topics))
    for t in topics:
        b = t.encode()
        out += struct.pack(">h", len(b)) + b
    out += struct.pack(">i", -1)
    return base64.b64encode(out).decode()


def consumer_assignment(partitions):
    """A ConsumerProtocolAssignment v0 for {topic: [partitions]}."""
    out = struct.pack(">hi", 0, len(partitions))
    for t, ps in partitions.items():
        b = t.encode()
        out += struct.pack(">h", len(b)) + b + struct.pack(">i", len(ps))
        for p in ps:
            out += struct.pack(">i", p)
    out += struct.pack(">i", -1)
    return base64.b64encode(out).decode()


SUB = consumer_subscription(["foo"])

# regroup's derived topic id of "foo" (coordinator::topics::derived_topic_id), in Kafka's string form.
FOO_ID = "3LJ1GP7Z1XdhwA33Mpi-rQ"

# Two subtopologies over foo(6) and bar(3), as in GroupMetadataManagerTest.
TOPO2 = {"epoch": 0, "subtopologies": [
    {"subtopologyId": "subtopology1", "sourceTopics": ["foo"]},
    {"subtopologyId": "subtopology2", "sourceTopics": ["bar"]},
]}
TOPO1 = {"epoch": 0, "subtopologies": [{"subtopologyId": "subtopology1", "sourceTopics": ["foo"]}]}


class Script:
    def __init__(self, name):
        self.name = name
        self.lines = []
        self.t = 0

    def adv(self, ms):
        self.t += ms
        return self

    def _add(self, obj):
        self.lines.append(dict({"at": self.t}, **obj))
        return self

    def config(self, **kv):
        return self._add({"config": {k.replace("_", "."): v for k, v in kv.items()}})

    def topics(self, *specs):
        ts = []
        for s in specs:
            if isinstance(s, dict):
                ts.append(s)
            else:
                ts.append({"name": s[0], "partitions": s[1]})
        return self._add({"metadata": {"topics": ts}})

    def group_config(self, group, configs):
        return self._add({"groupConfig": {"groupId": group, "configs": configs}})

    def tick(self, ms=0):
        self.t += ms
        return self._add({})

    def req(self, api, version, body, client="client", host="/127.0.0.1"):
        return self._add({"request": {"api": api, "version": version, "body": body},
                          "context": {"clientId": client, "clientHost": host}})

    # Streams groups ---------------------------------------------------------------------------------

    def sjoin(self, member, group="g", topology=TOPO2, process=None, rebalance=30000, version=1, **extra):
        body = {"groupId": group, "memberId": member, "memberEpoch": 0, "rebalanceTimeoutMs": rebalance,
                "topology": topology, "activeTasks": [], "standbyTasks": [], "warmupTasks": [],
                "processId": process or ("process-" + member)}
        body.update(extra)
        return self.req("StreamsGroupHeartbeat", version, body, client="client-" + member)

    def shb(self, member, epoch, group="g", active=None, standby=None, warmup=None, version=1, **extra):
        body = {"groupId": group, "memberId": member, "memberEpoch": epoch}
        if active is not None:
            body["activeTasks"] = tasks(active)
            body["standbyTasks"] = tasks(standby or {})
            body["warmupTasks"] = tasks(warmup or {})
        body.update(extra)
        return self.req("StreamsGroupHeartbeat", version, body, client="client-" + member)

    def sdescribe(self, *groups, version=1, ops=False):
        return self.req("StreamsGroupDescribe", version,
                        {"groupIds": list(groups), "includeAuthorizedOperations": ops}, client="admin")

    # Consumer groups (KIP-848) ----------------------------------------------------------------------

    def cjoin(self, member, topics=("foo",), group="g", rebalance=5000, version=1, instance=None,
              assignor=None, rack=None, client=None, **extra):
        """A ConsumerGroupHeartbeat join (epoch 0, owned []) subscribing to `topics` by name."""
        body = {"groupId": group, "memberId": member, "memberEpoch": 0, "rebalanceTimeoutMs": rebalance,
                "subscribedTopicNames": list(topics), "topicPartitions": []}
        if instance is not None:
            body["instanceId"] = instance
        if assignor is not None:
            body["serverAssignor"] = assignor
        if rack is not None:
            body["rackId"] = rack
        body.update(extra)
        return self.req("ConsumerGroupHeartbeat", version, body, client=client or ("client-" + member))

    def chb(self, member, epoch, group="g", owned=None, version=1, instance=None, client=None, **extra):
        """A ConsumerGroupHeartbeat at `epoch`; `owned` ({topic id: [partitions]}) becomes TopicPartitions."""
        body = {"groupId": group, "memberId": member, "memberEpoch": epoch}
        if owned is not None:
            body["topicPartitions"] = [{"topicId": t, "partitions": list(p)} for t, p in owned.items()]
        if instance is not None:
            body["instanceId"] = instance
        body.update(extra)
        return self.req("ConsumerGroupHeartbeat", version, body, client=client or ("client-" + member))

    def cdescribe(self, *groups, version=1, ops=False):
        return self.req("ConsumerGroupDescribe", version,
                        {"groupIds": list(groups), "includeAuthorizedOperations": ops}, client="admin")

    # Classic groups ---------------------------------------------------------------------------------

    def join(self, member_id="", group="group", instance=None, version=9, session=5000, rebalance=10000,
             protocols=("range",), metadata=SUB, client=None, protocol_type="consumer", reason=None):
        body = {"groupId": group, "sessionTimeoutMs": session, "memberId": member_id,
                "protocolType": protocol_type,
                "protocols": [{"name": p, "metadata": metadata} for p in protocols]}
        if version >= 1:
            body["rebalanceTimeoutMs"] = rebalance
        if instance is not None:
            body["groupInstanceId"] = instance
        if reason is not None:
            body["reason"] = reason
        return self.req("JoinGroup", version, body, client=client or ("client-" + (instance or "dyn")))

    def sync(self, member_id, generation, group="group", instance=None, assignments=None, version=5,
             protocol="range", client=None):
        body = {"groupId": group, "generationId": generation, "memberId": member_id,
                "assignments": [{"memberId": m, "assignment": a} for m, a in (assignments or {}).items()]}
        if instance is not None and version >= 3:
            body["groupInstanceId"] = instance
        if version >= 5:
            body["protocolType"] = "consumer"
            body["protocolName"] = protocol
        return self.req("SyncGroup", version, body, client=client or ("client-" + (instance or "dyn")))

    def hb(self, member_id, generation, group="group", instance=None, version=4):
        body = {"groupId": group, "generationId": generation, "memberId": member_id}
        if instance is not None:
            body["groupInstanceId"] = instance
        return self.req("Heartbeat", version, body, client="client-" + (instance or "dyn"))

    def leave(self, members, group="group", version=5):
        """members: list of (member_id, instance or None); before v3 only the first member id is sent."""
        if version < 3:
            return self.req("LeaveGroup", version, {"groupId": group, "memberId": members[0][0]}, client="admin")
        ms = []
        for m, i in members:
            e = {"memberId": m}
            if i is not None:
                e["groupInstanceId"] = i
            ms.append(e)
        return self.req("LeaveGroup", version, {"groupId": group, "members": ms}, client="admin")

    def commit(self, member_id, generation, group="group", instance=None, topic="foo", partitions=(0,),
               version=9, offset=100):
        body = {"groupId": group, "generationIdOrMemberEpoch": generation, "memberId": member_id,
                "topics": [{"name": topic, "partitions": [
                    {"partitionIndex": p, "committedOffset": offset + p} for p in partitions]}]}
        if instance is not None:
            body["groupInstanceId"] = instance
        return self.req("OffsetCommit", version, body, client="committer")

    def describe(self, *groups, version=6):
        body = {"groups": list(groups)}
        if version >= 3:
            body["includeAuthorizedOperations"] = True
        return self.req("DescribeGroups", version, body, client="admin")

    def expect(self, **parts):
        """What the response to the last request line must hold (partial; a null value means absent or
        null), checked by `regroup conformance` against both coordinators' outputs."""
        assert "request" in self.lines[-1], "expect follows a request"
        self.lines[-1]["expect"] = parts
        return self

    def write(self):
        path = os.path.join(HERE, self.name + ".jsonl")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            for l in self.lines:
                f.write(json.dumps(l, separators=(",", ":")) + "\n")


def tasks(spec):
    return [{"subtopologyId": s, "partitions": list(p)} for s, p in spec.items()]


SCENARIOS = []


def scenario(fn):
    SCENARIOS.append(fn)
    return fn


def streams_setup(name, delay=0, topics=(("foo", 6), ("bar", 3)), **configs):
    s = Script(name)
    cfg = {"group.streams.initial.rebalance.delay.ms": delay}
    cfg.update({k.replace("_", "."): v for k, v in configs.items()})
    s._add({"config": cfg})
    s.topics(*topics)
    return s


def static_pair(s, group="group", session=5000, rebalance=10000, leader_protocols=("range", "roundrobin"),
                version=9):
    """Two static members L and F join with unknown ids and settle at generation 1 (Stable); their ids
    are $gen:<line of the join that handed them out>."""
    jl = len(s.lines) + 1
    s.join(group=group, instance="L", session=session, rebalance=rebalance, protocols=leader_protocols,
           version=version)
    jf = len(s.lines) + 1
    s.join(group=group, instance="F", session=session, rebalance=rebalance, protocols=leader_protocols,
           version=version)
    s.adv(3000).tick()
    s.adv(3000).tick()
    L, F = "$gen:%d" % jl, "$gen:%d" % jf
    s.sync(L, 1, group=group, instance="L",
           assignments={L: consumer_assignment({"foo": [1]}), F: consumer_assignment({"foo": [2]})})
    s.sync(F, 1, group=group, instance="F")
    return L, F


# ---- streams-protocol.md section 8 --------------------------------------------------------------------

@scenario
def s8_01():
    s = streams_setup("s8-01-unknown-streams-group")
    s.shb("member", 100, group="fooup")
    return s


@scenario
def s8_02():
    s = streams_setup("s8-02-unknown-member-id")
    s.sjoin("A", group="fooup")
    s.shb("B", 1, group="fooup")
    return s


@scenario
def s8_03():
    # Reachable version of the epoch validation: a member at epoch E with previous epoch E-1.
    s = streams_setup("s8-03-member-epoch-validation", topics=(("foo", 6),))
    s.sjoin("m1", topology=TOPO1)
    s.sjoin("m2", topology=TOPO1)
    s.shb("m1", 2)
    s.shb("m1", 2, active={"subtopology1": [0, 1, 2]})
    s.shb("m1", 200)
    s.shb("m1", 1)
    s.shb("m1", 2)
    s.shb("m1", 2, active={"subtopology1": [0, 1]})
    s.shb("m1", 3)
    return s


@scenario
def s8_04():
    s = streams_setup("s8-04-owned-tasks-validation", topics=(("foo", 3),))
    s.sjoin("m", topology=TOPO1)
    s.shb("m", 2, active={"subtopologyMissing": [0]})
    s.shb("m", 2, active={"subtopology1": [3]})
    return s


@scenario
def s8_05():
    s = streams_setup("s8-05-max-size", group_streams_max_size=2)
    s.sjoin("m1")
    s.sjoin("m2")
    s.sjoin("m3")
    return s


@scenario
def s8_06():
    s = streams_setup("s8-06-member-joins-empty-group")
    s.sjoin("m")
    return s


@scenario
def s8_07():
    s = streams_setup("s8-07-join-and-describe")
    s.sjoin("m")
    s.req("OffsetCommit", 9, {"groupId": "g", "generationIdOrMemberEpoch": 2, "memberId": "m",
                              "topics": [{"name": "foo", "partitions": [{"partitionIndex": 0, "committedOffset": 5}]}]})
    s.sdescribe("g")
    s.sdescribe("g", version=0, ops=True)
    return s


@scenario
def s8_08():
    s = streams_setup("s8-08-missing-source-topic", topics=(("foo", 6),))
    s.sjoin("m")
    s.sdescribe("g")
    return s


@scenario
def s8_09():
    s = streams_setup("s8-09-missing-internal-topic", topics=(("foo", 6),))
    topo = {"epoch": 0, "subtopologies": [{"subtopologyId": "subtopology1", "sourceTopics": ["foo"],
                                           "stateChangelogTopics": [{"name": "bar", "partitions": 0,
                                                                     "replicationFactor": -1}]}]}
    s.sjoin("m", topology=topo)
    s.sdescribe("g")
    # The broker creates the internal topic; the next heartbeat configures the topology.
    s.adv(100).topics(("foo", 6), ("bar", 6))
    s.shb("m", 2)
    return s


@scenario
def s8_10():
    s = streams_setup("s8-10-incorrectly-partitioned")
    topo = {"epoch": 0, "subtopologies": [{"subtopologyId": "subtopology1", "sourceTopics": ["foo", "bar"],
                                           "copartitionGroups": [{"sourceTopics": [0, 1]}]}]}
    s.sjoin("m", topology=topo)
    s.sdescribe("g")
    return s


@scenario
def s8_11():
    s = streams_setup("s8-11-stale-topology")
    topo1 = dict(TOPO2, epoch=1)
    s.sjoin("m1", topology=topo1)
    s.sjoin("m2", topology=TOPO2)
    s.shb("m2", 3)
    return s


@scenario
def s8_12_13():
    s = streams_setup("s8-12-13-shutdown-application")
    s.sjoin("m1")
    s.sjoin("m2")
    s.shb("m1", 2, shutdownApplication=True)
    s.shb("m2", 3)
    s.shb("m1", -1, shutdownApplication=True)
    s.shb("m2", 3)
    return s


@scenario
def s8_14():
    s = streams_setup("s8-14-member-metadata-change")
    s.sjoin("m")
    s.shb("m", 2, processId="process-new")
    s.shb("m", 3, rackId="rack-1")
    s.shb("m", 3, clientTags=[{"key": "zone", "value": "a"}])
    return s


@scenario
def s8_15():
    s = streams_setup("s8-15-partition-metadata-change")
    s.sjoin("m")
    s.adv(100).topics(("foo", 6), ("bar", 6))
    s.shb("m", 2)
    return s


@scenario
def s8_16_17():
    s = streams_setup("s8-16-17-new-member-and-leaving-member")
    s.sjoin("m1")
    s.sjoin("m2")
    s.shb("m1", 2)
    s.sjoin("m3")
    s.shb("m2", -1)
    s.shb("m1", 2)
    return s


@scenario
def s8_18_19():
    s = streams_setup("s8-18-19-partial-response-and-status", topics=(("foo", 2),))
    s.sjoin("m", topology=TOPO1)
    s.shb("m", 2)
    s.shb("m", 2, version=0)
    return s


@scenario
def s8_20():
    s = streams_setup("s8-20-initial-rebalance-delay", delay=1000, topics=(("foo", 2),))
    s.sjoin("m", topology=TOPO1)
    s.adv(10000).shb("m", 1)
    return s


@scenario
def s8_21():
    s = streams_setup("s8-21-delay-on-empty-group-with-epoch", delay=1000, topics=(("foo", 2),))
    s.sjoin("m1", topology=TOPO1)
    s.adv(1000).shb("m1", 1)
    s.shb("m1", -1)
    s.adv(10).sjoin("m2", topology=TOPO1)
    s.adv(2000).shb("m2", 3)
    return s


@scenario
def s8_22():
    # The reconciliation walk with the real assignor: three members join one after another and each
    # revokes, acknowledges and receives tasks.
    s = streams_setup("s8-22-reconciliation-process")
    s.sjoin("m1")
    s.sjoin("m2")
    s.shb("m1", 2)
    s.shb("m2", 3)
    s.sjoin("m3")
    s.shb("m1", 2)
    s.shb("m2", 3)
    s.shb("m3", 4)
    s.shb("m1", 2, active={"subtopology1": [0, 1], "subtopology2": [0]})
    s.shb("m2", 3)
    s.shb("m3", 4)
    s.shb("m2", 3, active={"subtopology1": [3, 4], "subtopology2": [1]})
    s.shb("m3", 4, active={})
    s.shb("m1", 4)
    s.sdescribe("g")
    return s


@scenario
def s8_23():
    s = streams_setup("s8-23-group-states", topics=(("foo", 2),))
    s.sdescribe("g")
    s.sjoin("m1", topology={"epoch": 0, "subtopologies": [{"subtopologyId": "s", "sourceTopics": ["missing"]}]})
    s.sdescribe("g")
    s.req("ListGroups", 5, {"typesFilter": ["streams"]}, client="admin")
    return s


@scenario
def s8_26_27():
    s = streams_setup("s8-26-27-session-timeout", topics=(("foo", 2),))
    s.sjoin("m", topology=TOPO1)
    s.adv(20000).shb("m", 2)
    s.adv(45000).tick()
    s.shb("m", 2)
    return s


@scenario
def s8_28():
    s = streams_setup("s8-28-rebalance-timeout-lifecycle", topics=(("foo", 3),))
    s.sjoin("m1", topology=TOPO1, rebalance=12000)
    s.sjoin("m2", topology=TOPO1, rebalance=12000)
    s.shb("m1", 2)
    s.shb("m1", 2, active={"subtopology1": [0, 1]})
    s.adv(13000).tick()
    s.shb("m2", 3)
    return s


@scenario
def s8_29():
    s = streams_setup("s8-29-rebalance-timeout-expiration", topics=(("foo", 3),))
    s.sjoin("m1", topology=TOPO1, rebalance=10000)
    s.sjoin("m2", topology=TOPO1, rebalance=10000)
    s.shb("m1", 2)
    s.adv(5000).shb("m2", 3)
    s.adv(5001).tick()
    s.shb("m2", 3)
    return s


@scenario
def s8_30_31():
    s = streams_setup("s8-30-31-endpoint-information", topics=(("foo", 4),),
                      group_streams_assignment_interval_ms=0)
    s.sjoin("m1", topology=TOPO1, userEndpoint={"host": "host1", "port": 9092})
    s.shb("m1", 2, endpointInformationEpoch=1)
    s.sjoin("m2", topology=TOPO1, userEndpoint={"host": "host2", "port": 9093})
    s.shb("m1", 2, endpointInformationEpoch=1)
    s.shb("m1", 2, active={"subtopology1": [0, 1]}, endpointInformationEpoch=1)
    s.shb("m2", 3, endpointInformationEpoch=2)
    return s


@scenario
def s8_32():
    s = streams_setup("s8-32-assignment-config-change")
    s.sjoin("m")
    s.group_config("g", {"streams.num.standby.replicas": "2"})
    s.shb("m", 2)
    return s


@scenario
def s8_33():
    s = streams_setup("s8-33-streams-join-on-classic-groups")
    s.join(group="classic-busy")
    s.join(group="classic-empty")
    s.sjoin("m", group="classic-busy")
    s.sjoin("m", group="classic-empty")
    return s


@scenario
def s8_34():
    s = streams_setup("s8-34-rejoin-with-epoch-zero", topics=(("foo", 3),))
    s.sjoin("m", topology=TOPO1)
    s.shb("m", 2)
    s.sjoin("m", topology=TOPO1)
    return s


@scenario
def s8_35():
    s = streams_setup("s8-35-assignment-interval", topics=(("foo", 6),),
                      group_streams_assignment_interval_ms=5000)
    s.sjoin("m1", topology=TOPO1)
    s.adv(4995).sjoin("m2", topology=TOPO1)
    s.adv(10).shb("m2", 2)
    s.shb("m1", 2)
    return s


@scenario
def s8_37():
    s = streams_setup("s8-37-request-validation")
    base = {"groupId": "g", "memberId": "m", "memberEpoch": 0, "rebalanceTimeoutMs": 1000, "topology": TOPO2,
            "activeTasks": [], "standbyTasks": [], "warmupTasks": []}
    bad = [
        dict(base, memberId=""), dict(base, memberId="  "), dict(base, groupId=""),
        dict(base, rebalanceTimeoutMs=-1), dict(base, activeTasks=None), dict(base, standbyTasks=None),
        dict(base, warmupTasks=None), dict(base, topology=None), dict(base, rackId=""),
        dict(base, memberEpoch=-2), dict(base, memberEpoch=-3), dict(base, memberEpoch=1),
        dict(base, instanceId=""),
        dict(base, topology={"epoch": 0, "subtopologies": [{"subtopologyId": "s", "sourceTopics": ["foo"],
                                                              "stateChangelogTopics": [{"name": "c", "partitions": 3}]}]}),
        dict(base, topology={"epoch": 0, "subtopologies": [{"subtopologyId": "s", "sourceTopicRegex": ["f.*"]}]}),
    ]
    for b in bad:
        s.req("StreamsGroupHeartbeat", 1, b)
    return s


# ---- streams-44-delta.md section 7 ----------------------------------------------------------------------

@scenario
def d7_01_02():
    s = streams_setup("d7-01-02-heartbeat-versions", topics=(("foo", 2),))
    s.sjoin("m0", topology=TOPO1, version=0)
    s.sjoin("m1", topology=TOPO1, version=1)
    return s


@scenario
def d7_03_06():
    s = streams_setup("d7-03-06-missing-client-tags", topics=(("foo", 2),),
                      group_streams_rack_aware_assignment_tags="zone,cluster")
    s.sjoin("m1", topology=TOPO1)
    s.sjoin("m0", topology=TOPO1, version=0)
    s.sjoin("m2", topology=TOPO1, clientTags=[{"key": "cluster", "value": "c1"}])
    s.sjoin("m3", topology=TOPO1, clientTags=[{"key": "cluster", "value": "c1"}, {"key": "zone", "value": "z"}])
    s.group_config("g", {"streams.rack.aware.assignment.tags": "rack"})
    s.shb("m3", 5)
    return s


@scenario
def d7_08_11():
    s = streams_setup("d7-08-11-task-offsets", topics=(("foo", 3),))
    s.sjoin("m", topology=TOPO1)
    s.shb("m", 2, active={"subtopology1": [0, 1, 2]},
          taskOffsets=[{"subtopologyId": "subtopology1", "partition": 0, "offset": 10}],
          taskEndOffsets=[{"subtopologyId": "subtopology1", "partition": 0, "offset": 20}])
    s.shb("m", 2, taskOffsets=[{"subtopologyId": "subtopology1", "partition": 0, "offset": 12}])
    s.sdescribe("g")
    s.shb("m", 2, taskOffsets=[{"subtopologyId": "subtopology1", "partition": 0, "offset": 1},
                               {"subtopologyId": "subtopology1", "partition": 0, "offset": 2}])
    s.shb("m", 2, active={"subtopology1": [3]},
          taskOffsets=[{"subtopologyId": "subtopology1", "partition": 0, "offset": 99}])
    s.shb("m", 2, active={"subtopology1": [0, 1, 2]}, warmup={"subtopology1": [0]})
    s.sdescribe("g")
    return s


@scenario
def d7_12_13():
    s = streams_setup("d7-12-13-evaluated-configs", topics=(("foo", 3),))
    s.group_config("g", {"streams.acceptable.recovery.lag": "50000", "streams.task.offset.interval.ms": "15000"})
    s.sjoin("m", topology=TOPO1)
    s.shb("m", 2)
    return s


@scenario
def d7_18_21():
    s = streams_setup("d7-18-21-static-max-size", topics=(("foo", 4),), group_streams_max_size=2)
    s.shb("ghost", -2, instanceId="unknown-instance")
    s.sjoin("a", topology=TOPO1, instanceId="ia")
    s.sjoin("b", topology=TOPO1, instanceId="ib")
    s.shb("b", -2, instanceId="ib")
    s.sjoin("c", topology=TOPO1, instanceId="ic")
    s.sjoin("b2", topology=TOPO1, instanceId="ib")
    s.sjoin("x", topology=TOPO1, instanceId="ia")
    s.shb("x", 1000, instanceId="ia")
    return s


@scenario
def d7_22():
    s = streams_setup("d7-22-static-join-revoke-receive", topics=(("foo", 4),))
    s.sjoin("m1", topology=TOPO1, instanceId="i1")
    s.sjoin("m2", topology=TOPO1, instanceId="i2")
    s.shb("m1", 2, instanceId="i1")
    s.shb("m1", 2, instanceId="i1", active={"subtopology1": [0, 1]})
    s.shb("m2", 3, instanceId="i2")
    s.shb("m2", 3, instanceId="i2", active={"subtopology1": [2, 3]})
    s.shb("m2", -2, instanceId="i2")
    s.sjoin("m2-new", topology=TOPO1, instanceId="i2")
    s.shb("m2", 3, instanceId="i2")
    return s


@scenario
def d7_23_27():
    s = streams_setup("d7-23-27-static-rejoin-variants", topics=(("foo", 4),))
    s.sjoin("m", topology=TOPO1, instanceId="i")
    s.shb("m", -2, instanceId="i")
    s.sjoin("m-same-process", topology=TOPO1, instanceId="i", process="process-m")
    s.shb("m-same-process", -2, instanceId="i")
    s.req("StreamsGroupHeartbeat", 1, {"groupId": "g", "memberId": "m-other-client", "memberEpoch": 0,
                                       "rebalanceTimeoutMs": 30000, "topology": TOPO1, "activeTasks": [],
                                       "standbyTasks": [], "warmupTasks": [], "processId": "process-m",
                                       "instanceId": "i"}, client="another-client", host="/10.0.0.2")
    s.shb("m-other-client", -2, instanceId="i")
    s.sjoin("m-new-process", topology=TOPO1, instanceId="i", process="process-new")
    s.shb("m-new-process", -2, instanceId="i")
    s.sjoin("m-new-process", topology=TOPO1, instanceId="i", process="process-new")
    s.shb("m-new-process", -1, instanceId="i")
    return s


@scenario
def d7_28_30():
    s = streams_setup("d7-28-30-static-leave-from-unrevoked", topics=(("foo", 4),))
    s.sjoin("s", topology=TOPO1, instanceId="i")
    s.sjoin("d", topology=TOPO1)
    s.shb("s", 2, instanceId="i")
    s.shb("s", -2, instanceId="i")
    s.shb("d", 3)
    s.shb("d", 3, active={})
    s.sjoin("s2", topology=TOPO1, instanceId="i")
    return s


@scenario
def d7_31():
    s = streams_setup("d7-31-static-rejoin-other-rack", topics=(("foo", 4),))
    s.sjoin("m", topology=TOPO1, instanceId="i", rackId="r1")
    s.shb("m", -2, instanceId="i")
    s.sjoin("m2", topology=TOPO1, instanceId="i", rackId="r2")
    return s


@scenario
def d7_32():
    s = streams_setup("d7-32-static-fenced-and-unknown", topics=(("foo", 4),))
    s.sjoin("m", topology=TOPO1, instanceId="i")
    s.shb("other", -2, instanceId="i")
    s.shb("other", 5, instanceId="unknown")
    s.shb("other", 2, instanceId="i")
    return s


@scenario
def d7_33():
    s = streams_setup("d7-33-static-temporary-leave-session-timeout", topics=(("foo", 4),))
    s.sjoin("m", topology=TOPO1, instanceId="i")
    s.shb("m", -2, instanceId="i")
    s.adv(45001).tick()
    s.sdescribe("g")
    return s


@scenario
def d7_35():
    s = streams_setup("d7-35-static-rejoin-endpoint-epochs", topics=(("foo", 4),))
    s.sjoin("m", topology=TOPO1, instanceId="i")
    s.shb("m", -2, instanceId="i")
    s.sjoin("m", topology=TOPO1, instanceId="i", userEndpoint={"host": "bar.com", "port": 8080})
    s.shb("m", -2, instanceId="i")
    s.sjoin("m", topology=TOPO1, instanceId="i")
    s.shb("m", -2, instanceId="i")
    s.sjoin("m", topology=TOPO1, instanceId="i", userEndpoint={"host": "foo.com", "port": 8080})
    s.shb("m", -2, instanceId="i")
    s.sjoin("m", topology=TOPO1, instanceId="i", userEndpoint={"host": "bar.com", "port": 8080})
    return s


@scenario
def d7_36_38():
    s = streams_setup("d7-36-38-mixed-static-dynamic", topics=(("foo", 2),), group_streams_max_size=2)
    s.sjoin("s", topology=TOPO1, instanceId="i")
    s.sjoin("d", topology=TOPO1)
    s.shb("s", 2, instanceId="i")
    s.shb("s", -2, instanceId="i")
    s.shb("d", 3)
    s.sjoin("d2", topology=TOPO1)
    s.adv(45001).tick()
    s.sjoin("d2", topology=TOPO1)
    s.sjoin("s-new", topology=TOPO1, instanceId="i")
    s.shb("s", 2, instanceId="i")
    return s


@scenario
def d7_39():
    s = streams_setup("d7-39-last-member-fenced", topics=(("foo", 2),))
    s.sjoin("m", topology=TOPO1)
    s.adv(45001).tick()
    s.sdescribe("g")
    return s


@scenario
def d7_41():
    s = streams_setup("d7-41-no-description-plugin", topics=(("foo", 2),))
    s.sjoin("m", topology=TOPO1)
    s.req("StreamsGroupTopologyDescriptionUpdate", 0, {"groupId": "g", "memberId": "m", "topologyEpoch": 0,
                                                       "topologyDescription": {"subtopologies": [], "globalStores": []}})
    s.req("StreamsGroupDescribe", 1, {"groupIds": ["g"], "includeTopologyDescription": True}, client="admin")
    s.req("DeleteGroups", 3, {"groupsNames": ["g"]}, client="admin")
    s.shb("m", -1)
    s.req("DeleteGroups", 3, {"groupsNames": ["g"]}, client="admin")
    return s


@scenario
def streams_offsets():
    # Offset commit and fetch validation for streams members (spec section 3.12).
    s = streams_setup("s3-12-streams-offset-validation", topics=(("foo", 2),))
    s.sjoin("m1", topology=TOPO1)
    s.sjoin("m2", topology=TOPO1)
    s.shb("m1", 2)

    def commit(member, epoch, version=9, partition=0):
        s.req("OffsetCommit", version, {"groupId": "g", "generationIdOrMemberEpoch": epoch, "memberId": member,
                                        "topics": [{"name": "foo", "partitions": [
                                            {"partitionIndex": partition, "committedOffset": 7}]}]})
    commit("m1", 2)
    commit("m1", 3)
    commit("m1", 1)
    commit("m1", 2, version=8)
    commit("nobody", 2)
    commit("m2", 3)
    s.req("OffsetFetch", 9, {"groups": [{"groupId": "g", "memberId": "m1", "memberEpoch": 2, "topics": None}]})
    s.req("OffsetFetch", 9, {"groups": [{"groupId": "g", "memberId": "m1", "memberEpoch": 1, "topics": None}]})
    s.req("OffsetFetch", 10, {"groups": [{"groupId": "g", "topics": None}], "requireStable": True})
    s.req("DeleteGroups", 2, {"groupsNames": ["g"]}, client="admin")
    return s


# ---- static-membership.md section 6 -------------------------------------------------------------------

def classic_setup(name, delay=3000, **configs):
    """Kafka's test context takes any session timeout (the shard never checks the bounds); the broker
    checks them, so the minimum is lowered to let the tests' short sessions through."""
    s = Script(name)
    cfg = {"group.initial.rebalance.delay.ms": delay, "group.min.session.timeout.ms": 10}
    cfg.update({k.replace("_", "."): v for k, v in configs.items()})
    s._add({"config": cfg})
    s.topics(("foo", 3), ("bar", 3))
    return s


@scenario
def sm6_01_02():
    s = classic_setup("sm6-01-02-static-first-member")
    s.join(instance="L")
    s.adv(3000).tick()
    s.join(member_id="unknown-member-id", instance="L")
    return s


@scenario
def sm6_03():
    s = classic_setup("sm6-03-replace-static-member-during-delay")
    s.join(instance="X")
    s.join(instance="X")
    s.adv(3000).tick()
    return s


@scenario
def sm6_04():
    # Kafka's test uses v4 through the shard; on the wire a static member needs v5+.
    for v in (5, 9):
        s = classic_setup("sm6-04-replace-in-stable-v%d" % v)
        j = len(s.lines) + 1
        s.join(instance="L", protocols=("range",), version=v)
        s.adv(3000).tick()
        s.sync("$gen:%d" % j, 1, instance="L", assignments={"$gen:%d" % j: consumer_assignment({"foo": [0]})})
        s.join(instance="L", protocols=("range", "roundrobin"), rebalance=7000, session=4500, version=v)
        s.describe("group")
        s.write()
    return None


@scenario
def sm6_05_07():
    s = classic_setup("sm6-05-07-replacement-triggering-rebalance")
    j = len(s.lines) + 1
    s.join(instance="L", protocols=("range", "roundrobin"))
    s.adv(3000).tick()
    s.sync("$gen:%d" % j, 1, instance="L", assignments={"$gen:%d" % j: consumer_assignment({"foo": [0]})})
    s.join(instance="L", protocols=("roundrobin",))
    s.join(instance="L", protocols=("roundrobin",))
    s.describe("group")
    return s


@scenario
def sm6_08_10():
    s = classic_setup("sm6-08-10-fence-duplicate-followers")
    L, F = static_pair(s, session=20000)
    s.join()
    s.join(member_id=F, instance="F")
    s.join(instance="F")
    s.adv(10000).tick()
    s.join(member_id=F, instance="F")
    return s


@scenario
def sm6_09():
    s = classic_setup("sm6-09-fence-duplicate-syncing-follower")
    L, F = static_pair(s, session=500 * 20)
    s.join(member_id=L, instance="L")
    j = len(s.lines) + 1
    s.join(member_id=F, instance="F")
    s.sync(F, 2, instance="F")
    s.join(instance="F")
    s.adv(10000).tick()
    return s


@scenario
def sm6_11():
    s = classic_setup("sm6-11-rejoin-with-known-id")
    j = len(s.lines) + 1
    s.join(instance="L")
    s.adv(3000).tick()
    m = "$gen:%d" % j
    s.join(member_id=m, instance="L")
    s.sync(m, 1, instance="L", assignments={m: consumer_assignment({"foo": [0]})})
    return s


@scenario
def sm6_12():
    for v in (5, 9):
        s = classic_setup("sm6-12-leader-rejoins-unknown-id-v%d" % v)
        L, F = static_pair(s, version=v)
        s.join(instance="L", version=v, protocols=("range", "roundrobin"))
        s.join(member_id=L, instance="L", version=v, protocols=("range", "roundrobin"))
        s.sync(L, 1, instance="L")
        s.sync(L, 1)
        s.write()
    return None


@scenario
def sm6_13():
    s = classic_setup("sm6-13-leader-rejoins-known-id")
    L, F = static_pair(s, session=5000)
    s.join(member_id=L, instance="L", protocols=("range", "roundrobin"))
    s.adv(10000).tick()
    return s


@scenario
def sm6_16_17():
    s = classic_setup("sm6-16-17-follower-changes-protocol")
    L, F = static_pair(s, session=15000)
    s.join(member_id=F, instance="F", protocols=("roundrobin",))
    s.adv(10000).tick()
    s.describe("group")
    return s


@scenario
def sm6_19_21_22():
    s = classic_setup("sm6-19-21-22-follower-rejoins")
    L, F = static_pair(s)
    s.join(member_id=F, instance="F", protocols=("range", "roundrobin"))
    j = len(s.lines) + 1
    s.join(instance="F", protocols=("range",))
    s.join(member_id=F, instance="F", protocols=("range", "roundrobin"))
    s.sync(F, 1, instance="F")
    s.sync("$gen:%d" % j, 1, instance="F")
    return s


@scenario
def sm6_20():
    s = classic_setup("sm6-20-leader-triggers-rebalance-follower-changes-protocol")
    L, F = static_pair(s)
    s.join(member_id=L, instance="L", protocols=("range", "roundrobin"))
    s.join(member_id=F, instance="F", protocols=("range", "roundrobin"))
    s.join(member_id=F, instance="F", protocols=("range",))
    s.adv(5000).tick()
    s.adv(5000).tick()
    return s


@scenario
def sm6_23_25():
    s = classic_setup("sm6-23-25-mismatched-ids")
    L, F = static_pair(s)
    s.join(member_id=F, instance="L", protocols=("range", "roundrobin"))
    s.join(member_id=L, instance="F", protocols=("range", "roundrobin"))
    s.sync("invalid-member-id", 1, instance="F")
    s.hb(L, 1)
    s.hb("invalid-member-id", 1, instance="L")
    return s


@scenario
def sm6_26():
    s = classic_setup("sm6-26-new-id-after-each-rejoin")
    static_pair(s)
    for _ in range(5):
        s.join(instance="L", protocols=("range", "roundrobin"))
    s.describe("group")
    return s


@scenario
def sm6_27():
    s = classic_setup("sm6-27-known-id-unknown-instance")
    L, F = static_pair(s)
    s.join(member_id=L, instance="unknown-instance-id", protocols=("range", "roundrobin"))
    return s


@scenario
def sm6_29_30():
    for who in ("leader", "follower"):
        s = classic_setup("sm6-29-30-%s-fails-to-rejoin" % who)
        L, F = static_pair(s, session=15000)
        s.join(instance="N", protocols=("range", "roundrobin"), session=15000)
        if who == "follower":
            s.join(member_id=L, instance="L", protocols=("range", "roundrobin"), session=15000)
        else:
            s.join(member_id=F, instance="F", protocols=("range", "roundrobin"), session=15000)
        s.adv(10000).tick()
        s.write()
    return None


@scenario
def sm6_31():
    s = classic_setup("sm6-31-no-member-rejoins")
    L, F = static_pair(s, session=60000)
    s.join(member_id=L, instance="L", protocols=("range", "roundrobin"), session=60000)
    s.adv(10000).tick()
    s.adv(10000).tick()
    return s


@scenario
def sm6_32_34():
    s = classic_setup("sm6-32-34-stuck-rebalance-nonjoined-static")
    L, F = static_pair(s, session=10000, rebalance=5000)
    s.join(session=10000, rebalance=5000)
    s.adv(5000).tick()
    s.leave([(F, "F")])
    s.adv(5000).tick()
    s.join(instance="L", session=10000, rebalance=5000, protocols=("range", "roundrobin"))
    return s


@scenario
def sm6_35():
    s = classic_setup("sm6-35-rebalance-completes-before-member-joins")
    j = len(s.lines) + 1
    s.join(instance="S", session=5000, rebalance=10000)
    s.adv(3000).tick()
    S = "$gen:%d" % j
    s.sync(S, 1, instance="S", assignments={S: consumer_assignment({"foo": [0]})})
    d = len(s.lines) + 1
    s.join(session=2500, rebalance=10000)
    s.join(member_id="$gen:%d" % d, session=2500, rebalance=10000)
    s.hb(S, 1, instance="S")
    s.adv(1000).hb(S, 1, instance="S")
    s.adv(10000).tick()
    s.hb(S, 1, instance="S")
    s.adv(5000).hb("$gen:%d" % d, 2)
    return s


@scenario
def sm6_36():
    s = classic_setup("sm6-36-second-member-partially-joins")
    L, F = static_pair(s)
    s.join()
    for _ in range(3):
        s.adv(2000).hb(L, 1, instance="L")
        s.hb(F, 1, instance="F")
    s.describe("group")
    return s


@scenario
def sm6_37():
    s = classic_setup("sm6-37-static-members-max-size", delay=50, group_max_size=3)
    for i in range(4):
        s.join(instance="i%d" % i)
    s.adv(50).tick()
    s.adv(50).tick()
    s.describe("group")
    return s


@scenario
def sm6_38_41():
    s = classic_setup("sm6-38-41-leave-group-variants")
    L, F = static_pair(s)
    s.leave([("other-member-id", "L")])
    s.leave([("", "unknown"), (F, "F")])
    s.leave([(L, "L"), ("invalid", "F")])
    s.leave([("", "L")])
    s.leave([("x", "y")], group="unknown-group")
    s.leave([("x", None)], group="unknown-group", version=2)
    return s


@scenario
def sm6_42_47():
    s = classic_setup("sm6-42-47-pending-members")
    a, b = len(s.lines) + 1, len(s.lines) + 2
    s.join()
    s.join()
    s.join(member_id="$gen:%d" % a)
    s.join(member_id="$gen:%d" % b, session=2500)
    s.adv(3000).tick()
    p = len(s.lines) + 1
    s.join()
    s.leave([("$gen:%d" % p, None)])
    s.adv(3000).tick()
    return s


@scenario
def sm6_43_44():
    s = classic_setup("sm6-43-44-validate-offset-commit")
    s.commit("", -1)
    L, F = static_pair(s)
    s.commit(L, 1)
    s.commit("invalid", 1, instance="L")
    s.commit("", -1)
    s.commit("unknown", 1)
    s.commit(L, 0)
    s.join(member_id=L, instance="L", protocols=("range", "roundrobin"))
    s.join(member_id=F, instance="F", protocols=("range", "roundrobin"))
    s.commit(L, 2)
    s.req("TxnOffsetCommit", 3, {"transactionalId": "t", "groupId": "group", "producerId": 7, "producerEpoch": 0,
                                 "generationIdOrMemberEpoch": -1, "memberId": "", "topics": [{"name": "foo", "partitions": [
                                     {"partitionIndex": 0, "committedOffset": 3}]}]})
    s.req("OffsetFetch", 9, {"groups": [{"groupId": "group", "topics": None}], "requireStable": True})
    return s


@scenario
def sm6_46():
    s = classic_setup("sm6-46-existing-member-rejoins-stable")
    a = len(s.lines) + 1
    s.join(version=3)
    b = len(s.lines) + 1
    s.join(version=3)
    s.adv(3000).tick()
    A, B = "$gen:%d" % a, "$gen:%d" % b
    s.sync(A, 1, version=3, assignments={A: consumer_assignment({"foo": [0]}), B: consumer_assignment({"foo": [1]})})
    s.sync(B, 1, version=3)
    s.join(member_id=B, version=3)
    s.join(member_id=A, version=3)
    return s


@scenario
def sm6_48():
    s = classic_setup("sm6-48a-new-member-join-timeout", delay=600000)
    s.join(version=3)
    s.adv(300000).tick()
    s.describe("group")
    s = classic_setup("sm6-48b-new-member-timeout-completion", delay=0)
    j = len(s.lines) + 1
    s.join(version=3, session=305000)
    s.adv(10).tick()
    s.sync("$gen:%d" % j, 1, version=3)
    s.adv(300000).tick()
    s.adv(5000).tick()
    s.describe("group")
    s.write()
    return None


@scenario
def sm6_49():
    s = classic_setup("sm6-49-sync-timeout-leader-silent")
    ids = []
    for _ in range(3):
        ids.append("$gen:%d" % (len(s.lines) + 1))
        s.join(version=3, rebalance=5000, session=20000)
    s.adv(3000).tick()
    s.sync(ids[1], 1, version=3)
    s.sync(ids[2], 1, version=3)
    s.adv(5000).tick()
    s.hb(ids[0], 1)
    return s


# ---- classic-44-delta.md section 4.1 ------------------------------------------------------------------

@scenario
def c4_01():
    s = classic_setup("c4-01-describe-unknown-group-versions")
    for v in range(0, 7):
        s.describe("group-id", version=v)
    return s


@scenario
def c4_03_07():
    s = streams_setup("c4-03-07-classic-apis-on-streams-groups", topics=(("foo", 2),))
    s.sjoin("m", group="busy", topology=TOPO1)
    s.join(group="busy", version=3)
    s.req("JoinGroup", 9, {"groupId": "busy", "sessionTimeoutMs": 10000, "rebalanceTimeoutMs": 10000,
                           "memberId": "", "protocolType": "consumer", "protocols": []})
    s.sync("m", 1, group="busy")
    s.leave([("m", None)], group="busy")
    s.describe("busy")
    s.sjoin("e", group="empty", topology=TOPO1)
    s.shb("e", -1, group="empty")
    s.join(group="empty", version=4)
    return s


@scenario
def c4_11_13():
    s = classic_setup("c4-11-13-txn-commit-unknown-group-and-generation")
    for v in range(0, 7):
        body = {"transactionalId": "t", "groupId": "nogroup", "producerId": 1, "producerEpoch": 0,
                "topics": [{"name": "foo", "partitions": [{"partitionIndex": 0, "committedOffset": 1}]}]}
        if v >= 3:
            body.update({"generationIdOrMemberEpoch": 10, "memberId": "member"})
        if v >= 6:
            body["topics"] = [{"topicId": FOO_ID, "partitions": [{"partitionIndex": 0, "committedOffset": 1}]}]
        s.req("TxnOffsetCommit", v, body)
    j = len(s.lines) + 1
    s.join(version=3)
    s.adv(3000).tick()
    s.sync("$gen:%d" % j, 1, version=3)
    for v in (3, 6):
        topic = {"topicId": FOO_ID} if v >= 6 else {"name": "foo"}
        topic["partitions"] = [{"partitionIndex": 0, "committedOffset": 1}]
        s.req("TxnOffsetCommit", v, {"transactionalId": "t", "groupId": "group", "producerId": 1,
                                     "producerEpoch": 0, "generationIdOrMemberEpoch": 100,
                                     "memberId": "$gen:%d" % j, "topics": [topic]})
    return s


@scenario
def c4_15_17():
    s = classic_setup("c4-15-17-topic-ids-and-simple-commits")
    s.req("OffsetCommit", 10, {"groupId": "simple", "generationIdOrMemberEpoch": -1, "memberId": "",
                               "groupInstanceId": "instance-id",
                               "topics": [{"topicId": "pQyY7PGeP0Q74dBg1YH9rw", "partitions": [
                                   {"partitionIndex": 0, "committedOffset": 1}]}]})
    s.req("OffsetCommit", 9, {"groupId": "simple", "generationIdOrMemberEpoch": -1, "memberId": "",
                              "groupInstanceId": "instance-id",
                              "topics": [{"name": "foo", "partitions": [
                                  {"partitionIndex": 0, "committedOffset": 100, "committedLeaderEpoch": 1},
                                  {"partitionIndex": 1, "committedOffset": 101, "committedLeaderEpoch": 1},
                                  {"partitionIndex": 7, "committedOffset": 1}]},
                                  {"name": "nosuch", "partitions": [{"partitionIndex": 0, "committedOffset": 1}]}]})
    s.req("OffsetFetch", 10, {"groups": [{"groupId": "simple", "topics": None}]})
    s.req("OffsetFetch", 9, {"groups": [{"groupId": "simple", "topics": [{"name": "foo", "partitionIndexes": [0, 1, 2]}]}]})
    return s


@scenario
def c4_16_deleted_topic_offsets():
    # Kafka deletes the committed offsets of a deleted topic; a re-created topic's commits survive.
    s = classic_setup("c4-16-deleted-topic-offsets")
    s.req("OffsetCommit", 9, {"groupId": "simple", "generationIdOrMemberEpoch": -1, "memberId": "",
                              "topics": [{"name": "foo", "partitions": [
                                  {"partitionIndex": 0, "committedOffset": 100, "committedLeaderEpoch": 1},
                                  {"partitionIndex": 1, "committedOffset": 101, "committedLeaderEpoch": 1}]}]})
    # The topic is deleted and re-created with another id: old offsets are gone.
    s.adv(10).topics(("bar", 3))
    s.adv(10).topics({"name": "foo", "partitions": 3, "topicId": "AAAAAAAAAAAAAAAAAAAAAQ"}, ("bar", 3))
    s.req("OffsetFetch", 9, {"groups": [{"groupId": "simple", "topics": None}]})
    s.req("OffsetCommit", 9, {"groupId": "simple", "generationIdOrMemberEpoch": -1, "memberId": "",
                              "topics": [{"name": "foo", "partitions": [
                                  {"partitionIndex": 2, "committedOffset": 102}]}]})
    # Re-created once more: only the commit made for the second incarnation goes.
    s.adv(10).topics({"name": "foo", "partitions": 3, "topicId": "AAAAAAAAAAAAAAAAAAAAAg"}, ("bar", 3))
    s.req("OffsetFetch", 9, {"groups": [{"groupId": "simple", "topics": None}]})
    return s


@scenario
def offset_delete():
    # OffsetDelete (api 47) on every kind of group the shard holds: KafkaApis' topic checks, the service's
    # group id check, each group type's admission (validateOffsetDelete) and subscription
    # (isSubscribedToTopic), the tombstones of committed and pending offsets, and what is left for the
    # periodic expiration (OffsetDelete never deletes a group).
    s = classic_setup("offset-delete", delay=0, group_streams_initial_rebalance_delay_ms=0)

    def delete(group, topics, client="admin"):
        s.req("OffsetDelete", 0, {"groupId": group, "topics": [
            {"name": t, "partitions": [{"partitionIndex": p} for p in ps]} for t, ps in topics]}, client=client)

    # A simple group (offsets committed without membership).
    s.req("OffsetCommit", 9, {"groupId": "simple", "generationIdOrMemberEpoch": -1, "memberId": "",
                              "topics": [{"name": "bar", "partitions": [
                                  {"partitionIndex": 0, "committedOffset": 100},
                                  {"partitionIndex": 1, "committedOffset": 101}]}]})
    s.req("TxnOffsetCommit", 3, {"transactionalId": "txn", "groupId": "simple", "producerId": 10,
                                 "producerEpoch": 1,
                                 "topics": [{"name": "foo", "partitions": [
                                     {"partitionIndex": 2, "committedOffset": 7}]}]})
    delete("simple", [("bar", [0])])
    # A partition named twice gets two tombstones; a partition without offset none; the pending offset one.
    delete("simple", [("bar", [1, 1, 2]), ("foo", [2])])
    # Unknown topics (even without partitions) and missing partitions are answered by the front end; a known
    # topic without partitions is dropped.
    delete("simple", [("nope", [0, 1]), ("foo", [3, 0, -1]), ("bar", []), ("ghost", [])])
    # OffsetCommit's front end answers an unknown topic without partitions the same way.
    s.req("OffsetCommit", 9, {"groupId": "simple", "generationIdOrMemberEpoch": -1, "memberId": "",
                              "topics": [{"name": "ghost", "partitions": []}, {"name": "foo", "partitions": []},
                                         {"name": "foo", "partitions": [{"partitionIndex": 1, "committedOffset": 1}]}]})
    delete("simple", [("foo", [1])])
    s.req("OffsetFetch", 9, {"groups": [{"groupId": "simple", "topics": None}]})
    # Unknown group (the front end's topic errors are dropped) and empty group id.
    delete("unknown", [("foo", [0]), ("nope", [0])])
    delete("", [("foo", [0])])

    # A classic consumer group subscribed to foo: admitted while CompletingRebalance, then Stable.
    j = len(s.lines) + 1
    s.join(version=3)
    s.adv(1).tick()
    m = "$gen:%d" % j
    delete("group", [("foo", [0]), ("bar", [0])])
    s.sync(m, 1, version=3, assignments={m: consumer_assignment({"foo": [0, 1, 2]})})
    s.commit(m, 1, topic="foo", partitions=(0, 1))
    s.commit(m, 1, topic="bar", partitions=(0, 1))
    delete("group", [("bar", [1]), ("foo", [1, 2])])
    # A Stable classic group of another protocol type: NON_EMPTY_GROUP.
    jc = len(s.lines) + 1
    s.join(group="connect", version=3, protocol_type="connect")
    s.adv(1).tick()
    c = "$gen:%d" % jc
    s.sync(c, 1, group="connect", version=3, assignments={c: consumer_assignment({"bar": [0]})})
    s.commit(c, 1, group="connect", topic="bar", partitions=(0,))
    delete("connect", [("bar", [0])])
    # Once its member left, the consumer group is Empty and consumes nothing.
    s.leave([(m, None)])
    delete("group", [("foo", [0, 1])])
    s.describe("group", "simple")

    # A streams group consuming foo (topology) and committing bar too.
    s.sjoin("m", topology=TOPO1)
    s.shb("m", 2)
    s.req("OffsetCommit", 9, {"groupId": "g", "generationIdOrMemberEpoch": 2, "memberId": "m",
                              "topics": [{"name": "foo", "partitions": [{"partitionIndex": 0, "committedOffset": 5}]},
                                         {"name": "bar", "partitions": [{"partitionIndex": 0, "committedOffset": 6},
                                                                        {"partitionIndex": 1, "committedOffset": 6}]}]},
          client="client-m")
    delete("g", [("foo", [0]), ("bar", [0])])
    s.shb("m", -1)
    delete("g", [("foo", [0])])

    # The periodic expiration then removes the group left empty and without offsets ("simple"); "group" and
    # "g" keep an offset, "connect" its offset too (its member timed out). Only one group goes, as the order
    # in which one expiration visits several groups differs (docs/divergences.md).
    s.adv(600000).tick()
    s.describe("group", "simple", "connect")
    s.sdescribe("g")
    return s


@scenario
def known_refined_cache_relabel():
    # Kafka 4.4.0 re-keys its cached refined assignment (kept per epoch when warm-ups are enabled, the
    # default) from a static member to any member id that presents the member's instance id, before it
    # checks the request: a rejected join (UNRELEASED_INSTANCE_ID) leaves the real member without a slice, and
    # its next heartbeat revokes all its tasks. regroup keeps no such cache (docs/divergences.md).
    s = streams_setup("known-divergences/kafka-refined-cache-relabelled-by-rejected-join", topics=(("foo", 4),))
    s.sjoin("m1", topology=TOPO1, instanceId="i1")
    s.sjoin("m2", topology=TOPO1)
    s.shb("m1", 2, instanceId="i1")
    s.sjoin("intruder", topology=TOPO1, instanceId="i1")
    s.shb("m1", 2, instanceId="i1", active={"subtopology1": [0, 1]})
    return s


@scenario
def metadata_racks():
    # The metadata hash covers the racks of every partition's replicas (sorted, duplicates kept).
    s = Script("s4-5-metadata-hash-with-racks")
    s._add({"config": {"group.streams.initial.rebalance.delay.ms": 0}})
    s.topics({"name": "foo", "partitions": 2, "partitionRacks": [["r1", "r2"], ["r2", "r1", "r1"]]})
    s.sjoin("m", topology=TOPO1)
    s.adv(10).topics({"name": "foo", "partitions": 2, "partitionRacks": [["r3"], []]})
    s.shb("m", 2)
    s.adv(10).topics({"name": "foo", "partitions": 3, "partitionRacks": [["r3"], [], ["r1"]]})
    s.shb("m", 3)
    return s


@scenario
def describe_committed_offset():
    # StreamsGroupDescribe reads at the last committed offset: the topology configured by a heartbeat that
    # wrote nothing is seen only after the shard's next write.
    s = streams_setup("s3-describe-at-committed-offset", topics=(("t1", 2), ("c1", 2)))
    topo = {"epoch": 0, "subtopologies": [{"subtopologyId": "1", "sourceTopics": ["t1"],
                                           "stateChangelogTopics": [{"name": "c1", "partitions": 0}]}]}
    s.sjoin("m", topology=topo)
    s.sdescribe("g")
    s.shb("m", 2)
    s.sdescribe("g")
    s.commit("", -1, group="other", topic="t1")
    s.sdescribe("g")
    s.sjoin("n", topology=topo)
    s.sdescribe("g")
    return s


@scenario
def c4_14_group_expiry():
    # Kafka's periodic clean-up (expire-group-metadata): the left group's offset expires a minute after the
    # group became empty, then the group is deleted.
    s = classic_setup("c4-14-group-and-offset-expiry", delay=0, offsets_retention_minutes=1)
    j = len(s.lines) + 1
    s.join(version=3)
    s.adv(1).tick()
    s.sync("$gen:%d" % j, 1, version=3)
    s.commit("$gen:%d" % j, 1)
    s.leave([("$gen:%d" % j, None)])
    s.adv(600000).tick()
    s.describe("group")
    return s


@scenario
def c4_14_streams_expiry():
    # The periodic clean-up of a streams group (StreamsGroup.offsetExpirationCondition by commit time,
    # isSubscribedToTopic over the configured topology): while the group is Stable, the offsets of a
    # topic no subtopology reads expire a minute after their commit and those of the source topic stay;
    # once the last member left, the rest expire and the group is deleted.
    s = streams_setup("c4-14b-streams-group-and-offset-expiry", topics=(("foo", 2), ("bar", 2)),
                      offsets_retention_minutes=1, offsets_retention_check_interval_ms=5000)
    s.sjoin("m1", topology=TOPO1)
    s.expect(response={"errorCode": 0, "memberEpoch": 2})
    s.adv(100).shb("m1", 2, active={"subtopology1": [0, 1]})
    s.req("OffsetCommit", 9, {"groupId": "g", "generationIdOrMemberEpoch": 2, "memberId": "m1", "topics": [
        {"name": t, "partitions": [{"partitionIndex": 0, "committedOffset": 5}]} for t in ("foo", "bar")]})
    s.expect(response={"topics": [{"name": "foo", "partitions": [{"errorCode": 0}]},
                                  {"name": "bar", "partitions": [{"errorCode": 0}]}]})
    for _ in range(4):
        s.adv(20000).shb("m1", 2)
    s.tick()
    s.req("OffsetFetch", 9, {"groups": [{"groupId": "g", "memberId": "m1", "memberEpoch": 2, "topics": None}]})
    s.expect(response={"groups": [{"errorCode": 0, "topics": [
        {"name": "foo", "partitions": [{"partitionIndex": 0, "committedOffset": 5}]}]}]})
    s.adv(100).shb("m1", -1)
    s.expect(response={"errorCode": 0, "memberEpoch": -1})
    s.sdescribe("g")
    s.expect(response={"groups": [{"errorCode": 0, "groupState": "Empty"}]})
    s.adv(70000).tick()
    s.sdescribe("g")
    s.expect(response={"groups": [{"errorCode": 69}]})
    s.req("OffsetFetch", 9, {"groups": [{"groupId": "g", "memberId": None, "memberEpoch": -1, "topics": None}]})
    s.expect(response={"groups": [{"errorCode": 0, "topics": []}]})
    return s


@scenario
def c4_26_27():
    s = classic_setup("c4-26-27-join-group-all-versions", delay=1000)
    for v in range(0, 10):
        s.req("JoinGroup", v, dict({"groupId": "", "sessionTimeoutMs": 30000, "memberId": "",
                                    "protocolType": "consumer", "protocols": [{"name": "range", "metadata": SUB}]},
                                   **({"rebalanceTimeoutMs": 30000} if v >= 1 else {})))
    for v in range(0, 10):
        s.join(group="g%d" % v, version=v, session=30000)
    s.adv(1000).tick()
    return s


@scenario
def classic_versions_walk():
    # Every classic api at every version on one group (responses are shaped per version).
    s = classic_setup("classic-versions-walk", delay=0)
    j = len(s.lines) + 1
    s.join(version=3)
    s.adv(1).tick()
    m = "$gen:%d" % j
    for v in range(0, 6):
        s.sync(m, 1, version=v, assignments={m: consumer_assignment({"foo": [0, 1, 2]})})
    for v in range(0, 5):
        s.hb(m, 1, version=v)
    for v in range(2, 11):
        s.commit(m, 1, version=v) if v < 10 else s.req(
            "OffsetCommit", 10, {"groupId": "group", "generationIdOrMemberEpoch": 1, "memberId": m,
                                 "topics": [{"topicId": FOO_ID, "partitions": [
                                     {"partitionIndex": 0, "committedOffset": 1}]}]})
    for v in range(1, 11):
        if v >= 8:
            s.req("OffsetFetch", v, {"groups": [{"groupId": "group", "topics": None}]})
        else:
            s.req("OffsetFetch", v, {"groupId": "group",
                                     "topics": [{"name": "foo", "partitionIndexes": [0, 1]}]})
    for v in range(0, 7):
        s.describe("group", "nogroup", version=v)
    for v in range(0, 6):
        s.req("ListGroups", v, {}, client="admin")
    for v in range(0, 3):
        s.req("LeaveGroup", v, {"groupId": "group", "memberId": "nobody"})
    for v in range(0, 4):
        s.req("DeleteGroups", v, {"groupsNames": ["group", "nogroup"]}, client="admin")
    return s


# ---- The rude client (sim/src/rude.rs) -----------------------------------------------------------------

RUDE_TOPO = {"epoch": 0, "subtopologies": [{"subtopologyId": "s1", "sourceTopics": ["foo"]}]}
UNKNOWN_TOPIC_ID = "AAAAAAAAAAAAAAAAAAAAAQ"


def rude_expect(s, **response):
    return s.expect(response=response)


@scenario
def rude_client():
    # Requests no modelled client sends, each answered without another request's help, with what the
    # answer must hold. `regroup conformance` holds these expects against Kafka 4.4.0's coordinator;
    # the catalogue's `rude-client` scenario sends the same lines over the simulated network
    # (sim/src/rude.rs) and holds them against regroup's brokers. Kafka's default configs only: the
    # scenario's cluster runs with them. Groups: rude-streams, rude-simple, rude-txn, rude-old,
    # rude-static, rude-static9.
    s = Script("rude-client")
    s.topics(("foo", 3), ("bar", 3), ("rude-topo-changelog", 3))
    inv = 42  # INVALID_REQUEST
    base = {"groupId": "rude-streams", "memberId": "rude-m1", "memberEpoch": 0, "rebalanceTimeoutMs": 30000,
            "topology": RUDE_TOPO, "activeTasks": [], "standbyTasks": [], "warmupTasks": [],
            "processId": "rude-process"}
    bad = [
        (dict(base, memberId="  "), "MemberId can't be empty."),
        (dict(base, groupId=""), "GroupId can't be empty."),
        (dict(base, instanceId=" "), "InstanceId can't be empty."),
        (dict(base, rackId=""), "RackId can't be empty."),
        (dict(base, rebalanceTimeoutMs=-1), "RebalanceTimeoutMs must be provided in first request."),
        (dict(base, activeTasks=None), "ActiveTasks must be empty when (re-)joining."),
        (dict(base, standbyTasks=[{"subtopologyId": "s1", "partitions": [0]}]),
         "StandbyTasks must be empty when (re-)joining."),
        (dict(base, warmupTasks=None), "WarmupTasks must be empty when (re-)joining."),
        (dict(base, topology=None), "Topology must be non-null when (re-)joining."),
        (dict(base, memberEpoch=-2, topology=None), "InstanceId can't be null."),
        (dict(base, memberEpoch=-3, topology=None), "MemberEpoch is -3, but must be greater than or equal to -2."),
        (dict(base, memberEpoch=1, topology=None, standbyTasks=None),
         "If one task-type is non-null, all must be non-null."),
        (dict(base, memberEpoch=1, topology=None, activeTasks=None, standbyTasks=None),
         "If one task-type is non-null, all must be non-null."),
        (dict(base, memberEpoch=1), "Topology can only be provided when (re-)joining."),
        (dict(base, topology={"epoch": 0, "subtopologies": [{"subtopologyId": "s1", "sourceTopicRegex": ["f.*"]}]}),
         "Regular expressions for source topics are not supported yet."),
    ]
    for body, message in bad:
        s.req("StreamsGroupHeartbeat", 1, body)
        rude_expect(s, errorCode=inv, errorMessage=message)
    # The broker's own checks of a topology (KafkaApis): invalid and internal topic names.
    s.req("StreamsGroupHeartbeat", 1, dict(base, topology={"epoch": 0, "subtopologies": [
        {"subtopologyId": "s1", "sourceTopics": ["foo"],
         "stateChangelogTopics": [{"name": "rude changelog"}]}]}))
    rude_expect(s, errorCode=130, errorMessage="Topic names rude changelog are not valid topic names.")
    s.req("StreamsGroupHeartbeat", 1, dict(base, topology={"epoch": 0, "subtopologies": [
        {"subtopologyId": "s1", "sourceTopics": ["__consumer_offsets"]}]}))
    rude_expect(s, errorCode=130,
                errorMessage="Use of Kafka internal topics __consumer_offsets in a Kafka Streams topology is prohibited.")
    s.req("StreamsGroupHeartbeat", 1, dict(base, topology={"epoch": 0, "subtopologies": [
        {"subtopologyId": "s1", "sourceTopics": ["foo"],
         "stateChangelogTopics": [{"name": "rude-changelog", "partitions": 3}]}]}))
    rude_expect(s, errorCode=130,
                errorMessage="Changelog topic rude-changelog must have an undefined partition count, but it is set to 3.")
    # A member joins; fetches and commits that do not name it at its epoch are refused.
    s.req("StreamsGroupHeartbeat", 1, base)
    rude_expect(s, errorCode=0)
    # UNKNOWN_MEMBER_ID 25, STALE_MEMBER_EPOCH 113, UNSUPPORTED_VERSION 35. A null member id with an
    # epoch is UNKNOWN_SERVER_ERROR -1 (Kafka's member lookup throws a NullPointerException).
    for member, epoch, error in (("ghost", -1, 25), ("rude-m1", 99, 113), (None, 5, -1)):
        s.req("OffsetFetch", 9, {"groups": [{"groupId": "rude-streams", "memberId": member, "memberEpoch": epoch,
                                             "topics": [{"name": "foo", "partitionIndexes": [0]}]}]})
        rude_expect(s, groups=[{"errorCode": error, "topics": []}])
    s.req("OffsetCommit", 9, {"groupId": "rude-streams", "generationIdOrMemberEpoch": 99, "memberId": "rude-m1",
                              "topics": [{"name": "foo", "partitions": [{"partitionIndex": 0, "committedOffset": 5}]}]})
    rude_expect(s, topics=[{"partitions": [{"errorCode": 113}]}])
    s.req("OffsetCommit", 8, {"groupId": "rude-streams", "generationIdOrMemberEpoch": 1, "memberId": "rude-m1",
                              "topics": [{"name": "foo", "partitions": [{"partitionIndex": 0, "committedOffset": 5}]}]})
    rude_expect(s, topics=[{"partitions": [{"errorCode": 35}]}])
    # Below v6 a transactional commit's STALE_MEMBER_EPOCH becomes ILLEGAL_GENERATION, no other error.
    for version in (3, 5):
        s.req("TxnOffsetCommit", version, {"transactionalId": "rude-t", "groupId": "rude-streams", "producerId": 7,
                                           "producerEpoch": 0, "generationIdOrMemberEpoch": 1, "memberId": "ghost",
                                           "topics": [{"name": "foo", "partitions": [
                                               {"partitionIndex": 0, "committedOffset": 5}]}]})
        rude_expect(s, topics=[{"partitions": [{"errorCode": 25}]}])

    # A simple group (offsets only): commits by partition, metadata size, generation without member.
    commit = lambda partitions, **extra: s.req("OffsetCommit", 8, dict({
        "groupId": "rude-simple", "generationIdOrMemberEpoch": -1, "memberId": "",
        "topics": [{"name": t, "partitions": [dict({"partitionIndex": p, "committedOffset": 10 + p}, **m)
                                              for p, m in ps]} for t, ps in partitions]}, **extra))
    commit([("foo", [(0, {"committedMetadata": "m0"}), (1, {"committedLeaderEpoch": 4})])])
    rude_expect(s, topics=[{"name": "foo", "partitions": [{"partitionIndex": 0, "errorCode": 0},
                                                          {"partitionIndex": 1, "errorCode": 0}]}])
    commit([("foo", [(2, {"committedMetadata": "x" * 4097})])])
    rude_expect(s, topics=[{"partitions": [{"partitionIndex": 2, "errorCode": 12}]}])  # OFFSET_METADATA_TOO_LARGE
    commit([("foo", [(7, {}), (2, {}), (-1, {})]), ("nosuch", [(0, {})])])
    # UNKNOWN_TOPIC_OR_PARTITION 3: the refused partitions first, the coordinator's answers merged in.
    rude_expect(s, topics=[{"name": "foo", "partitions": [{"partitionIndex": 7, "errorCode": 3},
                                                          {"partitionIndex": -1, "errorCode": 3},
                                                          {"partitionIndex": 2, "errorCode": 0}]},
                           {"name": "nosuch", "partitions": [{"partitionIndex": 0, "errorCode": 3}]}])
    commit([("foo", [(0, {})])], generationIdOrMemberEpoch=3)
    rude_expect(s, topics=[{"partitions": [{"errorCode": 25}]}])
    # A generation for a group that does not exist: ILLEGAL_GENERATION 22 below v9, GROUP_ID_NOT_FOUND 69 from it.
    for version, error in ((8, 22), (9, 69)):
        s.req("OffsetCommit", version, {"groupId": "rude-nogroup", "generationIdOrMemberEpoch": 5, "memberId": "x",
                                        "topics": [{"name": "foo", "partitions": [
                                            {"partitionIndex": 0, "committedOffset": 1}]}]})
        rude_expect(s, topics=[{"partitions": [{"errorCode": error}]}])
    # v10 names topics by id: two unknown ids answer as two topics, each UNKNOWN_TOPIC_ID 100.
    other_id = "AAAAAAAAAAAAAAAAAAAAAg"
    s.req("OffsetCommit", 10, {"groupId": "rude-simple", "generationIdOrMemberEpoch": -1, "memberId": "",
                               "topics": [{"topicId": tid, "partitions": [{"partitionIndex": p, "committedOffset": 1}]}
                                          for tid, p in ((UNKNOWN_TOPIC_ID, 0), (other_id, 1), (UNKNOWN_TOPIC_ID, 2))]})
    rude_expect(s, topics=[{"topicId": UNKNOWN_TOPIC_ID, "partitions": [{"partitionIndex": 0, "errorCode": 100},
                                                                        {"partitionIndex": 2, "errorCode": 100}]},
                           {"topicId": other_id, "partitions": [{"partitionIndex": 1, "errorCode": 100}]}])
    s.req("OffsetFetch", 7, {"groupId": "rude-simple", "requireStable": True,
                             "topics": [{"name": "foo", "partitionIndexes": [0, 1, 2]}]})
    rude_expect(s, errorCode=0, topics=[{"partitions": [
        {"partitionIndex": 0, "committedOffset": 10, "committedLeaderEpoch": -1, "metadata": "m0", "errorCode": 0},
        {"partitionIndex": 1, "committedOffset": 11, "committedLeaderEpoch": 4, "metadata": "", "errorCode": 0},
        {"partitionIndex": 2, "committedOffset": 12, "committedLeaderEpoch": -1, "metadata": "", "errorCode": 0}]}])
    s.req("OffsetFetch", 10, {"groups": [{"groupId": "rude-simple", "topics": [
        {"topicId": UNKNOWN_TOPIC_ID, "partitionIndexes": [0]}]}]})
    rude_expect(s, groups=[{"errorCode": 0, "topics": [{"partitions": [
        {"partitionIndex": 0, "committedOffset": -1, "errorCode": 100}]}]}])  # UNKNOWN_TOPIC_ID
    # By the id of a live topic: a partition the topic lacks is refused before the coordinator sees
    # the request and its answer merged into the same topic (OffsetCommitResponse.Builder.merge keys
    # v10 topics by id); the offsets committed by name above are fetched by id too.
    s.req("OffsetCommit", 10, {"groupId": "rude-simple", "generationIdOrMemberEpoch": -1, "memberId": "",
                               "topics": [{"topicId": FOO, "partitions": [
                                   {"partitionIndex": 99, "committedOffset": 5},
                                   {"partitionIndex": 0, "committedOffset": 20}]}]})
    rude_expect(s, topics=[{"topicId": FOO, "partitions": [{"partitionIndex": 99, "errorCode": 3},
                                                           {"partitionIndex": 0, "errorCode": 0}]}])
    s.req("OffsetFetch", 10, {"groups": [{"groupId": "rude-simple", "topics": [
        {"topicId": FOO, "partitionIndexes": [0, 1, 2]}]}]})
    rude_expect(s, groups=[{"errorCode": 0, "topics": [{"topicId": FOO, "partitions": [
        {"partitionIndex": 0, "committedOffset": 20, "errorCode": 0},
        {"partitionIndex": 1, "committedOffset": 11, "errorCode": 0},
        {"partitionIndex": 2, "committedOffset": 12, "errorCode": 0}]}]}])

    # Transactional commits: group and generation checks by version, a pending offset.
    txn = lambda version, group, generation, **extra: s.req("TxnOffsetCommit", version, dict({
        "transactionalId": "rude-t", "groupId": group, "producerId": 9, "producerEpoch": 0,
        "generationIdOrMemberEpoch": generation, "memberId": "",
        "topics": [{"name": "foo", "partitions": [{"partitionIndex": 0, "committedOffset": 3}]}]}, **extra))
    txn(3, "rude-nogroup", 10)
    rude_expect(s, topics=[{"partitions": [{"errorCode": 22}]}])  # ILLEGAL_GENERATION (v6+: GROUP_ID_NOT_FOUND)
    txn(3, "", -1)
    rude_expect(s, topics=[{"partitions": [{"errorCode": 24}]}])  # INVALID_GROUP_ID
    txn(3, "rude-txn", -1)
    rude_expect(s, topics=[{"name": "foo", "partitions": [{"partitionIndex": 0, "errorCode": 0}]}])
    # The offset is pending (no marker ends the transaction): UNSTABLE_OFFSET_COMMIT 88 when asked stable.
    for stable, error in ((True, 88), (False, 0)):
        s.req("OffsetFetch", 7, {"groupId": "rude-txn", "requireStable": stable,
                                 "topics": [{"name": "foo", "partitionIndexes": [0]}]})
        rude_expect(s, topics=[{"partitions": [{"committedOffset": -1, "errorCode": error}]}])

    # Old versions of the classic protocol: a JoinGroup v3 member (no MEMBER_ID_REQUIRED before v4)
    # leaves with LeaveGroup v1 (one member, a top-level error); LeaveGroup v3 answers per member.
    jl = len(s.lines) + 1
    s.join(group="rude-old", version=3, session=30000, rebalance=30000)
    rude_expect(s, errorCode=0, generationId=1, leader="$gen:%d" % jl, memberId="$gen:%d" % jl)
    s.adv(3000).tick()
    s.sync("$gen:%d" % jl, 1, group="rude-old", version=2,
           assignments={"$gen:%d" % jl: consumer_assignment({"foo": [0, 1, 2]})})
    rude_expect(s, errorCode=0)
    s.req("LeaveGroup", 3, {"groupId": "rude-old", "members": [{"memberId": "nobody"}]})
    rude_expect(s, errorCode=0, members=[{"memberId": "nobody", "errorCode": 25}])
    s.req("LeaveGroup", 1, {"groupId": "rude-old", "memberId": "nobody"})
    rude_expect(s, errorCode=25)
    s.req("LeaveGroup", 1, {"groupId": "rude-old", "memberId": "$gen:%d" % jl})
    rude_expect(s, errorCode=0)
    # A join to an Empty (here: new) group needs a protocol type and at least one protocol:
    # INCONSISTENT_GROUP_PROTOCOL 23 otherwise.
    for protocol_type, protocols in (("consumer", ()), ("", ("range",))):
        s.join(group="rude-noproto", version=3, session=30000, rebalance=30000, protocol_type=protocol_type,
               protocols=protocols)
        rude_expect(s, errorCode=23)

    # A static member that restarts (JoinGroup with its instance id and no member id) while its group
    # is Stable: below v9 it is told the old leader id and no members (KAFKA-8500), from v9 on the
    # new id leads and gets the members.
    for group, version in (("rude-static", 5), ("rude-static9", 9)):
        first = len(s.lines) + 1
        s.join(group=group, instance="rude-i", version=version, session=30000, rebalance=30000)
        rude_expect(s, errorCode=0, generationId=1, leader="$gen:%d" % first)
        s.adv(3000).tick()
        s.sync("$gen:%d" % first, 1, group=group, instance="rude-i", version=5 if version >= 5 else 3,
               assignments={"$gen:%d" % first: consumer_assignment({"foo": [0]})})
        rude_expect(s, errorCode=0)
        again = len(s.lines) + 1
        s.join(group=group, instance="rude-i", version=version, session=30000, rebalance=30000)
        if version >= 9:
            rude_expect(s, errorCode=0, generationId=1, leader="$gen:%d" % again, memberId="$gen:%d" % again,
                        skipAssignment=True, members=[{"memberId": "$gen:%d" % again, "groupInstanceId": "rude-i"}])
        else:
            rude_expect(s, errorCode=0, generationId=1, leader="$gen:%d" % first, memberId="$gen:%d" % again,
                        members=[])

    # One group id, two group types (getOrMaybeCreateStreamsGroup, getOrMaybeCreateClassicGroup): no
    # modelled application shares its group id with one of the other type. A streams join names a
    # classic group with a member: refused. A classic group its last member left: a streams join
    # converts it (the classic group's tombstones, then a new streams group at epoch 1), and a streams
    # heartbeat past the join names no member of it. A classic join names a streams group: refused.
    busy = len(s.lines) + 1
    s.join(group="rude-busy", instance="rude-bi", version=9, session=30000, rebalance=30000)
    rude_expect(s, errorCode=0, generationId=1, leader="$gen:%d" % busy)
    s.adv(3000).tick()
    s.sjoin("rude-bm", group="rude-busy", topology=RUDE_TOPO, process="rude-process")
    rude_expect(s, errorCode=69, errorMessage="Group rude-busy is not a streams group.")  # GROUP_ID_NOT_FOUND
    for group, epoch in (("rude-conv", 0), ("rude-conv2", 1)):
        left = len(s.lines) + 1
        s.join(group=group, version=3, session=30000, rebalance=30000)
        rude_expect(s, errorCode=0, generationId=1, memberId="$gen:%d" % left)
        s.adv(3000).tick()
        s.req("LeaveGroup", 1, {"groupId": group, "memberId": "$gen:%d" % left})
        rude_expect(s, errorCode=0)
        if epoch == 0:
            s.sjoin("rude-cm", group=group, topology=RUDE_TOPO, process="rude-process")
            rude_expect(s, errorCode=0, memberId="rude-cm", memberEpoch=1)
        else:
            s.req("StreamsGroupHeartbeat", 1, {"groupId": group, "memberId": "rude-cm", "memberEpoch": 1,
                                               "activeTasks": [], "standbyTasks": [], "warmupTasks": []})
            rude_expect(s, errorCode=69, errorMessage="Group rude-conv2 is not a streams group.")
    s.join(group="rude-streams", version=3, session=30000, rebalance=30000)
    rude_expect(s, errorCode=23)  # INCONSISTENT_GROUP_PROTOCOL

    # A member's metadata changes without a rejoin (updatedMember, hasMemberEpochRelevantChange):
    # a stateful topology whose changelog topic exists, described as configured (partition counts
    # resolved); a new rebalance timeout updates the member without an epoch bump or task lists in
    # the answer; a new rack, client tags or process id each bump the group epoch; a new endpoint
    # is taken from a heartbeat past the join.
    E = RUDE_TOPO_EPOCHS
    topo = {"epoch": 0, "subtopologies": [{"subtopologyId": "s1", "sourceTopics": ["foo"],
                                           "stateChangelogTopics": [{"name": "rude-topo-changelog"}]}]}
    s.sjoin("rude-t1", group="rude-topo", topology=topo, process="rude-tp")
    rude_expect(s, errorCode=0, memberEpoch=E[0])
    s.adv(3500).tick()  # the initial rebalance delay
    s.shb("rude-t1", E[0], group="rude-topo")
    rude_expect(s, errorCode=0, memberEpoch=E[1], activeTasks=[{"subtopologyId": "s1", "partitions": [0, 1, 2]}])
    s.shb("rude-t1", E[1], group="rude-topo", active={"s1": [0, 1, 2]})
    rude_expect(s, errorCode=0, memberEpoch=E[1])
    s.sdescribe("rude-topo")
    rude_expect(s, groups=[{"errorCode": 0, "groupState": "Stable", "groupEpoch": E[1],
                            "topology": {"epoch": 0, "subtopologies": [
                                {"subtopologyId": "s1", "stateChangelogTopics": [
                                    {"name": "rude-topo-changelog", "partitions": 3}]}]}}])
    # Every change below bumps the group epoch (the rebalance timeout too: Kafka 4.4's
    # updatedMember writes the member and the epoch); the next target waits for the assignment
    # interval, so each change is followed by a heartbeat past it, at the new epoch.
    changes = [{"rebalanceTimeoutMs": 40000}, {"rackId": "rude-rack"},
               {"clientTags": [{"key": "zone", "value": "z1"}]}, {"processId": "rude-tp2"},
               {"userEndpoint": {"host": "rude-host", "port": 7}}]
    for i, change in enumerate(changes):
        s.adv(100).shb("rude-t1", E[1 + i], group="rude-topo", **change)
        rude_expect(s, errorCode=0, memberEpoch=E[1 + i], activeTasks=None, standbyTasks=None, warmupTasks=None)
        s.adv(5000).shb("rude-t1", E[1 + i], group="rude-topo")
        rude_expect(s, errorCode=0, memberEpoch=E[2 + i])
        s.sdescribe("rude-topo")
        described = {"rebalanceTimeoutMs": {}}.get(next(iter(change)), change)
        rude_expect(s, groups=[{"errorCode": 0, "groupState": "Stable", "groupEpoch": E[2 + i],
                                "members": [dict({"memberId": "rude-t1"}, **described)]}])

    # Offsets that expire (cleanupGroupMetadata, every offsets.retention.check.interval.ms, 10 minutes
    # by default: the first run is at 600 s of the script and of the simulation alike, since both
    # load the shard at once). OffsetCommit v2-v4 may carry a retention time: the offset then expires
    # at commit time + that, whatever the group. In a Stable consumer group only the offsets of topics
    # no member's subscription names may expire (isSubscribedToTopic); the subscriptions here are
    # version 0, which ends exactly at its (null) user data; one names no topic at all, one a
    # zero-length name.
    def v2_commit(group, member, generation, partitions):
        s.req("OffsetCommit", 2, {"groupId": group, "generationIdOrMemberEpoch": generation, "memberId": member,
                                  "retentionTimeMs": 1000, "topics": [
                                      {"name": t, "partitions": [{"partitionIndex": p, "committedOffset": 20 + p}]}
                                      for t, p in partitions]})
    for group, topics in (("rude-v0", ["foo"]), ("rude-v0e", []), ("rude-v0n", [""])):
        j = len(s.lines) + 1
        s.join(group=group, version=3, session=1200000, rebalance=30000, metadata=consumer_subscription(topics))
        rude_expect(s, errorCode=0, generationId=1, leader="$gen:%d" % j)
        s.adv(3000).tick()
        s.sync("$gen:%d" % j, 1, group=group, version=3,
               assignments={"$gen:%d" % j: consumer_assignment({"foo": [0]})})
        rude_expect(s, errorCode=0)
        v2_commit(group, "$gen:%d" % j, 1, [("foo", 0), ("bar", 0)])
        rude_expect(s, topics=[{"name": "foo", "partitions": [{"errorCode": 0}]},
                               {"name": "bar", "partitions": [{"errorCode": 0}]}])
        if group == "rude-v0":
            # A join to the Stable group must match its protocol type and name a protocol every
            # member supports (ClassicGroup.supportsProtocols): INCONSISTENT_GROUP_PROTOCOL 23.
            for protocol_type, protocols in (("connect", ("range",)), ("consumer", ("sticky",))):
                s.join(group=group, version=3, session=1200000, rebalance=30000, protocol_type=protocol_type,
                       protocols=protocols)
                rude_expect(s, errorCode=23)
    v2_commit("rude-retain", "", -1, [("foo", 0)])
    rude_expect(s, topics=[{"partitions": [{"errorCode": 0}]}])
    s.req("OffsetCommit", 8, {"groupId": "rude-retain", "generationIdOrMemberEpoch": -1, "memberId": "",
                              "topics": [{"name": "foo", "partitions": [{"partitionIndex": 1, "committedOffset": 31}]}]})
    rude_expect(s, topics=[{"partitions": [{"errorCode": 0}]}])
    s.t = max(s.t, 640000)
    fetched = lambda group: s.req("OffsetFetch", 7, {"groupId": group, "requireStable": False, "topics": [
        {"name": "foo", "partitionIndexes": [0, 1]}, {"name": "bar", "partitionIndexes": [0]}]})
    fetched("rude-v0")
    rude_expect(s, topics=[{"name": "foo", "partitions": [{"partitionIndex": 0, "committedOffset": 20},
                                                          {"partitionIndex": 1, "committedOffset": -1}]},
                           {"name": "bar", "partitions": [{"partitionIndex": 0, "committedOffset": -1}]}])
    fetched("rude-v0e")
    rude_expect(s, topics=[{"name": "foo", "partitions": [{"partitionIndex": 0, "committedOffset": -1},
                                                          {"partitionIndex": 1, "committedOffset": -1}]},
                           {"name": "bar", "partitions": [{"partitionIndex": 0, "committedOffset": -1}]}])
    # A zero-length topic name is a name like any other (it names no topic here): both offsets expire.
    fetched("rude-v0n")
    rude_expect(s, topics=[{"name": "foo", "partitions": [{"partitionIndex": 0, "committedOffset": -1},
                                                          {"partitionIndex": 1, "committedOffset": -1}]},
                           {"name": "bar", "partitions": [{"partitionIndex": 0, "committedOffset": -1}]}])
    fetched("rude-retain")
    rude_expect(s, topics=[{"name": "foo", "partitions": [{"partitionIndex": 0, "committedOffset": -1},
                                                          {"partitionIndex": 1, "committedOffset": 31}]},
                           {"name": "bar", "partitions": [{"partitionIndex": 0, "committedOffset": -1}]}])
    return s


# The group epochs of rude-topo: after the join, then after each of the three epoch-relevant changes.
RUDE_TOPO_EPOCHS = (1, 2, 3, 4, 5, 6, 7)


@scenario
def rude_replicas():
    # Three standby replicas (the catalogue's `rude-replicas` scenario, sim/src/rude.rs): four
    # processes, two stateful tasks, so every process holds every task, the active on one and a
    # standby on each of the three others (StickyTaskAssignor keeps one copy of a task per process;
    # the fourth copy of a task is the first a holder set of two does not hold inline). Group: rude-rp.
    s = Script("rude-replicas")
    s.config(**{"group.streams.max.standby.replicas": 3, "group.streams.num.standby.replicas": 3})
    s.topics(("foo", 2), ("rude-rp-changelog", 2))
    topo = {"epoch": 0, "subtopologies": [{"subtopologyId": "s1", "sourceTopics": ["foo"],
                                           "stateChangelogTopics": [{"name": "rude-rp-changelog"}]}]}
    members = ["rude-r1", "rude-r2", "rude-r3", "rude-r4"]
    for m in members:
        s.sjoin(m, group="rude-rp", topology=topo, process=m + "-p")
        rude_expect(s, errorCode=0)
    s.adv(3500)  # the initial rebalance delay
    both = [{"subtopologyId": "s1", "partitions": [0, 1]}]
    one = lambda p: [{"subtopologyId": "s1", "partitions": [p]}]
    for m, active, standby in (("rude-r1", [], both), ("rude-r2", [], both),
                               ("rude-r3", one(1), one(0)), ("rude-r4", one(0), one(1))):
        s.shb(m, 1, group="rude-rp")
        rude_expect(s, errorCode=0, memberEpoch=5, activeTasks=active, standbyTasks=standby)
    return s


@scenario
def rude_standbys():
    # A member that must give up a standby task and nothing else (the catalogue's `rude-standbys`
    # scenario sends the same lines, sim/src/rude.rs): while its heartbeat still reports the standby
    # (TasksTuple.containsAny over the tasks pending revocation, standbys included) it keeps its
    # epoch; once it reports it gone, it moves to the group's. One standby replica (the scenario's
    # broker config), a stateful topology whose changelog topic exists. Group: rude-sb.
    s = Script("rude-standbys")
    s.config(**{"group.streams.num.standby.replicas": 1})
    s.topics(("foo", 3), ("rude-sb-changelog", 3), ("rude-wide", 16))
    topo = {"epoch": 0, "subtopologies": [{"subtopologyId": "s1", "sourceTopics": ["foo"],
                                           "stateChangelogTopics": [{"name": "rude-sb-changelog"}]}]}
    s.sjoin("rude-b1", group="rude-sb", topology=topo, process="rude-bp1")
    rude_expect(s, errorCode=0, memberEpoch=1)
    s.sjoin("rude-b2", group="rude-sb", topology=topo, process="rude-bp2")
    rude_expect(s, errorCode=0, memberEpoch=1)
    s.adv(3500).shb("rude-b1", 1, group="rude-sb")  # the initial rebalance delay
    rude_expect(s, errorCode=0, memberEpoch=3, activeTasks=[{"subtopologyId": "s1", "partitions": [0, 2]}],
                standbyTasks=[{"subtopologyId": "s1", "partitions": [1]}])
    s.shb("rude-b2", 1, group="rude-sb")
    rude_expect(s, errorCode=0, memberEpoch=3, activeTasks=[{"subtopologyId": "s1", "partitions": [1]}],
                standbyTasks=[{"subtopologyId": "s1", "partitions": [0, 2]}])
    s.shb("rude-b1", 3, group="rude-sb", active={"s1": [0, 2]}, standby={"s1": [1]})
    rude_expect(s, errorCode=0, memberEpoch=3)
    s.shb("rude-b2", 3, group="rude-sb", active={"s1": [1]}, standby={"s1": [0, 2]})
    rude_expect(s, errorCode=0, memberEpoch=3)
    # A third process: rude-b2 keeps its active task and gives up standby 2.
    s.adv(100).sjoin("rude-b3", group="rude-sb", topology=topo, process="rude-bp3")
    rude_expect(s, errorCode=0)  # its epoch depends on whether the assignment interval has passed
    s.adv(5000).shb("rude-b2", 3, group="rude-sb")
    rude_expect(s, errorCode=0, memberEpoch=3, activeTasks=[{"subtopologyId": "s1", "partitions": [1]}],
                standbyTasks=[{"subtopologyId": "s1", "partitions": [0]}])
    s.adv(100).shb("rude-b2", 3, group="rude-sb", active={"s1": [1]}, standby={"s1": [0, 2]})
    rude_expect(s, errorCode=0, memberEpoch=3)
    s.adv(100).shb("rude-b2", 3, group="rude-sb", active={"s1": [1]}, standby={"s1": [0]})
    rude_expect(s, errorCode=0, memberEpoch=4)

    # A fetch of every committed offset lists a topic's partitions in the iteration order of the
    # group's TimelineHashMap of offsets by partition (Integer keys; 16 entries take it to 16 slots,
    # as many as a table grown one step early would hold in 32).
    s.adv(100).req("OffsetCommit", 9, {"groupId": "rude-wide-g", "generationIdOrMemberEpoch": -1, "memberId": "",
                                       "topics": [{"name": "rude-wide", "partitions": [
                                           {"partitionIndex": p, "committedOffset": 100 + p} for p in range(16)]}]},
                   client="admin")
    rude_expect(s, topics=[{"name": "rude-wide", "partitions": [{"errorCode": 0}] * 16}])
    s.req("OffsetFetch", 8, {"groups": [{"groupId": "rude-wide-g", "topics": None}], "requireStable": False},
          client="admin")
    rude_expect(s, groups=[{"groupId": "rude-wide-g", "topics": [{"name": "rude-wide", "partitions": [
        {"partitionIndex": p, "committedOffset": 100 + p} for p in (13, 0, 5, 10, 2, 15, 7, 12, 4, 9, 1, 14, 6, 11, 3, 8)]}]}])
    return s


@scenario
def rude_corners():
    # Rules the modelled clients never reach, each shown by an answer (the catalogue's `rude-corners`
    # scenario sends the same lines through the simulated network, sim/src/rude.rs). One broker config
    # differs from Kafka's defaults: rack-aware assignment tags, so that a heartbeat below v1 shows it
    # gets no missing-tags status. Groups: rude-dyn, rude-srack.
    s = Script("rude-corners")
    s.config(**{"group.streams.rack.aware.assignment.tags": "zone"})
    s.topics(("foo", 3))

    # completeClassicGroupJoin removes the dynamic members that did not rejoin in time (static ones
    # stay): a second member joins a Stable group whose only member never rejoins; its rebalance
    # timeout (10 s) is far shorter than its session (60 s), so the join phase ends first and the
    # new member leads a generation of its own.
    a = len(s.lines) + 1
    s.join(group="rude-dyn", version=3, session=60000, rebalance=10000)
    rude_expect(s, errorCode=0, generationId=1, memberId="$gen:%d" % a, leader="$gen:%d" % a,
                members=[{"memberId": "$gen:%d" % a}])
    s.adv(3000).tick()  # the initial rebalance delay
    s.sync("$gen:%d" % a, 1, group="rude-dyn", version=3,
           assignments={"$gen:%d" % a: consumer_assignment({"foo": [0, 1, 2]})})
    rude_expect(s, errorCode=0)
    b = len(s.lines) + 1
    s.adv(100).join(group="rude-dyn", version=3, session=60000, rebalance=10000)
    rude_expect(s, errorCode=0, generationId=2, memberId="$gen:%d" % b, leader="$gen:%d" % b,
                members=[{"memberId": "$gen:%d" % b}])
    s.adv(10000).tick()  # the join phase's rebalance timeout (the new leader never syncs: its sync times out)

    # A static streams member whose rack changes (a heartbeat naming its instance id:
    # hasEpochRelevantMemberConfigChanged, topology epoch, rack, client tags or process id, any one of
    # them) bumps the group epoch; the heartbeat carrying
    # the change has no rebalance timeout (-1), which leaves the member's own as it was: revoking later,
    # it keeps its 30 s to do so.
    s.sjoin("rude-s1", group="rude-srack", topology=RUDE_TOPO, process="rude-sp", instanceId="rude-si",
            clientTags=[{"key": "zone", "value": "z1"}])
    rude_expect(s, errorCode=0, memberEpoch=1)
    s.adv(3500).tick()  # the initial rebalance delay
    s.shb("rude-s1", 1, group="rude-srack")
    rude_expect(s, errorCode=0, memberEpoch=2, activeTasks=[{"subtopologyId": "s1", "partitions": [0, 1, 2]}])
    s.shb("rude-s1", 2, group="rude-srack", active={"s1": [0, 1, 2]})
    rude_expect(s, errorCode=0, memberEpoch=2)
    s.adv(100).shb("rude-s1", 2, group="rude-srack", instanceId="rude-si", rackId="rude-rack")
    rude_expect(s, errorCode=0, memberEpoch=2)
    s.sdescribe("rude-srack")
    rude_expect(s, groups=[{"errorCode": 0, "groupEpoch": 3, "members": [{"memberId": "rude-s1", "rackId": "rude-rack"}]}])
    s.adv(5000).shb("rude-s1", 2, group="rude-srack")
    rude_expect(s, errorCode=0, memberEpoch=3)
    # A second member: the first must give up tasks (UNREVOKED_TASKS, its rebalance timer armed with
    # its own 30 s), and still holds them a few seconds later.
    s.adv(100).sjoin("rude-s2", group="rude-srack", topology=RUDE_TOPO, process="rude-sp2",
                     clientTags=[{"key": "zone", "value": "z2"}])
    rude_expect(s, errorCode=0, memberEpoch=3)
    s.adv(5000).shb("rude-s1", 3, group="rude-srack")
    rude_expect(s, errorCode=0, memberEpoch=3)
    # Still reporting the task it must give up (TasksTuple.containsAny over the pending revocation):
    # it keeps its epoch.
    s.adv(2000).shb("rude-s1", 3, group="rude-srack", active={"s1": [0, 1, 2]})
    rude_expect(s, errorCode=0, memberEpoch=3)
    s.sdescribe("rude-srack")
    rude_expect(s, groups=[{"errorCode": 0, "groupEpoch": 4}])

    # Below v1 a heartbeat gets no missing-client-tags status, whatever the tags configured.
    s.adv(100).sjoin("rude-s3", group="rude-srack", topology=RUDE_TOPO, process="rude-sp3", version=0)
    rude_expect(s, errorCode=0, status=[])

    # A group that only holds offsets (a simple classic group) is replaced by a consumer group that
    # takes its id: replaying the consumer group's records drops it (getOrMaybeCreatePersistedConsumerGroup),
    # so DescribeGroups then shows the consumer group.
    s.adv(100).req("OffsetCommit", 9, {"groupId": "rude-simple2", "generationIdOrMemberEpoch": -1, "memberId": "",
                                       "topics": [{"name": "foo", "partitions": [
                                           {"partitionIndex": 0, "committedOffset": 5}]}]}, client="admin")
    rude_expect(s, topics=[{"name": "foo", "partitions": [{"partitionIndex": 0, "errorCode": 0}]}])
    s.cjoin("rude-c1", group="rude-simple2")
    rude_expect(s, errorCode=0, memberEpoch=2)
    s.req("DescribeGroups", 5, {"groups": ["rude-simple2"], "includeAuthorizedOperations": False}, client="admin")
    rude_expect(s, groups=[{"errorCode": 0, "groupId": "rude-simple2"}])

    # A join may name a topology older than the group's (kept as it is, the member told it is behind):
    # a member that rejoins with another such epoch takes it (updatedMember), which is a metadata change
    # of a dynamic member, so the group epoch moves.
    def topo(epoch):
        return {"epoch": epoch, "subtopologies": [{"subtopologyId": "s1", "sourceTopics": ["foo"]}]}
    zone = [{"key": "zone", "value": "z1"}]
    s.adv(100).sjoin("rude-e1", group="rude-tepoch", topology=topo(2), process="rude-ep1", clientTags=zone)
    rude_expect(s, errorCode=0, memberEpoch=1)
    s.sjoin("rude-e2", group="rude-tepoch", topology=topo(0), process="rude-ep2", clientTags=zone)
    rude_expect(s, errorCode=0, memberEpoch=1,
                status=[{"statusCode": 0, "statusDetail": "The member's topology epoch 0 is behind the group's topology epoch 2."},
                        {"statusCode": 5, "statusDetail": "Assignment delayed due to the configured initial rebalance delay."}])
    s.adv(3500).shb("rude-e2", 1, group="rude-tepoch")
    rude_expect(s, errorCode=0, memberEpoch=3)
    s.adv(100).sjoin("rude-e2", group="rude-tepoch", topology=topo(1), process="rude-ep2", clientTags=zone)
    rude_expect(s, errorCode=0, memberEpoch=3,
                status=[{"statusCode": 0, "statusDetail": "The member's topology epoch 1 is behind the group's topology epoch 2."},
                        {"statusCode": 5, "statusDetail": "Assignment delayed due to the configured assignment interval."}])
    s.sdescribe("rude-tepoch")
    rude_expect(s, groups=[{"errorCode": 0, "groupEpoch": 4, "topology": {"epoch": 2},
                            "members": [{"memberId": "rude-e1", "topologyEpoch": 2},
                                        {"memberId": "rude-e2", "topologyEpoch": 1}]}])

    # A partition whose only offset is a pending transactional one (no marker ends the transaction):
    # asked stable, a fetch gets UNSTABLE_OFFSET_COMMIT; an OffsetDelete of it, or the deletion of its
    # group, writes its tombstone, which ends the pending offset and the partition's open transaction
    # (OpenTransactions.clear; deleteAllOffsets over OpenTransactions.forEachTopicPartition), so a
    # stable fetch then finds nothing pending.
    def txn(group, partition):
        s.req("TxnOffsetCommit", 3, {"transactionalId": "rude-t2", "groupId": group, "producerId": 9,
                                     "producerEpoch": 0, "generationIdOrMemberEpoch": -1, "memberId": "",
                                     "topics": [{"name": "foo", "partitions": [
                                         {"partitionIndex": partition, "committedOffset": 40}]}]})
        rude_expect(s, topics=[{"name": "foo", "partitions": [{"partitionIndex": partition, "errorCode": 0}]}])

    def stable_fetch(group, partition, error):
        s.req("OffsetFetch", 7, {"groupId": group, "requireStable": True,
                                 "topics": [{"name": "foo", "partitionIndexes": [partition]}]})
        rude_expect(s, topics=[{"partitions": [{"partitionIndex": partition, "committedOffset": -1,
                                                "errorCode": error}]}])
    s.adv(100)
    txn("rude-txd", 1)
    stable_fetch("rude-txd", 1, 88)
    s.req("OffsetDelete", 0, {"groupId": "rude-txd", "topics": [{"name": "foo", "partitions": [{"partitionIndex": 1}]}]})
    rude_expect(s, errorCode=0, topics=[{"name": "foo", "partitions": [{"partitionIndex": 1, "errorCode": 0}]}])
    stable_fetch("rude-txd", 1, 0)
    txn("rude-txg", 2)
    s.req("DeleteGroups", 2, {"groupsNames": ["rude-txg"]}, client="admin")
    rude_expect(s, results=[{"groupId": "rude-txg", "errorCode": 0}])
    stable_fetch("rude-txg", 2, 0)
    # A pending transactional offset survives a load (its batch is transactional, so the loader
    # replays it as pending): in the catalogue scenario the coordinator of rude-txl (the partition of
    # rude-srack) crashes during the gap and the fetch reaches the one that loaded it.
    txn("rude-txl", 0)
    s.adv(20000)
    stable_fetch("rude-txl", 0, 88)
    return s




# ---- Kafka 4.4.0 behaviours the simulator reports (sim/src/known.rs, docs/findings.md) --------------

@scenario
def kafka44_streams_lost_assignment():
    # A streams member's task grant travels only in the response of the heartbeat that made it. When
    # that response is lost, the member's later heartbeats (full ones, as Kafka's client sends after
    # any failure: its owned task lists, still without the new task) are answered with the member's
    # epoch and null task lists, for as long as nothing else changes the member's assignment.
    s = streams_setup("kafka44-streams-lost-assignment", topics=(("foo", 2),))
    s.sjoin("m1", topology=TOPO1)
    s.expect(response={"memberEpoch": 2, "activeTasks": [{"subtopologyId": "subtopology1",
                                                            "partitions": [0, 1]}]})
    s.adv(100).shb("m1", 2, active={"subtopology1": [0, 1]})
    # m2 joins: the target moves subtopology1-1 to m2, which must wait until m1 releases it.
    s.adv(100).sjoin("m2", topology=TOPO1)
    s.expect(response={"memberEpoch": 3, "activeTasks": []})
    s.adv(100).shb("m1", 2)
    s.expect(response={"memberEpoch": 2, "activeTasks": [{"subtopologyId": "subtopology1",
                                                            "partitions": [0]}]})
    s.adv(100).shb("m1", 2, active={"subtopology1": [0]})
    s.expect(response={"memberEpoch": 3})
    # m2's next heartbeat is granted subtopology1-1: this is the response the network loses.
    s.adv(100).shb("m2", 3)
    s.expect(response={"memberEpoch": 3, "activeTasks": [{"subtopologyId": "subtopology1",
                                                            "partitions": [1]}]})
    # The client's request timed out: it resets its sent fields and reports what it owns: nothing.
    s.adv(5000).shb("m2", 3, active={})
    s.expect(response={"errorCode": 0, "memberEpoch": 3, "activeTasks": None, "standbyTasks": None,
                       "warmupTasks": None})
    # Every later heartbeat, full or not, gets the same answer.
    for _ in range(3):
        s.adv(5000).shb("m1", 3)
        s.adv(0).shb("m2", 3)
        s.expect(response={"errorCode": 0, "memberEpoch": 3, "activeTasks": None})
    s.adv(0).shb("m2", 3, active={})
    s.expect(response={"errorCode": 0, "memberEpoch": 3, "activeTasks": None})
    # The coordinator holds m2 as the stable owner of subtopology1-1, which m2 never learned of.
    s.adv(100).sdescribe("g")
    s.expect(response={"groups": [{"groupState": "Stable", "groupEpoch": 3, "assignmentEpoch": 3}]})
    return s


# ---- consumer-groups-44.md section 9 (KIP-848 consumer groups) ----------------------------------------


def topic_id(name):
    """regroup's derived topic id of `name` (coordinator::topics::derived_topic_id), in Kafka's string form."""
    def fnv(b, basis):
        h = basis
        for x in b:
            h = ((h ^ x) * 0x00000100000001b3) & 0xffffffffffffffff
        return h
    hi = fnv(name.encode(), 0xcbf29ce484222325)
    lo = fnv(name.encode(), 0x84222325cbf29ce4) | 1
    return base64.urlsafe_b64encode(hi.to_bytes(8, "big") + lo.to_bytes(8, "big")).decode().rstrip("=")


FOO, BAR, ZAR = topic_id("foo"), topic_id("bar"), topic_id("zar")


def consumer_setup(name, topics=(("foo", 6), ("bar", 3)), **configs):
    s = Script(name)
    if configs:
        s._add({"config": {k.replace("_", "."): v for k, v in configs.items()}})
    s.topics(*topics)
    return s


@scenario
def cg9_01_06_validation():
    """GroupCoordinatorServiceTest#testConsumerHeartbeatRequestValidation (every INVALID_REQUEST and
    UNSUPPORTED_ASSIGNOR of the service, at v0 and v1), GroupMetadataManagerTest#testUnknownGroupId,
    #testUnknownMemberIdJoinsConsumerGroup, #testMemberIdGeneration's rules (a v0 join may leave the
    member id empty, a v1 one may not), #testConsumerGroupDescribeWithErrors and
    GroupCoordinatorServiceTest#testConsumerGroupDescribeInvalidGroupId."""
    s = consumer_setup("cg9-01-06-validation", group_consumer_assignors=["range"])
    hb = lambda body, v=1: s.req("ConsumerGroupHeartbeat", v, body, client="rude")
    hb({})
    hb({"groupId": "", "memberId": "m", "memberEpoch": 1})
    hb({"groupId": "   ", "memberId": "m", "memberEpoch": 1})
    hb({"groupId": "g", "memberId": "m", "memberEpoch": 0})
    hb({"groupId": "g", "memberId": "m", "memberEpoch": 0, "rebalanceTimeoutMs": 5000})
    hb({"groupId": "g", "memberId": "m", "memberEpoch": 0, "rebalanceTimeoutMs": 5000,
        "topicPartitions": [{"topicId": FOO, "partitions": [0]}]})
    hb({"groupId": "g", "memberId": "m", "memberEpoch": 0, "rebalanceTimeoutMs": 5000, "topicPartitions": []})
    hb({"groupId": "g", "memberId": "m", "memberEpoch": 1, "instanceId": ""})
    hb({"groupId": "g", "memberId": "m", "memberEpoch": 1, "instanceId": " "})
    hb({"groupId": "g", "memberId": "m", "memberEpoch": 1, "rackId": ""})
    hb({"groupId": "g", "memberId": "m", "memberEpoch": 1, "serverAssignor": "bar"})
    hb({"groupId": "g", "memberId": "m", "memberEpoch": 1, "serverAssignor": "uniform"})
    hb({"groupId": "g", "memberId": "m", "memberEpoch": -2})
    hb({"groupId": "g", "memberId": "m", "memberEpoch": -3})
    hb({"groupId": "g", "memberId": "", "memberEpoch": 1}, v=0)
    hb({"groupId": "g", "memberId": "", "memberEpoch": -1}, v=0)
    hb({"groupId": "g", "memberId": "", "memberEpoch": 0, "rebalanceTimeoutMs": 5000, "topicPartitions": [],
        "subscribedTopicNames": ["foo"]}, v=1)
    # Unknown group: epoch > 0 and the leave paths.
    s.chb("m", 100, group="fooup")
    s.chb("m", -1, group="fooup")
    s.chb("m", -2, group="fooup", instance="i")
    # A first member creates the group; an unknown member id at epoch 1 is refused.
    s.adv(1000).cjoin("m1", group="fooup")
    s.chb("unknown", 1, group="fooup")
    s.chb("unknown", -1, group="fooup")
    s.cdescribe("fooup", "", "missing", "")
    s.cdescribe("fooup", version=0, ops=True)
    return s


@scenario
def cg9_07_epoch_validation():
    """GroupMetadataManagerTest#testConsumerGroupMemberEpochValidation and ...ForStaticMember: greater and
    smaller epochs are fenced; the previous epoch is accepted only with owned partitions the member still
    holds (its response was lost), and then answered with the current epoch."""
    s = consumer_setup("cg9-07-epoch-validation", topics=(("foo", 4),))
    for member, instance in (("m", None), ("s", "instance-s")):
        g = "g-" + member
        s.adv(1000).cjoin(member, group=g, instance=instance)
        s.chb(member, 2, group=g, owned={FOO: [0, 1, 2, 3]}, instance=instance)
        # A second member bumps the epoch; the first revokes half and moves to epoch 3.
        s.adv(1000).cjoin(member + "2", group=g)
        s.chb(member, 2, group=g, owned={FOO: [0, 1, 2, 3]}, instance=instance)
        s.chb(member, 2, group=g, owned={FOO: [0, 1]}, instance=instance)
        s.chb(member, 200, group=g, instance=instance)
        s.chb(member, 1, group=g, instance=instance)
        s.chb(member, 2, group=g, instance=instance)
        s.chb(member, 2, group=g, owned={FOO: [0, 1, 2]}, instance=instance)
        s.chb(member, 2, group=g, owned={FOO: [0]}, instance=instance)
        s.chb(member, 3, group=g, owned={FOO: [0, 1]}, instance=instance)
    return s


@scenario
def cg9_08_static_identity():
    """GroupMetadataManagerTest's static-identity errors: a new member joining with an instance id in use
    (UNRELEASED_INSTANCE_ID, also under its own member id), an unknown static member heartbeating
    (UNKNOWN_MEMBER_ID), another member id heartbeating or leaving with a known instance id
    (FENCED_INSTANCE_ID), and an unknown instance id leaving with -2."""
    s = consumer_setup("cg9-08-static-identity")
    s.adv(1000).cjoin("m1", instance="m1")
    s.cjoin("m2", instance="m1")
    s.cjoin("m1", instance="m1")
    s.chb("m2", 10, instance="m2")
    s.chb("unknown-m1", 11, instance="m1")
    s.chb("unknown-m1", -2, instance="unknown-m1")
    s.chb("unknown-m1", -2, instance="m1")
    s.chb("unknown-m1", -1, instance="m1")
    s.chb("m1", -1, instance="m1")
    return s


@scenario
def cg9_10_14_join_and_full_response():
    """GroupMetadataManagerTest#testMemberJoinsEmptyConsumerGroup (foo and bar, range), #testMemberIdGeneration
    (a v0 join, here with a member id, subscribed to nothing), #testNewJoiningMemberTriggersNewTargetAssignment
    and #testConsumerGroupHeartbeatFullResponse (the assignment goes with a join, a full request, or a
    change only)."""
    s = consumer_setup("cg9-10-14-join-and-full-response")
    s.adv(1000).cjoin("m", topics=("foo", "bar"), assignor="range")
    s.chb("m", 2)
    s.chb("m", 2, rebalanceTimeoutMs=5000, subscribedTopicNames=["foo", "bar"], owned={})
    s.chb("m", 2, owned={FOO: [0, 1, 2, 3, 4, 5], BAR: [0, 1, 2]})
    s.chb("m", 2, rebalanceTimeoutMs=5000, subscribedTopicNames=["bar", "foo"],
          owned={FOO: [0, 1, 2, 3, 4, 5], BAR: [0, 1, 2]})
    s.adv(5000).cjoin("m2", topics=("foo", "bar"), assignor="range")
    s.adv(5000).cjoin("m3", topics=("foo", "bar"), assignor="range")
    s.cdescribe("g")
    # A v0 join with a member id, in another group over an empty subscription: epoch 1, nothing
    # written for the group. (A v0 join without one gets a random Uuid from Kafka, which no script can
    # compare; regroup's is drawn deterministically, docs/divergences.md.)
    s.req("ConsumerGroupHeartbeat", 0, {"groupId": "empty", "memberId": "v0", "memberEpoch": 0,
                                        "rebalanceTimeoutMs": 5000, "subscribedTopicNames": [],
                                        "topicPartitions": []}, client="client-v0")
    return s


@scenario
def cg9_12_15_reconciliation():
    """GroupMetadataManagerTest#testUpdatingSubscriptionTriggersNewTargetAssignment and
    #testReconciliationProcess with the real uniform assignor: a third member joins, the others revoke
    before anything is assigned (UNREVOKED_PARTITIONS), the newcomer waits on unreleased partitions
    (UNRELEASED_PARTITIONS), heartbeats without owned partitions change nothing, every member ends
    STABLE; then a subscription change moves the target again."""
    s = consumer_setup("cg9-12-15-reconciliation")
    s.adv(1000).cjoin("m1", topics=("foo", "bar"))
    s.adv(5000).cjoin("m2", topics=("foo", "bar"))
    s.chb("m1", 2, owned={FOO: [0, 1, 2, 3, 4, 5], BAR: [0, 1, 2]})
    s.chb("m2", 3, owned={})
    s.cdescribe("g")
    s.adv(100).chb("m1", 2, owned={FOO: [0, 1, 2], BAR: [0, 1]})
    s.chb("m2", 3, owned={})
    s.adv(5000).cjoin("m3", topics=("foo", "bar"))
    s.adv(100).chb("m1", 3, owned={FOO: [0, 1, 2], BAR: [0, 1]})
    s.chb("m2", 3, owned={FOO: [3, 4, 5], BAR: [2]})
    s.chb("m3", 4, owned={})
    s.chb("m2", 3)
    s.chb("m1", 3, owned={FOO: [0, 1], BAR: [0]})
    s.chb("m3", 4)
    s.chb("m2", 3, owned={FOO: [3, 4], BAR: [2]})
    s.chb("m3", 4, owned={})
    s.cdescribe("g")
    s.chb("m1", 4, owned={FOO: [0, 1], BAR: [0]})
    s.chb("m2", 4, owned={FOO: [3, 4]})
    s.chb("m3", 4, owned={FOO: [2, 5], BAR: [1, 2]})
    s.cdescribe("g")
    # m1 drops bar: the group epoch moves, m1 gives up bar.
    s.adv(5000).chb("m1", 4, subscribedTopicNames=["foo"], owned={FOO: [0, 1], BAR: [0]})
    s.chb("m1", 5, owned={FOO: [0, 1]})
    s.chb("m2", 4, owned={FOO: [3, 4]})
    s.chb("m3", 4, owned={FOO: [2, 5], BAR: [1, 2]})
    s.cdescribe("g")
    return s


@scenario
def cg9_16_17_rejoin_and_duplicates():
    """GroupMetadataManagerTest#testMemberCanRejoinWithEpochZeroIn{Stable,UnrevokedPartitions,
    UnreleasedPartitions}State (KAFKA-19233: the member keeps its epoch and partitions) and
    #testDuplicateFullHeartbeatIn*State / #testDuplicateFullHeartbeatWithRevocationAck (the same full
    request twice: the same answer, no records the second time)."""
    s = consumer_setup("cg9-16-17-rejoin-and-duplicates", topics=(("foo", 3),))
    s.adv(1000).cjoin("m1")
    s.chb("m1", 2, owned={FOO: [0, 1, 2]})
    s.cjoin("m1")
    full = dict(rebalanceTimeoutMs=5000, subscribedTopicNames=["foo"])
    s.chb("m1", 2, owned={FOO: [0, 1, 2]}, **full)
    s.chb("m1", 2, owned={FOO: [0, 1, 2]}, **full)
    s.adv(5000).cjoin("m2")
    s.chb("m1", 2, owned={FOO: [0, 1, 2]}, **full)
    s.chb("m1", 2, owned={FOO: [0, 1, 2]}, **full)
    s.cjoin("m1")
    s.chb("m2", 3, owned={}, **full)
    s.chb("m2", 3, owned={}, **full)
    s.cjoin("m2")
    s.chb("m1", 2, owned={FOO: [0, 1]}, **full)
    s.chb("m1", 2, owned={FOO: [0, 1]}, **full)
    s.chb("m2", 3, owned={}, **full)
    s.cdescribe("g")
    return s


@scenario
def cg9_18_21_metadata():
    """GroupMetadataManagerTest#testNewRacksDataInMetadataImageTriggersEpochBump, #testRemoveTopicCleanupTopicHash
    and #testSubscriptionMetadataRefreshedAgainAfterWriteFailure's first half: a metadata change to a
    subscribed topic (racks, more partitions, deletion) makes the next heartbeat recompute the hash and bump
    the group epoch; a change to another topic does not."""
    s = consumer_setup("cg9-18-21-metadata", topics=(("foo", 3), ("bar", 2)))
    s.adv(1000).cjoin("m1")
    s.chb("m1", 2, owned={FOO: [0, 1, 2]})
    s.topics(("foo", 3), ("bar", 4))
    s.adv(100).chb("m1", 2, owned={FOO: [0, 1, 2]})
    s.topics({"name": "foo", "partitions": 3, "partitionRacks": [["r1"], ["r2"], ["r1", "r2"]]}, ("bar", 4))
    s.adv(100).chb("m1", 2, owned={FOO: [0, 1, 2]})
    s.topics({"name": "foo", "partitions": 6, "partitionRacks": [["r1"], ["r2"], ["r1", "r2"], [], [], []]},
             ("bar", 4))
    s.adv(100).chb("m1", 3, owned={FOO: [0, 1, 2]})
    s.chb("m1", 4, owned={FOO: [0, 1, 2]})
    s.topics(("bar", 4))
    s.adv(100).chb("m1", 4, owned={FOO: [0, 1, 2, 3, 4, 5]})
    s.chb("m1", 4)
    s.chb("m1", 4, owned={})
    s.cdescribe("g")
    return s


@scenario
def cg9_22_27_leave_and_timers():
    """GroupMetadataManagerTest#testLeavingMemberBumpsGroupEpoch, #testLeavingStaticMemberBumpsGroupEpoch,
    #testTopicHashIsRemoveFromCacheIfNoGroupSubscribesIt (the last member's leave also moves the assignment
    epoch, timestamp 0), #testSessionTimeoutLifecycle, #testSessionTimeoutExpiration,
    #testRebalanceTimeoutLifecycle and #testRebalanceTimeoutExpiration."""
    s = consumer_setup("cg9-22-27-leave-and-timers", topics=(("foo", 3), ("bar", 3), ("zar", 3)))
    s.adv(1000).cjoin("m1", group="leave", topics=("foo", "bar"))
    s.adv(5000).cjoin("m2", group="leave", topics=("foo", "bar", "zar"))
    s.adv(5000).cjoin("m3", group="leave", topics=("foo",), instance="i3")
    s.chb("m2", -1, group="leave")
    s.chb("m3", -1, group="leave", instance="i3")
    s.chb("m1", -1, group="leave")
    s.cdescribe("leave")
    # Session timeouts: one member keeps heartbeating, the other stops.
    s.adv(1000).cjoin("a", group="session", rebalance=90000)
    s.adv(5000).cjoin("b", group="session")
    s.adv(5000).chb("a", 2, group="session")
    s.adv(40000).chb("a", 2, group="session")
    s.adv(10000).chb("a", 4, group="session")
    # Rebalance timeouts: m1 must revoke within 12 s (the timeout of the heartbeat that moves it).
    s.adv(1000).cjoin("r1", group="rebalance", rebalance=180000)
    s.chb("r1", 2, group="rebalance", owned={FOO: [0, 1, 2]})
    s.adv(5000).cjoin("r2", group="rebalance", rebalance=90000)
    s.adv(5000).chb("r1", 2, group="rebalance", rebalanceTimeoutMs=12000, subscribedTopicNames=["foo"],
                   owned={FOO: [0, 1, 2]})
    s.adv(5000).chb("r1", 2, group="rebalance", owned={FOO: [0, 1, 2]})
    s.adv(5000).chb("r2", 3, group="rebalance", owned={})
    s.adv(5000).chb("r2", 3, group="rebalance", owned={})
    s.adv(1000).tick()
    s.adv(60000).tick()
    return s


@scenario
def cg9_28_33_static_membership():
    """GroupMetadataManagerTest#testStaticMemberGetsBackAssignmentUponRejoin, #testStaticMemberRejoinsWithNewSubscribedTopics,
    #testStaticMembersRejoinWithNewServerAssignor, #testNoGroupEpochBumpWhenStaticMemberTemporarilyLeaves,
    #testStaticMemberRejoinsWithSameMemberIdAndDifferentInstanceId,
    #testSessionTimeoutExpirationStaticMember and the max-size cases (#testNewMemberIsRejectedWithMaximumMembersIsReached,
    #testStaticMemberCanRejoinWhenConsumerGroupIsFull, ...WithUnreleasedInstanceIdFails..., #testNewStaticMemberIsRejectedWhenConsumerGroupIsFull)."""
    s = consumer_setup("cg9-28-33-static-membership", group_consumer_max_size=2)
    s.adv(1000).cjoin("m1", topics=("foo", "bar"), instance="i1")
    s.adv(5000).cjoin("m2", topics=("foo", "bar"), instance="i2")
    s.chb("m1", 2, owned={FOO: [0, 1, 2, 3, 4, 5], BAR: [0, 1, 2]}, instance="i1")
    s.chb("m2", 3, owned={}, instance="i2")
    s.chb("m1", 3, owned={FOO: [0, 1, 2], BAR: [0, 1]}, instance="i1")
    s.chb("m2", 3, owned={}, instance="i2")
    s.cdescribe("g")
    # m2 leaves for now and comes back as m2b with its old subscription: same partitions, no bump.
    s.adv(1000).chb("m2", -2, instance="i2")
    s.cjoin("m3", topics=("foo",))
    s.cjoin("m3", topics=("foo",), instance="i3")
    s.cjoin("m2b", topics=("foo", "bar"), instance="i2")
    s.chb("m2b", 3, owned={FOO: [3, 4, 5], BAR: [2]}, instance="i2")
    # m2b leaves for now again and m2c comes back with only foo: the group epoch moves.
    s.adv(1000).chb("m2b", -2, instance="i2")
    s.chb("m2b", -2, instance="i2")
    s.cjoin("m2c", topics=("foo",), instance="i2")
    s.chb("m1", 3, owned={FOO: [0, 1, 2], BAR: [0, 1]}, instance="i1")
    s.cdescribe("g")
    # Same member id, another instance id.
    s.adv(1000).cjoin("m1", topics=("foo", "bar"), instance="i1-bis")
    s.cdescribe("g")
    # A static member away past its session timeout.
    s.adv(1000).chb("m2c", -2, instance="i2")
    s.adv(50000).tick()
    # Full group: a new static instance is refused for size, a held one for being unreleased.
    s.adv(1000).cjoin("m4", instance="i4")
    s.cjoin("m5", instance="i1-bis")
    return s


@scenario
def cg9_30_server_assignor():
    """GroupMetadataManagerTest#testStaticMembersRejoinWithNewServerAssignor (KAFKA-20434): three static
    members preferring uniform leave for now; the first rejoining with range leaves the majority alone,
    the second flips it, which bumps the group epoch and computes the target with range."""
    s = consumer_setup("cg9-30-server-assignor")
    s.adv(1000).cjoin("u1", group="assignors", instance="u1", assignor="uniform")
    s.adv(5000).cjoin("u2", group="assignors", instance="u2", assignor="uniform")
    s.adv(5000).cjoin("u3", group="assignors", instance="u3", assignor="uniform")
    s.cdescribe("assignors")
    for u in ("u1", "u2", "u3"):
        s.chb(u, -2, group="assignors", instance=u)
    s.adv(5000).cjoin("u2b", group="assignors", instance="u2", assignor="range")
    s.cdescribe("assignors")
    s.adv(5000).cjoin("u3b", group="assignors", instance="u3", assignor="range")
    s.cdescribe("assignors")
    s.adv(5000).cjoin("u1b", group="assignors", instance="u1")
    s.chb("u1b", 5, group="assignors", serverAssignor="range")
    s.cdescribe("assignors")
    return s


@scenario
def cg9_34_36_interval_states_configs():
    """GroupMetadataManagerTest#testConsumerGroupAssignmentInterval (interval 5000: a join during the
    interval keeps the old target and leaves the group ASSIGNING until a heartbeat after it),
    #testConsumerGroupStates through describe, #testConsumerGroupDynamicConfigs and
    #testConsumerGroupEvaluatedConfigs (a group's session timeout and heartbeat interval, clamped to the
    broker's bounds)."""
    s = consumer_setup("cg9-34-36-interval-states-configs", group_consumer_assignment_interval_ms=5000)
    s.adv(1000).cjoin("m1")
    s.adv(4995).cjoin("m2")
    s.cdescribe("g")
    s.adv(10).chb("m2", 2)
    s.cdescribe("g")
    s.chb("m1", 2, owned={FOO: [0, 1, 2, 3, 4, 5]})
    s.chb("m1", 2, owned={FOO: [0, 1, 2]})
    s.chb("m2", 3)
    s.cdescribe("g")
    s.group_config("g", {"consumer.session.timeout.ms": "50000", "consumer.heartbeat.interval.ms": "10000"})
    s.adv(1000).chb("m1", 3)
    s.group_config("g", {"consumer.session.timeout.ms": "60000", "consumer.heartbeat.interval.ms": "15000"})
    s.adv(1000).chb("m2", 3)
    s.adv(59000).chb("m1", 3)
    s.adv(2000).tick()
    return s


def cjoin_regex(s, member, regex, group="g", rebalance=5000, instance=None, assignor=None, version=1):
    """A ConsumerGroupHeartbeat join (epoch 0, owned []) subscribing with a regular expression."""
    body = {"groupId": group, "memberId": member, "memberEpoch": 0, "rebalanceTimeoutMs": rebalance,
            "subscribedTopicRegex": regex, "topicPartitions": []}
    if instance is not None:
        body["instanceId"] = instance
    if assignor is not None:
        body["serverAssignor"] = assignor
    return s.req("ConsumerGroupHeartbeat", version, body, client="client-" + member)


@scenario
def cg3_01_regex_validation():
    """GroupMetadataManagerTest#testConsumerHeartbeatRegexValidation, with RE2J's description of every
    error kind regroup maps (docs/consumer.md): an invalid regex new to the group is refused with
    INVALID_REGULAR_EXPRESSION and Kafka's message (the join, and a member changing to one); expressions
    RE2J accepts where Rust's regex crate would not (a literal `{`, `\\Q...\\E`, octal escapes, `[a[b]]`)
    are accepted and resolve as RE2J does; a regex already used in the group is not validated again."""
    bad = ["[", "(abc", "abc)", "abc\\", "*abc", "a**", "a{2}{3}", "a{1001}", "a{3,2}", "(?x)a", "(?P<n>a)(?P<n>b)",
           "(?P<>a)", "(?=a)", "a\\1", "\\u0041", "\\Z", "[z-a]", "[[:foo:]]", "\\p{Foo}", "[a-\\d]", "(?",
           "(?P=n)", "a|*", "[\\b]", "\\C", "\\8"]
    s = consumer_setup("cg3-01-regex-validation",
                       topics=(("foo", 3), ("bar", 2), ("a1000", 1), ("Foo", 1)))
    for i, r in enumerate(bad):
        cjoin_regex(s.adv(10), "m%d" % i, r)
    cjoin_regex(s.adv(10), "ok", ".*")
    s.chb("ok", 1, subscribedTopicRegex="[")
    s.chb("ok", 1, subscribedTopicRegex="(abc")
    for i, r in enumerate(["a{", "a{,5}", "\\Q.*\\E", "\\12x", "[a[b]]", "a\\d{3}", "(?i)FOO|b.r", "\\<"]):
        cjoin_regex(s.adv(11000), "g%d" % i, r, group="good%d" % i)
        s.cdescribe("good%d" % i)
    return s


@scenario
def cg3_02_regex_join_and_resolution():
    """GroupMetadataManagerTest#testConsumerGroupMemberJoinsWithNewRegex (a join with a new regex: no epoch
    bump, the resolution writes the RegularExpression record and bumps the epoch),
    #testConsumerGroupMemberPicksUpExistingResolvedRegularExpression (a second member with the same regex bumps
    at once), #testConsumerGroupMemberJoinsWithUpdatedRegex (a member changes its regex: the old one's
    tombstone, a refresh only 10 s after the last), #testConsumerGroupMemberJoinRefreshesExpiredRegexes (a
    topic created later is picked up by the first heartbeat more than 10 s after the last refresh), and
    #testConsumerGroupMemberClearsRegex (back to names: tombstone, bump)."""
    s = consumer_setup("cg3-02-regex-join-and-resolution", topics=(("foo", 6), ("bar", 3), ("food", 2)),
                       group_consumer_assignment_interval_ms=0)
    j = lambda m, r: cjoin_regex(s, m, r, group="fooup", assignor="range", rebalance=60000)
    hb = lambda m, e, **kw: s.chb(m, e, group="fooup", **kw)
    s.adv(1000).cjoin("m1", topics=("foo",), group="fooup", assignor="range", rebalance=60000)
    s.adv(100)
    j("m2", "foo*")
    hb("m2", 2, owned={})
    hb("m1", 2, owned={FOO: [0, 1, 2, 3, 4, 5]})
    hb("m1", 2, owned={FOO: [0, 1, 2]})
    hb("m2", 3, owned={})
    s.cdescribe("fooup")
    # Same regex: already resolved, the epoch moves at once.
    s.adv(100)
    j("m3", "foo*")
    # m2 changes its regex: a new one; the refresh waits until 10 s after the last one.
    s.adv(100)
    hb("m2", 3, subscribedTopicRegex="fo.*")
    s.adv(11000)
    hb("m2", 3, subscribedTopicRegex="fo.*")
    hb("m1", 3)
    hb("m3", 4)
    s.cdescribe("fooup")
    # A new topic that matches: no refresh within 10 s of the last one, then one.
    s.topics(("foo", 6), ("bar", 3), ("food", 2), ("fox", 4))
    s.adv(100)
    hb("m1", 3)
    s.adv(11000)
    hb("m1", 3)
    hb("m2", 3)
    s.cdescribe("fooup")
    # m3 clears its regex (names again), then m2 does: the last one's tombstone, a bump.
    s.adv(100)
    hb("m3", 5, subscribedTopicRegex="", subscribedTopicNames=["bar"])
    hb("m2", 3, subscribedTopicRegex="", subscribedTopicNames=["bar"])
    s.cdescribe("fooup")
    return s


@scenario
def cg3_03_regex_leave_and_fence():
    """GroupMetadataManagerTest#testResolvedRegularExpressionsRemovedWhenMembersLeaveOrFenced: the last
    member of a regex leaving (-1) or fenced by its session timeout writes the regex's tombstone and the
    epoch bump without its topics; a regex another member still uses is kept; a static member leaving with
    -2 keeps its regex; a group of only regex members is homogeneous (one regex, every member) and
    heterogeneous when a member subscribes by name too; DeleteGroups tombstones the regexes."""
    s = consumer_setup("cg3-03-regex-leave-and-fence", topics=(("foo", 4), ("bar", 3), ("baz", 2)),
                       group_consumer_assignment_interval_ms=0)
    cjoin_regex(s.adv(1000), "a", "ba.*", rebalance=60000)
    cjoin_regex(s, "b", "ba.*", rebalance=60000)
    s.chb("a", 1)
    s.chb("b", 3)
    cjoin_regex(s.adv(100), "c", "f.*", rebalance=60000)
    s.adv(11000).chb("a", 3)
    s.chb("c", 3)
    s.chb("b", 3)
    s.cdescribe("g")
    s.chb("c", -1)
    s.chb("b", -1)
    s.cdescribe("g")
    cjoin_regex(s.adv(100), "s", "foo|bar", instance="i1", rebalance=60000)
    s.adv(11000).chb("a", 3)
    s.chb("s", 6, instance="i1")
    s.chb("s", -2, instance="i1")
    s.cdescribe("g")
    # The session timeouts fence `a` and the static member.
    s.adv(60000).tick()
    s.cdescribe("g")
    cjoin_regex(s.adv(100), "z", "b.*", group="h")
    s.adv(11000).chb("z", 1, group="h")
    s.chb("z", -1, group="h")
    s.req("DeleteGroups", 2, {"groupsNames": ["h"]}, client="admin")
    return s


@scenario
def cg3_04_regex_refresh_interval_static_and_many():
    """GroupMetadataManagerTest#testConsumerGroupMemberJoinRefreshesExpiredRegexes and
    #testConsumerGroupMemberJoinsRefreshTopicAuthorization's timing (with
    `group.consumer.regex.refresh.interval.ms`: without new topics, resolved regexes are refreshed once the
    interval has passed, which drops a deleted topic), #testStaticConsumerGroupMemberJoinsWithUpdatedRegex
    (a static member replaced under a new member id with another regex), several regexes resolved by one
    refresh (their records in the order of Kafka's result `HashMap`), and a member subscribed by names and
    a regex at once."""
    s = consumer_setup("cg3-04-regex-refresh-interval-static-and-many",
                       topics=(("foo", 4), ("bar", 3), ("baz", 2), ("qux", 2)),
                       group_consumer_assignment_interval_ms=0, group_consumer_regex_refresh_interval_ms=15000)
    j = lambda m, r, **kw: cjoin_regex(s, m, r, rebalance=60000, **kw)
    s.adv(1000)
    j("a", "ba.")
    s.adv(100)
    j("b", "f.*|q.*")
    s.adv(100)
    j("c", ".*u.*")
    s.adv(100)
    j("d", "[a-z]{3}")
    # Within 10 s of the first resolution: nothing; then one refresh resolves the three new ones.
    s.adv(5000).chb("a", 1)
    s.adv(6000).chb("a", 2)
    s.cdescribe("g")
    # Names and a regex together.
    s.req("ConsumerGroupHeartbeat", 1, {"groupId": "g", "memberId": "e", "memberEpoch": 0,
                                         "rebalanceTimeoutMs": 60000, "subscribedTopicNames": ["foo"],
                                         "subscribedTopicRegex": "qu.", "topicPartitions": []}, client="client-e")
    s.cdescribe("g")
    # bar is deleted: the hash moves at the next heartbeat, the regexes are not refreshed before the
    # refresh interval (15 s) has passed since the last refresh; then `ba.` loses bar.
    s.topics(("foo", 4), ("baz", 2), ("qux", 2))
    s.adv(100).chb("b", 2)
    s.adv(12000).chb("b", 5)
    s.adv(4000).chb("b", 5)
    s.cdescribe("g")
    # A static member with a regex, replaced by a new member id with another regex.
    s.adv(100)
    j("s1", "foo", instance="i")
    s.chb("s1", -2, instance="i")
    s.adv(100)
    j("s2", "baz|qux", instance="i")
    s.adv(16000).chb("s2", 6, instance="i")
    s.cdescribe("g")
    return s


@scenario
def cg3_05_regex_stale_subscription_type():
    """Kafka's ConsumerGroup does not recompute the subscription type when a RegularExpression record is
    replayed (only on member changes): after the last member of `.*` leaves, its tombstone removes the
    regex's topics but the group stays HETEROGENEOUS, so the next target (a member joining with a regex
    not resolved yet, which bumps nothing) leaves the names member its partitions. Cut from generated
    seed 1248 (400 steps), where regroup recomputed the type and gave them away."""
    s = consumer_setup("cg3-05-regex-stale-subscription-type", topics=(("bar", 5), ("foo", 3), ("zar", 3)),
                       group_consumer_assignment_interval_ms=0)
    s.adv(1000).cjoin("c1", topics=("bar", "qux"), rebalance=60000)
    s.chb("c1", 2, owned={})
    s.chb("c1", 2, owned={BAR: [0, 1, 2, 3, 4]})
    cjoin_regex(s.adv(100), "c2", ".*", rebalance=60000)
    s.chb("c2", 2, owned={})
    s.chb("c1", 2, owned={BAR: [0, 1, 2, 3, 4]})
    s.chb("c2", -1)
    cjoin_regex(s.adv(100), "c3", "q.*", instance="i-c3", assignor="uniform", rebalance=60000)
    s.cdescribe("g")
    return s


def ccommit(s, member, epoch, parts, group="g", version=9, topic="foo", offset=10, txn=False, instance=None):
    """An OffsetCommit (or TxnOffsetCommit) of `topic` partitions `parts` by a consumer-group member."""
    body = {"groupId": group, "generationIdOrMemberEpoch": epoch, "memberId": member,
            "topics": [{"name": topic, "partitions": [
                {"partitionIndex": p, "committedOffset": offset + p} for p in parts]}]}
    if version >= 10 and not txn:
        body["topics"][0] = {"topicId": topic_id(topic), "partitions": body["topics"][0]["partitions"]}
    if instance is not None:
        body["groupInstanceId"] = instance
    if txn:
        body.update({"transactionalId": "t", "producerId": 7, "producerEpoch": 0})
        return s.req("TxnOffsetCommit", version, body, client="client-" + (member or "txn"))
    return s.req("OffsetCommit", version, body, client="client-" + (member or "admin"))


def cfetch(s, member, epoch, group="g", version=9):
    return s.req("OffsetFetch", version, {"groups": [{"groupId": group, "memberId": member,
                                                       "memberEpoch": epoch, "topics": None}]},
                 client="client-" + (member or "admin"))


@scenario
def cg7_01_offsets():
    """consumer-groups-44.md section 7.1/7.2: OffsetMetadataManagerTest#testConsumerGroupOffsetCommitWithStaleMemberEpoch,
    ...ResolvesTopicId, ...WithUnknownMemberId, ...FromAdminClient, #testConsumerGroupOffsetFetchWithStaleMemberEpoch
    and the KIP-1251 per-partition rule: an older epoch commits the partitions assigned at or before it
    (assigned or pending revocation); a newer one is STALE_MEMBER_EPOCH; a consumer-protocol member must use
    OffsetCommit v9+; transactional commits follow the same rules; fetches need the exact epoch."""
    s = consumer_setup("cg7-01-offsets", topics=(("foo", 4),), group_consumer_assignment_interval_ms=0)
    # An empty consumer group takes an admin commit (epoch -1, no member id).
    s.adv(1000).cjoin("m1")
    s.chb("m1", -1)
    ccommit(s, "", -1, [0])
    s.cjoin("m1")
    s.chb("m1", 4, owned={FOO: [0, 1, 2, 3]})
    ccommit(s, "m1", 4, [0, 1])
    ccommit(s, "m1", 4, [0], version=10)
    ccommit(s, "m1", 5, [0])
    ccommit(s, "m1", 3, [0])
    ccommit(s, "m1", 4, [0], version=8)
    ccommit(s, "nobody", 4, [0])
    ccommit(s, "", -1, [0])
    ccommit(s, "m1", 4, [0], txn=True, version=4)
    ccommit(s, "m1", 5, [0], txn=True, version=4)
    ccommit(s, "", -1, [1], txn=True, version=4)
    ccommit(s, "m1", 4, [9])
    # m2 joins: m1 revokes half at epoch 4, then moves to 5 keeping the rest at epoch 4.
    s.adv(1000).cjoin("m2")
    s.chb("m1", 4, owned={FOO: [0, 1, 2, 3]})
    s.cdescribe("g")
    ccommit(s, "m1", 4, [0, 1, 2, 3])
    s.chb("m1", 4, owned={FOO: [0, 1]})
    ccommit(s, "m1", 4, [0, 1])
    ccommit(s, "m1", 4, [0, 2])
    ccommit(s, "m1", 5, [0, 1])
    s.chb("m2", 5, owned={})
    ccommit(s, "m2", 4, [2])
    ccommit(s, "m2", 5, [2, 3])
    cfetch(s, "m1", 5)
    cfetch(s, "m1", 4)
    cfetch(s, "m2", 5, version=10)
    cfetch(s, "nobody", 5)
    cfetch(s, None, -1)
    s.req("OffsetDelete", 0, {"groupId": "g", "topics": [{"name": "foo", "partitions": [{"partitionIndex": 0}]}]},
          client="admin")
    return s


@scenario
def cg7_03_admin_and_types():
    """consumer-groups-44.md sections 6.2, 7.3 and 7.4: ListGroups with type and state filters,
    DescribeGroups of a consumer group (not a classic group), DeleteGroups (NON_EMPTY_GROUP while a member
    is there; then the group's tombstones and its offsets), and the group-type conflicts: a consumer join
    converts an empty classic (simple) group, refuses a classic group of another protocol type; a streams
    heartbeat on a consumer group and a consumer heartbeat on a streams group are "not a ... group"; a
    classic JoinGroup converts an empty consumer group; classic Heartbeat and SyncGroup on a consumer group
    answer UNKNOWN_MEMBER_ID (GroupMetadataManagerTest#testConsumerGroupHeartbeatWithEmptyClassicGroup,
    #testConsumerGroupHeartbeatWithNonEmptyClassicGroup, #testClassicGroupJoinWithEmptyConsumerGroup,
    #testConsumerGroupDelete)."""
    s = consumer_setup("cg7-03-admin-and-types", topics=(("foo", 2),))
    s.adv(1000).cjoin("m1", group="cg")
    s.req("ListGroups", 5, {"statesFilter": [], "typesFilter": []}, client="admin")
    s.req("ListGroups", 5, {"statesFilter": ["stable "], "typesFilter": ["Consumer"]}, client="admin")
    s.req("ListGroups", 5, {"statesFilter": ["empty"], "typesFilter": []}, client="admin")
    s.describe("cg")
    s.describe("cg", version=5)
    s.req("DeleteGroups", 2, {"groupsNames": ["cg"]}, client="admin")
    ccommit(s, "m1", 2, [0], group="cg")
    s.chb("m1", -1, group="cg")
    s.req("ListGroups", 4, {"statesFilter": ["Empty"]}, client="admin")
    s.req("DeleteGroups", 2, {"groupsNames": ["cg", "missing"]}, client="admin")
    s.cdescribe("cg")
    # A simple classic group (offsets only) is converted by a consumer join.
    ccommit(s, "", -1, [0], group="simple")
    s.cjoin("m1", group="simple")
    s.req("ListGroups", 5, {"statesFilter": [], "typesFilter": []}, client="admin")
    # A classic group of another protocol type is not upgraded.
    j = len(s.lines) + 1
    s.join(group="connect", protocol_type="connect", version=3, session=10000)
    s.adv(3000).tick()
    s.cjoin("m1", group="connect")
    s.chb("m1", 1, group="connect")
    s.cdescribe("connect")
    # Streams and consumer groups do not mix.
    s.sjoin("s1", group="simple", topology=TOPO1)
    s.chb("m1", -1, group="simple")
    s.sjoin("s1", group="streams", topology=TOPO1)
    s.cjoin("m1", group="streams")
    s.chb("m1", -1, group="streams")
    s.cdescribe("streams")
    s.sdescribe("simple")
    # Classic apis on a consumer group.
    s.cjoin("m9", group="cls")
    s.hb("m9", 2, group="cls")
    s.sync("m9", 2, group="cls")
    s.chb("m9", -1, group="cls")
    s.join(group="cls", version=4, session=10000)
    s.describe("cls")
    return s


@scenario
def cg7_05_expiry():
    """The periodic clean-up of a consumer group (ConsumerGroup.offsetExpirationCondition by commit time,
    isSubscribedToTopic by subscription): while the member subscribes to foo, bar's offset expires and
    foo's stays; once the member left, foo's expires too and the group is deleted
    (GroupMetadataManagerTest#testConsumerGroupMaybeDelete)."""
    s = consumer_setup("cg7-05-expiry", topics=(("foo", 2), ("bar", 2)), offsets_retention_minutes=1,
                       offsets_retention_check_interval_ms=5000)
    # bar's offset is committed before the group exists (a simple group the join converts).
    ccommit(s, "", -1, [0], topic="bar")
    s.adv(1000).cjoin("m1")
    s.chb("m1", 2, owned={FOO: [0, 1]})
    ccommit(s, "m1", 2, [0, 1])
    ccommit(s, "", -1, [0], topic="bar", group="empty-other")
    for _ in range(4):
        s.adv(20000).chb("m1", 2)
    s.tick()
    cfetch(s, "m1", 2)
    s.adv(100).chb("m1", -1)
    s.adv(70000).tick()
    s.cdescribe("g")
    cfetch(s, None, -1)
    return s


# ---- consumer-groups-44.md section 5 / 9.8: online migration -------------------------------------------

def consumer_assignment_with_user_data(partitions, user_data):
    """A ConsumerProtocolAssignment v0 for {topic: [partitions]} whose user data is `user_data` bytes."""
    out = struct.pack(">hi", 0, len(partitions))
    for t, ps in partitions.items():
        b = t.encode()
        out += struct.pack(">h", len(b)) + b + struct.pack(">i", len(ps))
        for p in ps:
            out += struct.pack(">i", p)
    out += struct.pack(">i", len(user_data)) + user_data
    return base64.b64encode(out).decode()


def classic_stable(s, group, members, assignments, protocols=("range",), metadata=None, version=9,
                   session=5000, rebalance=10000, protocol_type="consumer", subscriptions=None):
    """Static classic members (instance ids `members`) join `group` with unknown ids and settle at
    generation 1 (Stable) with the leader's `assignments` ({instance: assignment bytes}); returns their
    ids ($gen:<line>). The i-th member's session timeout is `session` + 1000 i (distinct deadlines: Kafka
    schedules the converted members' timers in the random order of their ids); `subscriptions`
    ({instance: [topics]}) overrides `metadata` per member."""
    ids = {}
    for n, inst in enumerate(members):
        ids[inst] = "$gen:%d" % (len(s.lines) + 1)
        meta = metadata or SUB
        if subscriptions and inst in subscriptions:
            meta = consumer_subscription(subscriptions[inst])
        s.join(group=group, instance=inst, session=session + 1000 * n, rebalance=rebalance,
               protocols=protocols, metadata=meta, version=version, protocol_type=protocol_type)
    s.adv(3000).tick()
    s.adv(3000).tick()
    leader = members[0]
    s.sync(ids[leader], 1, group=group, instance=leader, protocol=protocols[0],
           assignments={ids[i]: a for i, a in assignments.items()})
    for inst in members[1:]:
        s.sync(ids[inst], 1, group=group, instance=inst, protocol=protocols[0])
    return ids


@scenario
def cg5_02_online_upgrade():
    """consumer-groups-44.md section 5.2 / 9.8: GroupMetadataManagerTest#testConsumerGroupHeartbeatWithStableClassicGroup
    (a Stable classic group of two static members, foo-1 and foo-2 assigned, upgraded by a
    ConsumerGroupHeartbeat join: the GroupMetadata tombstone, the converted members at the generation
    with their classic metadata, the joiner bumping the epoch; the converted members' session timers use
    their classic session timeout), #testConsumerGroupHeartbeatWithPreparingRebalanceClassicGroup (a parked
    JoinGroup answered REBALANCE_IN_PROGRESS), a parked SyncGroup likewise, and
    #testConsumerGroupHeartbeatWithCustomAssignorClassicGroup (user data of 0 bytes upgrades, of 1 byte
    refuses)."""
    s = consumer_setup("cg5-02-online-upgrade", topics=(("foo", 2), ("bar", 3), ("qux", 1)),
                       group_initial_rebalance_delay_ms=3000, group_min_session_timeout_ms=10)
    # The members' subscriptions never overlap, so no assignor decision depends on the order of the
    # classic members' (random) ids.
    classic_stable(s, "group", ["L", "F"], {"L": consumer_assignment({"foo": [0]}),
                                            "F": consumer_assignment({"qux": [0]})},
                   subscriptions={"L": ["foo"], "F": ["qux"]})
    s.adv(100).cjoin("m2", group="group", topics=("bar",))
    s.cdescribe("group")
    s.describe("group")
    s.adv(100).chb("m2", 2, group="group")
    s.cdescribe("group")
    # The classic members never heartbeat the consumer group here: their classic sessions (5 s, 6 s)
    # fence them.
    s.adv(2500).chb("m2", 2, group="group")
    s.adv(2500).chb("m2", 2, group="group")
    s.adv(1000).chb("m2", 2, group="group")
    s.adv(100).chb("m2", 4, group="group")
    s.cdescribe("group")

    # A rebalance in progress: the leader's rejoin starts one; its JoinGroup is parked and the upgrade
    # answers it REBALANCE_IN_PROGRESS.
    ids = classic_stable(s, "prep", ["L", "F"], {"L": consumer_assignment({"foo": [0]}),
                                                 "F": consumer_assignment({"qux": [0]})},
                         subscriptions={"L": ["foo"], "F": ["qux"]})
    s.adv(100).join(ids["L"], group="prep", instance="L", reason="rejoin",
                    metadata=consumer_subscription(["foo"]))
    s.adv(100).cjoin("m3", group="prep", topics=("bar",))
    s.cdescribe("prep")

    # A sync in progress: the follower's SyncGroup waits for the leader's, the join answers it.
    s.join(group="comp", instance="L", metadata=consumer_subscription(["foo"]))
    jf = len(s.lines) + 1
    s.join(group="comp", instance="F", session=6000, metadata=consumer_subscription(["qux"]))
    s.adv(3000).tick()
    s.adv(3000).tick()
    s.sync("$gen:%d" % jf, 1, group="comp", instance="F")
    s.adv(100).cjoin("m4", group="comp", topics=("bar",))
    s.cdescribe("comp")

    # User data: a 0-byte buffer is no custom assignor, a 1-byte one is.
    classic_stable(s, "ud0", ["L"], {"L": consumer_assignment_with_user_data({"foo": [0]}, b"")})
    s.adv(100).cjoin("m5", group="ud0", topics=("bar",))
    s.cdescribe("ud0")
    classic_stable(s, "ud1", ["L"], {"L": consumer_assignment_with_user_data({"foo": [0]}, b"x")})
    s.adv(100).cjoin("m6", group="ud1", topics=("bar",))
    s.describe("ud1")
    return s


@scenario
def cg5_02b_online_upgrade_refusals():
    """consumer-groups-44.md section 5.2: validateOnlineUpgrade's refusals (GROUP_ID_NOT_FOUND) and the
    conversion's: GroupMetadataManagerTest#testConsumerGroupHeartbeatWithNonEmptyClassicGroup (another
    protocol type), a group larger than group.consumer.max.size, a malformed embedded subscription, a
    group that never completed a join, and (the policy allowing downgrades only) the disabled upgrade."""
    s = consumer_setup("cg5-02b-online-upgrade-refusals", topics=(("foo", 6),),
                       group_initial_rebalance_delay_ms=3000, group_min_session_timeout_ms=10,
                       group_consumer_max_size=2)
    classic_stable(s, "connect", ["L"], {"L": consumer_assignment({"foo": [0]})}, protocol_type="connect")
    s.adv(100).cjoin("m1", group="connect")
    classic_stable(s, "big", ["A", "B", "C"], {"A": consumer_assignment({"foo": [0]})})
    s.adv(100).cjoin("m2", group="big")
    classic_stable(s, "bad", ["L"], {"L": consumer_assignment({"foo": [0]})},
                   metadata=base64.b64encode(b"\x00\x00\xff").decode())
    s.adv(100).cjoin("m3", group="bad")
    s.adv(100).join(group="fresh", instance="X")
    s.adv(100).cjoin("m4", group="fresh")
    s.adv(100).cjoin("m5", group="fresh", version=0)
    s.describe("connect", "big", "bad", "fresh")

    t = consumer_setup("cg5-02c-online-upgrade-disabled", topics=(("foo", 6),),
                       group_initial_rebalance_delay_ms=3000, group_min_session_timeout_ms=10,
                       group_consumer_migration_policy="downgrade")
    classic_stable(t, "group", ["L"], {"L": consumer_assignment({"foo": [0]})})
    t.adv(100).cjoin("m1", group="group")
    t.describe("group")
    t.write()
    return s


@scenario
def cg5_03_classic_members_in_consumer_group():
    """consumer-groups-44.md section 5.3 / 9.8, the policy `upgrade` (no downgrade): classic members
    inside a consumer group. GroupMetadataManagerTest#testJoiningConsumerGroupWithNewDynamicMember
    (MEMBER_ID_REQUIRED, then the join with its records, generation = member epoch, session and sync
    timers), the SyncGroup (assignment in the member's ConsumerProtocol version, ILLEGAL_GENERATION,
    protocol type and name checks, a consumer-protocol member refused), the Heartbeat
    (#testClassicGroupHeartbeatToConsumerGroupRebalanceInProgress: behind the target after a metadata
    change, then a rejoin), OffsetCommit at generation = member epoch, static classic members, the
    protocols check, a malformed subscription, LeaveGroup of classic and consumer-protocol members
    (KAFKA-18188), the session and sync timeouts (#testConsumerGroupMemberUsingClassicProtocolFencedWhenJoinTimeout
    by the sync timer), and #testClassicGroupJoinWithEmptyConsumerGroup."""
    s = consumer_setup("cg5-03-classic-members-in-consumer-group",
                       topics=(("foo", 2), ("bar", 3), ("qux", 1)),
                       group_consumer_migration_policy="upgrade", group_min_session_timeout_ms=10,
                       group_initial_rebalance_delay_ms=0)
    bar = lambda: consumer_subscription(["bar"])
    s.cjoin("m1", group="g", topics=("foo",))
    s.adv(100).chb("m1", 2, group="g", owned={FOO: [0, 1]})
    # A dynamic classic member: MEMBER_ID_REQUIRED, then its join (subscribing to bar): epoch 3.
    jc = len(s.lines) + 1
    s.adv(100).join(group="g", metadata=bar(), session=8000, rebalance=6000)
    c = "$gen:%d" % jc
    s.adv(100).join(c, group="g", metadata=bar(), session=8000, rebalance=6000)
    s.cdescribe("g")
    s.describe("g")
    s.adv(100).sync(c, 2, group="g", protocol="range")
    s.adv(100).sync(c, 3, group="g", protocol="range")
    s.sync(c, 3, group="g", protocol="roundrobin")
    s.sync(c, 3, group="g", version=4)
    s.hb(c, 3, group="g")
    s.hb(c, 2, group="g")
    s.hb("nobody", 3, group="g")
    s.hb("m1", 2, group="g")
    s.sync("m1", 2, group="g")
    s.commit(c, 3, group="g", topic="bar", partitions=(0, 1))
    s.commit(c, 2, group="g", topic="bar", partitions=(0,))
    s.adv(100).chb("m1", 2, group="g")
    # bar grows: m1's next heartbeat moves the target to epoch 4; the classic member must rejoin.
    s.adv(100).topics(("foo", 2), ("bar", 4), ("qux", 1))
    s.adv(1000).chb("m1", 3, group="g")
    s.adv(100).hb(c, 3, group="g")
    s.adv(100).hb(c, 3, group="g")
    s.adv(100).join(c, group="g", metadata=bar(), session=8000, rebalance=6000)
    s.adv(100).sync(c, 4, group="g", protocol="range")
    s.hb(c, 4, group="g")
    s.cdescribe("g")
    # A static classic member subscribing to qux; its protocols must be supported by every classic
    # member (roundrobin alone is not).
    s.adv(1000).join(group="g", instance="S", protocols=("roundrobin",), metadata=consumer_subscription(["qux"]))
    js = len(s.lines) + 1
    s.adv(100).join(group="g", instance="S", protocols=("range", "roundrobin"),
                    metadata=consumer_subscription(["qux"]), session=9000)
    st = "$gen:%d" % js
    s.adv(100).sync(st, 5, group="g", instance="S", protocol="range")
    s.sync(st, 5, group="g", instance="X", protocol="range")
    s.sync("wrong", 5, group="g", instance="S", protocol="range")
    # A malformed subscription, another protocol type.
    jm = len(s.lines) + 1
    s.adv(100).join(group="g", metadata=base64.b64encode(b"\x00\x00\xff").decode())
    s.join("$gen:%d" % jm, group="g", metadata=base64.b64encode(b"\x00\x00\xff").decode())
    s.adv(100).join(group="g", protocol_type="connect")
    s.cdescribe("g")
    s.adv(100).chb("m1", 4, group="g")
    s.hb(c, 4, group="g")
    s.hb(st, 5, group="g", instance="S")
    s.adv(100).join(c, group="g", metadata=bar(), session=8000, rebalance=6000)
    s.adv(100).sync(c, 5, group="g", protocol="range")
    # The static member leaves (LeaveGroup, with an unknown member, a fenced and an unknown instance).
    s.adv(100).leave([(st, "S"), ("nobody", None), ("wrong", "S"), ("", "T")], group="g")
    s.cdescribe("g")
    s.adv(100).chb("m1", 5, group="g")
    # The classic member stops heartbeating: its classic session (8 s) fences it.
    s.adv(9000).chb("m1", 5, group="g")
    s.adv(100).chb("m1", 7, group="g")
    s.cdescribe("g")
    # A classic member that joins and never syncs: the sync timer (its rebalance timeout) fences it.
    jn = len(s.lines) + 1
    s.adv(1000).join(group="g", metadata=bar(), session=30000, rebalance=3000)
    s.adv(100).join("$gen:%d" % jn, group="g", metadata=bar(), session=30000, rebalance=3000)
    s.adv(2000).chb("m1", 7, group="g")
    s.adv(2000).chb("m1", 8, group="g")
    s.cdescribe("g")
    # LeaveGroup removes a consumer-protocol member too (KAFKA-18188); the group is left empty.
    s.adv(100).leave([("m1", None)], group="g")
    s.cdescribe("g")
    # An empty consumer group: a classic join deletes it and the group is classic.
    s.adv(100).join(group="g", metadata=bar())
    s.describe("g")

    t = consumer_setup("cg5-03b-classic-join-migration-disabled", topics=(("foo", 2),),
                       group_consumer_migration_policy="disabled", group_min_session_timeout_ms=10)
    # GroupMetadataManagerTest#testClassicMemberJoinToConsumerGroupWithDisabledMigrationPolicy.
    t.cjoin("m1", group="g", topics=("foo",))
    t.cjoin("m2", group="g", topics=("foo",), instance="I")
    t.adv(100).join(group="g")
    t.join("x", group="g")
    t.join(group="g", instance="I")
    t.hb("m1", 2, group="g")
    t.sync("m1", 2, group="g")
    t.leave([("m1", None)], group="g")
    t.cdescribe("g")
    t.write()
    return s


@scenario
def cg5_04_online_downgrade():
    """consumer-groups-44.md section 5.4 / 9.8: GroupMetadataManagerTest#testLastConsumerProtocolMemberLeavingConsumerGroup
    (the policy `downgrade`: a consumer group of a classic member and a consumer-protocol member; the
    latter leaves with -1: the consumer group's tombstones, then GroupMetadata at the group epoch with
    the classic member leading and its target as assignment; the classic group rebalances), the classic
    member then rejoining the classic group; the same through a LeaveGroup naming the consumer-protocol
    member (KAFKA-18188) and through its session timeout; a group over group.max.size stays a consumer
    group; a classic static member replacing the last consumer-protocol member (trigger B, with and
    without a stale assignment)."""
    s = consumer_setup("cg5-04-online-downgrade", topics=(("foo", 3), ("bar", 2), ("qux", 1)),
                       group_consumer_migration_policy="downgrade", group_min_session_timeout_ms=10,
                       group_initial_rebalance_delay_ms=0, group_max_size=2)
    bar = lambda: consumer_subscription(["bar"])
    for g, how in (("g1", "leave"), ("g2", "leavegroup"), ("g3", "timeout"), ("g4", "toobig")):
        s.adv(100).cjoin("m-" + g, group=g, topics=("foo",), rebalance=4000)
        s.adv(100).chb("m-" + g, 2, group=g, owned={FOO: [0, 1, 2]})
        jc = len(s.lines) + 1
        s.adv(1000).join(group=g, metadata=bar(), session=8000, rebalance=6000)
        c = "$gen:%d" % jc
        s.join(c, group=g, metadata=bar(), session=8000, rebalance=6000)
        s.sync(c, 3, group=g)
        if how == "toobig":
            for _ in range(2):
                jd = len(s.lines) + 1
                s.adv(1000).join(group=g, metadata=bar(), session=8000, rebalance=6000)
                s.join("$gen:%d" % jd, group=g, metadata=bar(), session=8000, rebalance=6000)
            s.adv(100).chb("m-" + g, -1, group=g)
            s.cdescribe(g)
            continue
        if how == "leave":
            s.adv(100).chb("m-" + g, -1, group=g)
        elif how == "leavegroup":
            s.adv(100).leave([("m-" + g, None)], group=g)
        else:
            # The consumer-protocol member stops heartbeating: its session (45 s) fences it while the
            # classic member keeps its own alive.
            for _ in range(7):
                s.adv(7000).hb(c, 3, group=g)
        s.describe(g)
        s.cdescribe(g)
        # The classic member rejoins the classic group.
        s.adv(100).join(c, group=g, metadata=bar(), session=8000, rebalance=6000)
        s.adv(100).sync(c, 4, group=g, assignments={c: consumer_assignment({"bar": [0, 1]})})
        s.hb(c, 4, group=g)
        s.describe(g)
    # A classic static member replacing the last consumer-protocol member (a static one) downgrades the
    # group (validateOnlineDowngradeWithReplacedMember): with the same subscription the joiner is
    # reconciled and the classic group stays Stable; with a new one the assignment is stale and the
    # classic group rebalances (KAFKA-20273).
    for g, topics in (("g5", ["foo"]), ("g6", ["foo", "qux"])):
        s.adv(100).cjoin("m-" + g, group=g, topics=("foo",), instance="I")
        s.adv(100).chb("m-" + g, 2, group=g, owned={FOO: [0, 1, 2]}, instance="I")
        jc = len(s.lines) + 1
        s.adv(1000).join(group=g, metadata=bar(), session=8000, rebalance=6000)
        c = "$gen:%d" % jc
        s.join(c, group=g, metadata=bar(), session=8000, rebalance=6000)
        s.sync(c, 3, group=g)
        s.adv(100).join(group=g, instance="I", metadata=consumer_subscription(topics), session=8000)
        # No DescribeGroups: the classic group of two members Kafka builds here keeps them in a map of
        # random ids (its GroupMetadata record is compared sorted).
        s.cdescribe(g)
    return s


def main():
    # Every top-level script is written here; known-divergences/ also holds hand-kept scripts (cut from
    # generated ones), which are left alone.
    for f in os.listdir(HERE):
        if f.endswith(".jsonl"):
            os.remove(os.path.join(HERE, f))
    n = 0
    for fn in SCENARIOS:
        s = fn()
        if s is not None:
            s.write()
    n = len([f for f in os.listdir(HERE) if f.endswith(".jsonl")])
    print("wrote %d corpus scripts to %s (and the generated known divergences)" % (n, HERE))


if __name__ == "__main__":
    main()
