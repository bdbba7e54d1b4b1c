package io.mmx.aeron.transport;

import io.aeron.logbuffer.FrameDescriptor;
import io.mmx.aeron.frame.FrameKey;
import io.mmx.aeron.frame.FrameHeader;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.NoOpIdleStrategy;
import org.agrona.concurrent.SleepingMillisIdleStrategy;
import org.agrona.concurrent.YieldingIdleStrategy;

import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Every setting of an {@link AeronTransport}, with defaults sized for n = 4096 processes
 * (see docs/transport.md). {@link #conclude()} validates all of them at once and reports every
 * problem in one message.
 */
public final class TransportContext
{
    /** Where frames travel. */
    public enum Medium
    {
        /** UDP unicast between endpoints; IPC to processes at the same endpoint. */
        UDP,
        /** IPC only: every process of the directory lives in this JVM (tests, benchmarks). */
        IPC
    }

    /** How a broadcast reaches every remote endpoint. */
    public enum BroadcastMode
    {
        /** One offer per remote endpoint on its unicast publication. */
        UNICAST_FANOUT,
        /** One multi-destination-cast publication (manual control mode) with every remote endpoint added. */
        MDC
    }

    /** Whose media driver the transport uses. */
    public enum DriverMode
    {
        /** Launch one driver in this JVM, shared by every process hosted here. */
        EMBEDDED,
        /** Connect to a driver already running on {@link #aeronDirectoryName()}. */
        EXTERNAL
    }

    /** Default UDP term length: the Aeron minimum, 64 KiB, so that 4096-way fan-in fits (docs/transport.md). */
    public static final int DEFAULT_TERM_LENGTH_BYTES = 64 * 1024;
    /** Default IPC term length. */
    public static final int DEFAULT_IPC_TERM_LENGTH_BYTES = 64 * 1024;
    /** Default MTU: Aeron's default, fits a 1500-byte Ethernet frame. */
    public static final int DEFAULT_MTU_LENGTH_BYTES = 1408;
    /** Default Aeron stream id of mmx frames. */
    public static final int DEFAULT_STREAM_ID = 0x6D6D;
    /** Default largest frame, tag included; longer frames are fragmented by Aeron and reassembled. */
    public static final int DEFAULT_MAX_FRAME_LENGTH_BYTES = 8 * 1024;
    /** Default retries of an offer that is back-pressured before the frame is dropped. */
    public static final int DEFAULT_MAX_OFFER_RETRIES = 3;
    /** Default fragments read per poll. */
    public static final int DEFAULT_FRAGMENT_LIMIT = 64;
    /** Default cap on publications (remote endpoints) this transport keeps open. */
    public static final int DEFAULT_MAX_PUBLICATIONS = 4096;

    /** Default counter values buffer of the embedded driver: room for ~16k counters (about 10 per remote endpoint). */
    public static final int DEFAULT_COUNTER_VALUES_BUFFER_LENGTH_BYTES = 2 * 1024 * 1024;

    private static final int MIN_TERM_LENGTH = 64 * 1024;
    private static final int MAX_TERM_LENGTH = 1024 * 1024 * 1024;

    private FrameKey frameKey;
    private ProcessDirectory directory;
    private String localEndpoint;
    private Medium medium = Medium.UDP;
    private BroadcastMode broadcastMode = BroadcastMode.UNICAST_FANOUT;
    private DriverMode driverMode = DriverMode.EMBEDDED;
    private io.aeron.Aeron client;
    private String aeronDirectoryName;
    private int termLengthBytes = DEFAULT_TERM_LENGTH_BYTES;
    private int ipcTermLengthBytes = DEFAULT_IPC_TERM_LENGTH_BYTES;
    private int mtuLengthBytes = DEFAULT_MTU_LENGTH_BYTES;
    private int streamId = DEFAULT_STREAM_ID;
    private int maxFrameLengthBytes = DEFAULT_MAX_FRAME_LENGTH_BYTES;
    private int maxOfferRetries = DEFAULT_MAX_OFFER_RETRIES;
    private int fragmentLimit = DEFAULT_FRAGMENT_LIMIT;
    private int maxPublications = DEFAULT_MAX_PUBLICATIONS;
    private String driverIdleStrategy = "backoff";
    private long driverTimeoutMs = 10_000;
    private int counterValuesBufferLengthBytes = DEFAULT_COUNTER_VALUES_BUFFER_LENGTH_BYTES;
    private boolean replayProtection = true;
    private boolean coalesceFrames;
    private org.agrona.concurrent.EpochClock epochClock = org.agrona.concurrent.SystemEpochClock.INSTANCE;
    private boolean concluded;

    /**
     * Validate every setting and fill in derived defaults.
     *
     * @return this.
     * @throws IllegalStateException listing every problem found.
     */
    public TransportContext conclude()
    {
        final List<String> errors = new ArrayList<>();
        if (frameKey == null)
        {
            errors.add("frameKey is required (32 hex digits shared by the whole cluster)");
        }
        if (directory == null)
        {
            errors.add("directory is required (process id -> host:port)");
        }
        else if (medium == Medium.UDP)
        {
            if (localEndpoint == null)
            {
                errors.add("localEndpoint is required for UDP: the host:port this JVM receives on");
            }
            else if (directory.endpointIndexOf(localEndpoint) < 0)
            {
                errors.add("localEndpoint " + localEndpoint + " hosts no process of the directory");
            }
        }
        checkTermLength(errors, "termLengthBytes", termLengthBytes);
        checkTermLength(errors, "ipcTermLengthBytes", ipcTermLengthBytes);
        if (mtuLengthBytes < 256 || mtuLengthBytes > 65504 ||
            (mtuLengthBytes & (FrameDescriptor.FRAME_ALIGNMENT - 1)) != 0)
        {
            errors.add("mtuLengthBytes must be 256..65504 and a multiple of 32, got " + mtuLengthBytes);
        }
        final int maxMessage = Math.min(termLengthBytes, ipcTermLengthBytes) / 8;
        if (maxFrameLengthBytes < FrameHeader.OVERHEAD_LENGTH ||
            maxFrameLengthBytes > Math.min(maxMessage, FrameHeader.MAX_PAYLOAD_LENGTH + FrameHeader.OVERHEAD_LENGTH))
        {
            errors.add("maxFrameLengthBytes must be " + FrameHeader.OVERHEAD_LENGTH + "..min(termLength/8=" +
                maxMessage + ", 65575), got " + maxFrameLengthBytes);
        }
        if (maxOfferRetries < 0 || maxOfferRetries > 1000)
        {
            errors.add("maxOfferRetries must be 0..1000, got " + maxOfferRetries);
        }
        if (fragmentLimit < 1 || fragmentLimit > 65536)
        {
            errors.add("fragmentLimit must be 1..65536, got " + fragmentLimit);
        }
        if (maxPublications < 1 || maxPublications > ProcessDirectory.MAX_PROCESSES)
        {
            errors.add("maxPublications must be 1.." + ProcessDirectory.MAX_PROCESSES + ", got " + maxPublications);
        }
        else if (directory != null && directory.endpointCount() - 1 > maxPublications)
        {
            errors.add("directory has " + directory.endpointCount() + " endpoints but maxPublications is " +
                maxPublications + "; raise maxPublications or host more processes per endpoint");
        }
        if (counterValuesBufferLengthBytes < 1024 * 1024 || counterValuesBufferLengthBytes > 1024 * 1024 * 1024 ||
            Integer.bitCount(counterValuesBufferLengthBytes) != 1)
        {
            errors.add("counterValuesBufferLengthBytes must be a power of two in 1 MiB..1 GiB, got " +
                counterValuesBufferLengthBytes);
        }
        if (driverTimeoutMs < 100 || driverTimeoutMs > 600_000)
        {
            errors.add("driverTimeoutMs must be 100..600000, got " + driverTimeoutMs);
        }
        try
        {
            idleStrategy(driverIdleStrategy);
        }
        catch (final IllegalArgumentException ex)
        {
            errors.add(ex.getMessage());
        }
        if (client != null && aeronDirectoryName == null)
        {
            aeronDirectoryName = client.context().aeronDirectoryName(); // the borrowed client's driver
        }
        if (driverMode == DriverMode.EXTERNAL && aeronDirectoryName == null)
        {
            errors.add("aeronDirectoryName is required with an EXTERNAL driver: the directory that driver runs on");
        }
        if (!errors.isEmpty())
        {
            throw new IllegalStateException("invalid transport configuration: " + String.join("; ", errors));
        }
        if (aeronDirectoryName == null)
        {
            final File shm = new File("/dev/shm");
            final String base = shm.isDirectory() ? shm.getPath() : System.getProperty("java.io.tmpdir");
            aeronDirectoryName = new File(base, "mmx-aeron-" + ProcessHandle.current().pid() + "-" +
                Integer.toHexString(System.identityHashCode(this))).getPath();
        }
        concluded = true;
        return this;
    }

    private static void checkTermLength(final List<String> errors, final String name, final int value)
    {
        if (value < MIN_TERM_LENGTH || value > MAX_TERM_LENGTH || Integer.bitCount(value) != 1)
        {
            errors.add(name + " must be a power of two in 64 KiB..1 GiB, got " + value);
        }
    }

    /**
     * @param name park, backoff, sleeping, yielding, busy or noop.
     * @return a new idle strategy of that name.
     */
    public static IdleStrategy idleStrategy(final String name)
    {
        switch (name == null ? "" : name)
        {
            case "backoff":
                // Few yields and a first park of 100 us: an idle thread wakes a handful of times per
                // millisecond, not dozens (4 idle node JVMs of 4 processes: 0.59 cores with 20 yields
                // and a 1 us first park, 0.36 cores with these), and a busy one never parks.
                return new BackoffIdleStrategy(
                    10, 1, TimeUnit.MICROSECONDS.toNanos(100), TimeUnit.MILLISECONDS.toNanos(1));
            case "park":
                // Backoff's while work came within 100 ms, so a commit at a time waits no longer; quiet, parks
                // up to 8 ms: an idle node of 32 processes wakes about 130 times a second, not 900 (perf idle).
                return new QuietParkIdleStrategy(10, 1, TimeUnit.MICROSECONDS.toNanos(100),
                    TimeUnit.MILLISECONDS.toNanos(1), TimeUnit.MILLISECONDS.toNanos(8), TimeUnit.MILLISECONDS.toNanos(100));
            case "sleeping":
                return new SleepingMillisIdleStrategy(1);
            case "yielding":
                return new YieldingIdleStrategy();
            case "busy":
                return new BusySpinIdleStrategy();
            case "noop":
                return NoOpIdleStrategy.INSTANCE;
            default:
                throw new IllegalArgumentException(
                    "idle strategy '" + name + "' unknown; use park, backoff, sleeping, yielding, busy or noop");
        }
    }

    /** @return true once {@link #conclude()} succeeded. */
    public boolean isConcluded()
    {
        return concluded;
    }

    /** @return the cluster key. */
    public FrameKey frameKey()
    {
        return frameKey;
    }

    /**
     * @param frameKey signs and verifies every frame.
     * @return this.
     */
    public TransportContext frameKey(final FrameKey frameKey)
    {
        this.frameKey = frameKey;
        return this;
    }

    /** @return the process directory. */
    public ProcessDirectory directory()
    {
        return directory;
    }

    /**
     * @param directory process id to endpoint.
     * @return this.
     */
    public TransportContext directory(final ProcessDirectory directory)
    {
        this.directory = directory;
        return this;
    }

    /** @return host:port this transport receives on (UDP). */
    public String localEndpoint()
    {
        return localEndpoint;
    }

    /**
     * @param localEndpoint host:port of this JVM in the directory.
     * @return this.
     */
    public TransportContext localEndpoint(final String localEndpoint)
    {
        this.localEndpoint = localEndpoint;
        return this;
    }

    /** @return the medium. */
    public Medium medium()
    {
        return medium;
    }

    /**
     * @param medium UDP (default) or IPC.
     * @return this.
     */
    public TransportContext medium(final Medium medium)
    {
        this.medium = medium;
        return this;
    }

    /** @return the broadcast mode. */
    public BroadcastMode broadcastMode()
    {
        return broadcastMode;
    }

    /**
     * @param broadcastMode UNICAST_FANOUT (default) or MDC.
     * @return this.
     */
    public TransportContext broadcastMode(final BroadcastMode broadcastMode)
    {
        this.broadcastMode = broadcastMode;
        return this;
    }

    /** @return the driver mode. */
    public DriverMode driverMode()
    {
        return driverMode;
    }

    /**
     * An Aeron client, connected to a running driver, for the transport to use instead of connecting
     * its own: a node's later eras add their stream's publications and subscriptions to the client of
     * its first (no second client conductor thread, no connect handshake with the driver). The
     * transport then closes only what it added; the client stays with its owner, and the client's
     * errors are counted by the transport that connected it. Implies {@link DriverMode#EXTERNAL} on
     * the client's driver directory.
     *
     * @param client a connected client, or null for one of the transport's own.
     * @return this.
     */
    public TransportContext client(final io.aeron.Aeron client)
    {
        this.client = client;
        if (client != null)
        {
            this.driverMode = DriverMode.EXTERNAL;
        }
        return this;
    }

    /** The client {@link #client(io.aeron.Aeron)} gave, or null. */
    public io.aeron.Aeron client()
    {
        return client;
    }

    /**
     * @param driverMode EMBEDDED (default) or EXTERNAL.
     * @return this.
     */
    public TransportContext driverMode(final DriverMode driverMode)
    {
        this.driverMode = driverMode;
        return this;
    }

    /** @return the Aeron directory. */
    public String aeronDirectoryName()
    {
        return aeronDirectoryName;
    }

    /**
     * @param aeronDirectoryName driver directory; default a fresh one per transport under /dev/shm.
     * @return this.
     */
    public TransportContext aeronDirectoryName(final String aeronDirectoryName)
    {
        this.aeronDirectoryName = aeronDirectoryName;
        return this;
    }

    /** @return UDP term length in bytes. */
    public int termLengthBytes()
    {
        return termLengthBytes;
    }

    /**
     * @param termLengthBytes UDP term length, power of two, 64 KiB..1 GiB.
     * @return this.
     */
    public TransportContext termLengthBytes(final int termLengthBytes)
    {
        this.termLengthBytes = termLengthBytes;
        return this;
    }

    /** @return IPC term length in bytes. */
    public int ipcTermLengthBytes()
    {
        return ipcTermLengthBytes;
    }

    /**
     * @param ipcTermLengthBytes IPC term length, power of two, 64 KiB..1 GiB.
     * @return this.
     */
    public TransportContext ipcTermLengthBytes(final int ipcTermLengthBytes)
    {
        this.ipcTermLengthBytes = ipcTermLengthBytes;
        return this;
    }

    /** @return MTU in bytes. */
    public int mtuLengthBytes()
    {
        return mtuLengthBytes;
    }

    /**
     * @param mtuLengthBytes Aeron MTU, multiple of 32.
     * @return this.
     */
    public TransportContext mtuLengthBytes(final int mtuLengthBytes)
    {
        this.mtuLengthBytes = mtuLengthBytes;
        return this;
    }

    /** @return the stream id. */
    public int streamId()
    {
        return streamId;
    }

    /**
     * @param streamId Aeron stream id of mmx frames.
     * @return this.
     */
    public TransportContext streamId(final int streamId)
    {
        this.streamId = streamId;
        return this;
    }

    /** @return the largest frame accepted or sent, tag included. */
    public int maxFrameLengthBytes()
    {
        return maxFrameLengthBytes;
    }

    /**
     * @param maxFrameLengthBytes largest frame, at most termLength/8.
     * @return this.
     */
    public TransportContext maxFrameLengthBytes(final int maxFrameLengthBytes)
    {
        this.maxFrameLengthBytes = maxFrameLengthBytes;
        return this;
    }

    /** @return offer retries before a frame is dropped. */
    public int maxOfferRetries()
    {
        return maxOfferRetries;
    }

    /**
     * @param maxOfferRetries 0..1000.
     * @return this.
     */
    public TransportContext maxOfferRetries(final int maxOfferRetries)
    {
        this.maxOfferRetries = maxOfferRetries;
        return this;
    }

    /** @return fragments read per poll. */
    public int fragmentLimit()
    {
        return fragmentLimit;
    }

    /**
     * @param fragmentLimit fragments read per poll.
     * @return this.
     */
    public TransportContext fragmentLimit(final int fragmentLimit)
    {
        this.fragmentLimit = fragmentLimit;
        return this;
    }

    /** @return cap on open publications. */
    public int maxPublications()
    {
        return maxPublications;
    }

    /**
     * @param maxPublications cap on open publications (remote endpoints).
     * @return this.
     */
    public TransportContext maxPublications(final int maxPublications)
    {
        this.maxPublications = maxPublications;
        return this;
    }

    /** @return name of the embedded driver's idle strategy. */
    public String driverIdleStrategy()
    {
        return driverIdleStrategy;
    }

    /**
     * @param driverIdleStrategy backoff (default), sleeping, yielding, busy or noop.
     * @return this.
     */
    public TransportContext driverIdleStrategy(final String driverIdleStrategy)
    {
        this.driverIdleStrategy = driverIdleStrategy;
        return this;
    }

    /** @return the embedded driver's counter values buffer length; its metadata buffer is four times larger. */
    public int counterValuesBufferLengthBytes()
    {
        return counterValuesBufferLengthBytes;
    }

    /**
     * @param counterValuesBufferLengthBytes power of two, 1 MiB..1 GiB; cnc.dat grows by five times this.
     * @return this.
     */
    public TransportContext counterValuesBufferLengthBytes(final int counterValuesBufferLengthBytes)
    {
        this.counterValuesBufferLengthBytes = counterValuesBufferLengthBytes;
        return this;
    }

    /** @return true if frames whose sequence does not advance per source are dropped as REPLAYED. */
    public boolean replayProtection()
    {
        return replayProtection;
    }

    /**
     * @param replayProtection drop authentic frames that do not advance their source's sequence (default true).
     * @return this.
     */
    public TransportContext replayProtection(final boolean replayProtection)
    {
        this.replayProtection = replayProtection;
        return this;
    }

    /** @return true if frames for one endpoint wait for {@link AeronTransport#flush()} to travel as one message. */
    public boolean coalesceFrames()
    {
        return coalesceFrames;
    }

    /**
     * Coalesce the frames sent towards one endpoint until {@link AeronTransport#flush()} (or until the next
     * frame would not fit in {@link #maxFrameLengthBytes()}), so that they travel as one Aeron message: one
     * offer and one datagram instead of one per frame. Each frame keeps its own header, tag and sequence.
     * Off by default; a caller that turns it on must call {@code flush()} at the end of each duty cycle.
     *
     * @param coalesceFrames true to coalesce.
     * @return this.
     */
    public TransportContext coalesceFrames(final boolean coalesceFrames)
    {
        this.coalesceFrames = coalesceFrames;
        return this;
    }

    /** @return the clock that seeds the send sequence. */
    public org.agrona.concurrent.EpochClock epochClock()
    {
        return epochClock;
    }

    /**
     * @param epochClock seeds the first sequence number (epoch ms × 2^20), so a restarted sender
     *                   continues above what it sent before.
     * @return this.
     */
    public TransportContext epochClock(final org.agrona.concurrent.EpochClock epochClock)
    {
        this.epochClock = epochClock;
        return this;
    }

    /** @return client-driver timeout in milliseconds. */
    public long driverTimeoutMs()
    {
        return driverTimeoutMs;
    }

    /**
     * @param driverTimeoutMs client-driver timeout.
     * @return this.
     */
    public TransportContext driverTimeoutMs(final long driverTimeoutMs)
    {
        this.driverTimeoutMs = driverTimeoutMs;
        return this;
    }
}
