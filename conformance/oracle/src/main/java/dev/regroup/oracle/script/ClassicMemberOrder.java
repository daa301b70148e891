package dev.regroup.oracle.script;

import org.apache.kafka.coordinator.common.runtime.CoordinatorRuntime;
import org.apache.kafka.coordinator.group.Group;
import org.apache.kafka.coordinator.group.classic.ClassicGroup;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Pins the one thing in Kafka's classic groups that is random: the order of members. ClassicGroup keeps its
 * members in a HashMap keyed by member ids that end in a random UUID, so the order of the leader's member
 * list, of DescribeGroups, of the GroupMetadata record, of completing parked joins, and the member chosen as
 * the new leader when the leader goes, follow the hashes of random ids: any order can happen. regroup
 * documents one of them (coordinator/src/classic/group.rs): members in the order they joined, a static
 * member that replaces another taking its place. After each step the oracle swaps the member map (and the
 * pending-join/pending-sync sets) of every classic group for insertion-ordered ones that follow that rule,
 * so Kafka's own code runs with that order and everything else unchanged.
 */
final class ClassicMemberOrder {
    private final Object runtime;
    private static final Field COORDINATORS;
    private static final Field MEMBERS;
    private static final Field PENDING_JOIN;
    private static final Field PENDING_SYNC;

    static {
        try {
            COORDINATORS = field(CoordinatorRuntime.class, "coordinators");
            MEMBERS = field(ClassicGroup.class, "members");
            PENDING_JOIN = field(ClassicGroup.class, "pendingJoinMembers");
            PENDING_SYNC = field(ClassicGroup.class, "pendingSyncMembers");
        } catch (NoSuchFieldException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    ClassicMemberOrder(CoordinatorRuntime<?, ?> runtime) {
        this.runtime = runtime;
    }

    private static Field field(Class<?> c, String name) throws NoSuchFieldException {
        Field f = c.getDeclaredField(name);
        f.setAccessible(true);
        return f;
    }

    private static Object get(Object o, String name) throws ReflectiveOperationException {
        for (Class<?> c = o.getClass(); c != null; c = c.getSuperclass()) {
            try {
                Field f = c.getDeclaredField(name);
                f.setAccessible(true);
                return f.get(o);
            } catch (NoSuchFieldException e) {
                // keep looking in the superclass
            }
        }
        throw new NoSuchFieldException(o.getClass().getName() + "." + name);
    }

    /** Swaps in the ordered containers for every classic group that does not have them yet. */
    @SuppressWarnings("unchecked")
    void pin() {
        try {
            Map<?, ?> contexts = (Map<?, ?>) COORDINATORS.get(runtime);
            for (Object context : contexts.values()) {
                Object snapshottable = get(context, "coordinator");
                if (snapshottable == null) continue;
                Object shard = get(snapshottable, "coordinator");
                Object manager = get(shard, "groupMetadataManager");
                Map<String, Group> groups = (Map<String, Group>) get(manager, "groups");
                for (Group g : groups.values()) {
                    if (!(g instanceof ClassicGroup classic)) continue;
                    Map<String, Object> members = (Map<String, Object>) MEMBERS.get(classic);
                    if (!(members instanceof PlaceKeepingMap)) MEMBERS.set(classic, new PlaceKeepingMap<>(members));
                    Set<String> join = (Set<String>) PENDING_JOIN.get(classic);
                    if (!(join instanceof LinkedHashSet)) PENDING_JOIN.set(classic, new LinkedHashSet<>(join));
                    Set<String> sync = (Set<String>) PENDING_SYNC.get(classic);
                    if (!(sync instanceof LinkedHashSet)) PENDING_SYNC.set(classic, new LinkedHashSet<>(sync));
                }
            }
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot pin the member order of classic groups", e);
        }
    }

    /**
     * An insertion-ordered map in which a key put right after a removal, with no other call in between,
     * takes the removed key's place: ClassicGroup.replaceStaticMember removes the old member id and puts the
     * new one back to back, and nothing else does.
     */
    static final class PlaceKeepingMap<K, V> extends LinkedHashMap<K, V> {
        private int freedSlot = -1;

        PlaceKeepingMap(Map<K, V> initial) {
            super(initial);
        }

        private void touch() {
            freedSlot = -1;
        }

        @Override
        public V remove(Object key) {
            int index = 0;
            int found = -1;
            for (K k : super.keySet()) {
                if (k.equals(key)) {
                    found = index;
                    break;
                }
                index++;
            }
            V removed = super.remove(key);
            freedSlot = found;
            return removed;
        }

        @Override
        public V put(K key, V value) {
            int slot = freedSlot;
            freedSlot = -1;
            if (slot < 0 || super.containsKey(key) || slot >= super.size() + 1) return super.put(key, value);
            // Re-insert everything from the freed slot on, after the new key.
            List<Map.Entry<K, V>> tail = new ArrayList<>();
            int index = 0;
            for (Map.Entry<K, V> e : super.entrySet()) {
                if (index++ >= slot) tail.add(Map.entry(e.getKey(), e.getValue()));
            }
            for (Map.Entry<K, V> e : tail) super.remove(e.getKey());
            V previous = super.put(key, value);
            for (Map.Entry<K, V> e : tail) super.put(e.getKey(), e.getValue());
            return previous;
        }

        @Override
        public V get(Object key) {
            touch();
            return super.get(key);
        }

        @Override
        public boolean containsKey(Object key) {
            touch();
            return super.containsKey(key);
        }

        @Override
        public Set<K> keySet() {
            touch();
            return super.keySet();
        }

        @Override
        public Collection<V> values() {
            touch();
            return super.values();
        }

        @Override
        public Set<Map.Entry<K, V>> entrySet() {
            touch();
            return super.entrySet();
        }

        @Override
        public int size() {
            touch();
            return super.size();
        }

        @Override
        public boolean isEmpty() {
            touch();
            return super.isEmpty();
        }
    }
}
