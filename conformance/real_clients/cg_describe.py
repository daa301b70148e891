"""A raw ConsumerGroupDescribe v1 (api 69) over one socket, for the epochs the client libraries do
not expose (confluent-kafka's `describe_consumer_groups` has no group, assignment or member epoch).

`regroup serve` is a single broker, so the bootstrap address is every group's coordinator. The
codec follows Kafka's ConsumerGroupDescribeRequest/Response.json (flexible from v0): request
header v2, response header v1, compact strings and arrays, empty tagged-field sections.
"""

import socket
import struct


def _uvarint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _compact_str(s):
    b = s.encode()
    return _uvarint(len(b) + 1) + b


class _Reader:
    def __init__(self, data):
        self.data = data
        self.pos = 0

    def take(self, n):
        b = self.data[self.pos : self.pos + n]
        if len(b) != n:
            raise ValueError("ConsumerGroupDescribe response is truncated")
        self.pos += n
        return b

    def i8(self):
        return struct.unpack(">b", self.take(1))[0]

    def i16(self):
        return struct.unpack(">h", self.take(2))[0]

    def i32(self):
        return struct.unpack(">i", self.take(4))[0]

    def uvarint(self):
        shift = value = 0
        while True:
            b = self.take(1)[0]
            value |= (b & 0x7F) << shift
            if not b & 0x80:
                return value
            shift += 7

    def string(self):
        n = self.uvarint()
        return None if n == 0 else self.take(n - 1).decode()

    def array(self, item):
        n = self.uvarint()
        return None if n == 0 else [item() for _ in range(n - 1)]

    def tags(self):
        for _ in range(self.uvarint()):
            self.uvarint()
            self.take(self.uvarint())


def _assignment(r):
    def topic():
        r.take(16)  # topic id
        name = r.string()
        partitions = r.array(r.i32) or []
        r.tags()
        return name, sorted(partitions)

    topics = r.array(topic) or []
    r.tags()
    return sorted((name, p) for name, parts in topics for p in parts)


def _member(r):
    m = {
        "member_id": r.string(),
        "instance_id": r.string(),
        "rack_id": r.string(),
        "member_epoch": r.i32(),
        "client_id": r.string(),
        "client_host": r.string(),
        "subscribed_topic_names": r.array(r.string),
        "subscribed_topic_regex": r.string(),
        "assignment": _assignment(r),
        "target_assignment": _assignment(r),
        "member_type": r.i8(),
    }
    r.tags()
    return m


def _group(r):
    g = {
        "error_code": r.i16(),
        "error_message": r.string(),
        "group_id": r.string(),
        "group_state": r.string(),
        "group_epoch": r.i32(),
        "assignment_epoch": r.i32(),
        "assignor_name": r.string(),
        "members": r.array(lambda: _member(r)) or [],
        "authorized_operations": r.i32(),
    }
    r.tags()
    return g


def describe(addr, group, timeout=10.0):
    """The ConsumerGroupDescribe v1 entry of `group` as a dict (members keyed by instance id when
    they have one, else by member id)."""
    host, port = addr.rsplit(":", 1)
    client_id = b"regroup-check"
    header = struct.pack(">hhih", 69, 1, 1, len(client_id)) + client_id + b"\x00"
    body = _uvarint(2) + _compact_str(group) + b"\x00" + b"\x00"
    frame = header + body
    with socket.create_connection((host, int(port)), timeout=timeout) as s:
        s.sendall(struct.pack(">i", len(frame)) + frame)
        size = struct.unpack(">i", _recv(s, 4))[0]
        r = _Reader(_recv(s, size))
    if r.i32() != 1:
        raise ValueError("ConsumerGroupDescribe: wrong correlation id")
    r.tags()
    r.i32()  # throttle
    groups = r.array(lambda: _group(r)) or []
    r.tags()
    if len(groups) != 1:
        raise ValueError(f"ConsumerGroupDescribe answered {len(groups)} groups")
    g = groups[0]
    g["members"] = {m["instance_id"] or m["member_id"]: m for m in g["members"]}
    return g


def _recv(s, n):
    out = b""
    while len(out) < n:
        chunk = s.recv(n - len(out))
        if not chunk:
            raise ValueError("connection closed")
        out += chunk
    return out
