package dev.regroup.oracle.script;

import org.apache.kafka.common.Uuid;

import java.nio.charset.StandardCharsets;

/**
 * regroup's rule for the id of a topic a script names without one ({@code coordinator::topics::derived_topic_id}):
 * the most significant half is the 64-bit FNV-1a hash of the UTF-8 name, the least significant half the same
 * hash from a second offset basis with its lowest bit set. Topic ids enter the streams metadata hash, so
 * both sides must derive the same ones.
 */
public final class TopicIds {
    private static final long FNV_PRIME = 0x0000_0100_0000_01b3L;
    private static final long BASIS_HIGH = 0xcbf2_9ce4_8422_2325L;
    private static final long BASIS_LOW = 0x8422_2325_cbf2_9ce4L;

    private TopicIds() { }

    static long fnv1a(byte[] bytes, long basis) {
        long h = basis;
        for (byte b : bytes) {
            h ^= b & 0xffL;
            h *= FNV_PRIME;
        }
        return h;
    }

    public static Uuid derived(String name) {
        byte[] bytes = name.getBytes(StandardCharsets.UTF_8);
        return new Uuid(fnv1a(bytes, BASIS_HIGH), fnv1a(bytes, BASIS_LOW) | 1L);
    }
}
