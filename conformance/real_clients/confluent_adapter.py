"""How `common.Worker` drives a confluent-kafka Consumer (check_confluent.py, check_confluent_consumer.py).

The generation is read from librdkafka's serialized group metadata (`consumer_group_metadata()`:
"CGMDv2:", then the generation id as a native-endian int32): the classic protocol's generation, the
member epoch under group.protocol=consumer.
"""

import struct


class Adapter:
    @staticmethod
    def poll(c):
        msg = c.poll(0.1)
        if msg is not None and msg.error() is not None:
            err = msg.error()
            return ("fatal " if err.fatal() else "") + f"{err.name()}: {err.str()}"
        return None

    @staticmethod
    def assignment(c):
        return sorted((tp.topic, tp.partition) for tp in c.assignment())

    @staticmethod
    def generation(c):
        blob = c.consumer_group_metadata()
        if not blob.startswith(b"CGMDv2:") or len(blob) < 11:
            return None
        return struct.unpack("=i", blob[7:11])[0]

    @staticmethod
    def close(c):
        c.close()
