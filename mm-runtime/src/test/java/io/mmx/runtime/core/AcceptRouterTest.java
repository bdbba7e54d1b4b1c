package io.mmx.runtime.core;

import io.mmx.planner.graph.Graph;
import io.mmx.runtime.sim.TestGraphs;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Where a leader's thrifty Accepts go: the acceptors it executes itself to itself, owners executing
 * their own acceptors one Accept per host, an executor running someone else's acceptor alone.
 */
class AcceptRouterTest
{
    /** Sends as "send TO [acceptors]" or "host TO [acceptors]". */
    private static final class Recording extends IgnoringEffects
    {
        final List<String> sends = new ArrayList<>();

        @Override
        public void send(final int to, final Message message)
        {
            sends.add("send " + to + " " + Arrays.toString(((Message.Accept)message).acceptors));
        }

        @Override
        public void sendToHost(final int to, final Message message)
        {
            sends.add("host " + to + " " + Arrays.toString(((Message.Accept)message).acceptors));
        }

        @Override
        public void broadcast(final Message message)
        {
            sends.add("broadcast");
        }
    }

    private static final Graph GRAPH = TestGraphs.complete(8);

    @Test
    void ownersShareOneAcceptPerHostAndEveryOtherExecutorGetsItsOwn()
    {
        // Hosts: processes 0-3 on host 0 (the leader's), 4-7 on host 1. Quorum 5, target 6 acceptors.
        final CoreConfig config = new CoreConfig().graph(GRAPH).hosts(new int[]{0, 0, 0, 0, 1, 1, 1, 1}).conclude();
        final Recording effects = new Recording();
        final AcceptRouter router = new AcceptRouter(0, config, effects, q -> q == 0 || q == 1);
        router.send(1, 0, new long[][]{{1}}, -1, -1);
        assertEquals(List.of("broadcast"), effects.sends, "no executors known yet besides our own two");

        effects.sends.clear();
        for (int q = 2; q < 8; q++)
        {
            router.heard(q, q == 5 ? 6 : q); // 6 runs 5's acceptor: it suspects 5
        }
        router.send(1, 0, new long[][]{{1}}, -1, -1);
        // Host 1 has one owner in this group: a plain send.
        assertEquals(List.of("send 0 [0, 1]", "send 4 [4]", "send 6 [5]", "host 2 [2, 3]").toString(),
            sortedHostsLast(effects.sends).toString());
    }

    @Test
    void aNewTermForgetsTheExecutorsOfTheLastOne()
    {
        final CoreConfig config = new CoreConfig().graph(GRAPH).conclude();
        final Recording effects = new Recording();
        final AcceptRouter router = new AcceptRouter(0, config, effects, q -> q == 0);
        for (int q = 1; q < 8; q++)
        {
            router.heard(q, q);
        }
        // Processes 1 and 2 crash with the old leader; a new phase 1 starts and 3-7 promise (quorum 5, target 6).
        router.forgetExecutors();
        router.send(2, 0, new long[][]{{1}}, -1, -1);
        assertEquals(List.of("broadcast"), effects.sends, "the old term's executors are not trusted");
        effects.sends.clear();
        for (int q = 3; q < 8; q++)
        {
            router.heard(q, q);
        }
        router.send(2, 0, new long[][]{{1}}, -1, -1);
        assertEquals(List.of("send 0 [0]", "send 3 [3]", "send 4 [4]", "send 5 [5]", "send 6 [6]", "send 7 [7]"), effects.sends,
            "only this term's executors, none of the crashed ones");
    }

    @Test
    void withoutSharedHostsEveryExecutorGetsItsOwnAccept()
    {
        final CoreConfig config = new CoreConfig().graph(GRAPH).conclude();
        final Recording effects = new Recording();
        final AcceptRouter router = new AcceptRouter(0, config, effects, q -> q == 0);
        for (int q = 1; q < 8; q++)
        {
            router.heard(q, q);
        }
        router.send(1, 0, new long[][]{{1}}, -1, -1);
        assertEquals(List.of("send 0 [0]", "send 1 [1]", "send 2 [2]", "send 3 [3]", "send 4 [4]", "send 5 [5]"),
            effects.sends);
    }

    private static List<String> sortedHostsLast(final List<String> sends)
    {
        final List<String> sorted = new ArrayList<>(sends);
        sorted.sort((a, b) -> Boolean.compare(a.startsWith("host"), b.startsWith("host")) != 0 ?
            Boolean.compare(a.startsWith("host"), b.startsWith("host")) : a.compareTo(b));
        return sorted;
    }
}
