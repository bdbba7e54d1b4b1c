package io.mmx.rdma.verbs;

import com.ibm.disni.verbs.IbvCQ;
import com.ibm.disni.verbs.IbvQP;
import com.ibm.disni.verbs.IbvWC;
import com.ibm.disni.verbs.SVCPollCq;

import java.io.IOException;

/**
 * {@link VerbsQueuePair} over a DiSNI queue pair and its send completion queue: posts through
 * {@link DisniPostSend} (mmx's own work-request bytes) and polls with DiSNI's stateful
 * {@code ibv_poll_cq} call, which is allocation-free once built.
 *
 * <p>Compiled against DiSNI 2.1 but not yet run on RDMA hardware; {@link DisniVerbsConnector}
 * creates it once an edge is connected (docs/memory-fabric.md, "verbs").
 */
public final class DisniQueuePair implements VerbsQueuePair
{
    private final DisniPostSend poster;
    private final IbvQP qp;
    private final IbvWC[] completions;
    private final SVCPollCq pollCall;
    private boolean failed;

    /**
     * @param poster  the poster for the verbs context of {@code qp}.
     * @param qp      a connected RC queue pair.
     * @param sendCq  the completion queue of its send queue.
     * @param depth   completions taken per poll.
     * @throws IOException if DiSNI cannot prepare the poll call.
     */
    public DisniQueuePair(final DisniPostSend poster, final IbvQP qp, final IbvCQ sendCq, final int depth)
        throws IOException
    {
        this.poster = poster;
        this.qp = qp;
        this.completions = new IbvWC[depth];
        for (int i = 0; i < depth; i++)
        {
            completions[i] = new IbvWC();
        }
        this.pollCall = sendCq.poll(completions, depth);
    }

    @Override
    public boolean post(final long wrAddress)
    {
        if (failed)
        {
            return false;
        }
        try
        {
            poster.post(qp, wrAddress);
            return true;
        }
        catch (final IOException ex)
        {
            // ibv_post_send fails with ENOMEM when the send queue is full: back pressure, not a fault.
            return false;
        }
    }

    @Override
    public int poll(final WorkCompletionHandler handler, final int max)
    {
        final int polled;
        try
        {
            polled = pollCall.execute().getPolls();
        }
        catch (final IOException ex)
        {
            failed = true;
            return 0;
        }
        for (int i = 0; i < polled; i++)
        {
            handler.onCompletion(completions[i].getWr_id(), completions[i].getStatus());
        }
        return polled;
    }

    @Override
    public void close()
    {
        failed = true;
        pollCall.free();
    }
}
