package io.mmx.runtime.core;

import io.mmx.planner.graph.Graph;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A Promise leaves out the entries the proposer has applied, as its Prepare says (knownThrough):
 * the proposer re-proposes only above its applied prefix, so those entries are never used, and at
 * n = 4096 sending every acceptor's whole window kept a new leader's phase 1 waiting for seconds.
 * Only the Prepare of the promised ballot decides what is left out.
 */
class PromiseTailTest
{
    private static final class Sent extends IgnoringEffects
    {
        final List<Message.Promise> promises = new ArrayList<>();
        long readOp = -1;

        @Override
        public void memory(final long opId, final MemoryOpKind kind, final int region, final int offsetWords,
            final int lengthWords, final long expected, final long value, final long[] payload)
        {
            if (readOp == -1)
            {
                readOp = opId; // the start's read of its own region's header
            }
        }

        @Override
        public void send(final int to, final Message message)
        {
            if (message instanceof Message.Promise p)
            {
                promises.add(p);
            }
        }
    }

    private static AcceptorRecord window(final CoreConfig config, final long ballot)
    {
        final AcceptorRecord record = new AcceptorRecord(config.recordMaxEntries(), config.valueWords());
        AcceptorTransition.prepare(record, ballot);
        for (long slot = 5; slot <= 9; slot++)
        {
            record.put(slot, 1, new long[] {100 + slot});
        }
        return record;
    }

    private static final int N = 5;
    private static final CoreConfig CONFIG = new CoreConfig().graph(Graph.empty(N)).conclude();

    private final Sent effects = new Sent();
    private final MmPaxosCore core = ready(CONFIG, effects);

    /** A core that read its (fresh) region's header: ready for messages. */
    private static MmPaxosCore ready(final CoreConfig config, final Sent effects)
    {
        final MmPaxosCore core = new MmPaxosCore(0, config, effects, 1);
        core.start(0);
        final long[] header = new long[RegionLayout.HEADER_WORDS];
        RegionLayout.initHeader(header, 0, config.planHash());
        core.onMemoryCompletion(effects.readOp, MemoryStatus.OK, 0, header, 0);
        return core;
    }

    @Test
    void entriesThroughTheProposersAppliedPrefixAreLeftOut()
    {
        final long ballot = Ballot.of(3, 2, N);
        core.onMessage(new Message.Prepare(2, ballot, 6), 0);

        core.promised(0, ballot, window(CONFIG, ballot));
        final Message.Promise tail = effects.promises.get(0);
        assertEquals(6, tail.omittedThrough);
        assertArrayEquals(new long[] {7, 8, 9}, tail.slots, "slots 5 and 6 are applied at the proposer");
        assertArrayEquals(new long[] {107}, tail.values[0]);

        // A resend of the same Prepare after the proposer applied more: it only leaves out more.
        core.onMessage(new Message.Prepare(2, ballot, 8), 0);
        core.promised(0, ballot, window(CONFIG, ballot));
        assertArrayEquals(new long[] {9}, effects.promises.get(1).slots);
        core.onMessage(new Message.Prepare(2, ballot, 4), 0); // a late copy of an earlier send
        core.promised(0, ballot, window(CONFIG, ballot));
        assertArrayEquals(new long[] {9}, effects.promises.get(2).slots, "what it has applied it keeps applied");
    }

    @Test
    void aPromiseForAnotherBallotThanThePrepareSeenLeavesNothingOut()
    {
        final long seen = Ballot.of(3, 2, N);
        core.onMessage(new Message.Prepare(2, seen, 8), 0);
        final long other = Ballot.of(2, 1, N);

        core.promised(0, other, window(CONFIG, other));
        final Message.Promise whole = effects.promises.get(0);
        assertEquals(-1, whole.omittedThrough);
        assertArrayEquals(new long[] {5, 6, 7, 8, 9}, whole.slots, "another proposer's knowledge is not this one's");
    }
}
