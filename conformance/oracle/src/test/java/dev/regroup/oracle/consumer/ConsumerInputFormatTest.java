package dev.regroup.oracle.consumer;

import dev.regroup.oracle.InputFormat;

import org.apache.kafka.coordinator.group.api.assignor.PartitionAssignorException;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The examples of docs/consumer.md, answered by Kafka 4.4.0's own assignors. */
class ConsumerInputFormatTest {
    private static final String T1 = "T1-A4s3VTwiI5CTbEp6POw";
    private static final String T3 = "T3-CU8fVTLCz5YMkLoDQsQ";

    private static String run(String json) throws Exception {
        return ConsumerInputFormat.run(InputFormat.MAPPER.readTree(json));
    }

    @Test
    void documentedExample() throws Exception {
        String input = ("{'kind':'consumer','assignor':'uniform',"
            + "'topics':[{'id':'T1','partitions':3},{'id':'T3','partitions':2,'racks':{'0':['r1','r2']}}],"
            + "'members':[{'memberId':'A','subscribedTopicIds':['T1','T3'],'assignment':{'T1':[2,0]}},"
            + "{'memberId':'B','instanceId':'b','rackId':'r1','subscribedTopicIds':['T3','T1']}]}")
            .replace('\'', '"').replace("T1", T1).replace("T3", T3);
        assertEquals(("{'members':{'A':{'T1':[0,2]},'B':{'T1':[1],'T3':[0,1]}}}")
            .replace('\'', '"').replace("T1", T1).replace("T3", T3), run(input));
    }

    @Test
    void rangeAndItsError() throws Exception {
        String input = ("{'kind':'consumer','assignor':'range','subscriptionType':'heterogeneous',"
            + "'topics':[{'id':'T1','partitions':3},{'id':'T3','partitions':2}],"
            + "'members':[{'memberId':'B','subscribedTopicIds':['T1','T3']},{'memberId':'A','subscribedTopicIds':['T3','T1']}]}")
            .replace('\'', '"').replace("T1", T1).replace("T3", T3);
        assertEquals(("{'members':{'A':{'T1':[0,1],'T3':[0]},'B':{'T1':[2],'T3':[1]}}}")
            .replace('\'', '"').replace("T1", T1).replace("T3", T3), run(input));
        PartitionAssignorException e = assertThrows(PartitionAssignorException.class, () -> run(
            ("{'kind':'consumer','assignor':'range','members':[{'memberId':'A','subscribedTopicIds':['T1']}]}")
                .replace('\'', '"').replace("T1", T1)));
        assertEquals("Member is subscribed to a non-existent topic", e.getMessage());
    }

    @Test
    void nobodySubscribedReturnsNoMember() throws Exception {
        assertEquals("{\"members\":{}}",
            run("{\"kind\":\"consumer\",\"members\":[{\"memberId\":\"A\"},{\"memberId\":\"B\"}]}"));
    }
}
