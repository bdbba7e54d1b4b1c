package io.mmx.rdma.region;

import io.mmx.rdma.fabric.CompletionSink;
import io.mmx.rdma.fabric.OpStatus;
import io.mmx.rdma.fabric.OpType;
import io.mmx.rdma.fabric.RegionLink;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

/**
 * A link to a region in directly addressable memory (in-process or a shared mapping).
 * Operations execute synchronously inside {@link #submit}. Submitted through the fabric, their
 * completions are still delivered through its queue, so callers see the same asynchronous contract
 * as on the network backends; {@link io.mmx.rdma.fabric.MemoryFabric#wordNow} runs a word operation
 * at once instead.
 */
public final class DirectRegionLink implements RegionLink
{
    private final int owner;
    private final RegionResolver resolver;
    private final Runnable onClose;
    private RegionResolver.Resolution resolution;

    /**
     * Opens a link and resolves the region once; a missing region is resolved again on each use.
     *
     * @param onClose releases what the resolver acquired (e.g. unmaps the file); may be a no-op.
     */
    public DirectRegionLink(final int owner, final RegionResolver resolver, final Runnable onClose)
    {
        this.owner = owner;
        this.resolver = resolver;
        this.onClose = onClose;
        this.resolution = resolver.resolve(owner);
    }

    @Override
    public int owner()
    {
        return owner;
    }

    @Override
    public OpStatus state()
    {
        return resolution.status();
    }

    @Override
    public String stateMessage()
    {
        return resolution.message();
    }

    /** The region, or null while it cannot be opened. */
    public RegionMemory memory()
    {
        return resolution.memory();
    }

    @Override
    public void submit(
        final long correlationId,
        final OpType type,
        final long offset,
        final long operand1,
        final long operand2,
        final MutableDirectBuffer dst,
        final DirectBuffer src,
        final int bufOffset,
        final int length,
        final CompletionSink sink)
    {
        if (resolution.status() == OpStatus.REGION_LOST)
        {
            // The owner may have created its region since: neighbours start in any order.
            resolution = resolver.resolve(owner);
        }
        final RegionMemory memory = resolution.memory();
        if (memory == null)
        {
            sink.complete(correlationId, resolution.status(), 0, null, 0);
            return;
        }
        final OpStatus check = memory.check(type, offset, length);
        if (check != OpStatus.OK)
        {
            sink.complete(correlationId, check, 0, null, 0);
            return;
        }
        long value = length;
        switch (type)
        {
            case READ_BULK:
                memory.readBulk(offset, dst, bufOffset, length);
                break;
            case WRITE_BULK:
                memory.writeBulk(offset, src, bufOffset, length);
                break;
            default:
                value = memory.executeWord(type, offset, operand1, operand2);
                break;
        }
        sink.complete(correlationId, OpStatus.OK, value, null, 0);
    }

    @Override
    public int doWork(final CompletionSink sink)
    {
        return 0;
    }

    /** Every operation completes inside {@code submit}. */
    @Override
    public boolean completesInline()
    {
        return true;
    }

    @Override
    public void close()
    {
        resolution = RegionResolver.Resolution.failed(OpStatus.CLOSED, "link to process " + owner + " is closed");
        onClose.run();
    }
}
