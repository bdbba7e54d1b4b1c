package io.mmx.rdma.verbs;

import com.ibm.disni.verbs.IbvPd;
import com.ibm.disni.verbs.IbvMr;
import com.ibm.disni.verbs.IbvQP;
import com.ibm.disni.verbs.RdmaVerbs;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Method;

/**
 * The two places where mmx bypasses DiSNI 2.1's Java layer:
 * <ul>
 *   <li>posting: DiSNI's native {@code _postSend(qp, wrList)} casts {@code wrList} to
 *   {@code struct ibv_send_wr *} and calls {@code ibv_post_send}; mmx hands it the address of a
 *   request written by {@link SendWorkRequestEncoder}, whose atomic fields DiSNI's own
 *   serialiser would have dropped;</li>
 *   <li>registration: regions are registered with {@link VerbsAbi#REGION_ACCESS}, which includes
 *   {@code IBV_ACCESS_REMOTE_ATOMIC}, which DiSNI's endpoints leave out.</li>
 * </ul>
 * DiSNI's {@code NativeDispatcher} is package-private, so it is reached by reflection, once.
 */
public final class DisniPostSend
{
    /** DiSNI's class holding the native methods. */
    static final String DISPATCHER_CLASS = "com.ibm.disni.verbs.impl.NativeDispatcher";
    /** The field of {@code RdmaVerbsNat} that holds the dispatcher. */
    static final String DISPATCHER_FIELD = "nativeDispatcher";
    /** DiSNI's {@code RdmaVerbs} implementation. */
    static final String VERBS_CLASS = "com.ibm.disni.verbs.impl.RdmaVerbsNat";
    /** DiSNI's QP implementation, whose {@code getObjId()} is the {@code struct ibv_qp *}. */
    static final String QP_CLASS = "com.ibm.disni.verbs.impl.NatIbvQP";

    private final Object dispatcher;
    private final Method postSend;
    private final Method qpObjId;

    private DisniPostSend(final Object dispatcher, final Method postSend, final Method qpObjId)
    {
        this.dispatcher = dispatcher;
        this.postSend = postSend;
        this.qpObjId = qpObjId;
    }

    /**
     * Finds DiSNI's dispatcher behind {@code verbs} (from {@code RdmaVerbs.open()}).
     *
     * @throws IllegalStateException if the DiSNI on the class path is not 2.1's layout.
     */
    public static DisniPostSend of(final RdmaVerbs verbs)
    {
        try
        {
            final Class<?> verbsClass = Class.forName(VERBS_CLASS, false, DisniPostSend.class.getClassLoader());
            final Field field = verbsClass.getDeclaredField(DISPATCHER_FIELD);
            field.setAccessible(true);
            final Method[] methods = resolve();
            return new DisniPostSend(field.get(verbs), methods[0], methods[1]);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new IllegalStateException("the DiSNI on the class path is not 2.1 (" + ex + "): use " +
                "com.ibm.disni:disni:2.1, whose internals the verbs backend relies on", ex);
        }
    }

    /** Resolves the reflective targets without initialising DiSNI (which would load libdisni). */
    static Method[] resolve() throws ReflectiveOperationException
    {
        final ClassLoader loader = DisniPostSend.class.getClassLoader();
        final Class<?> dispatcherClass = Class.forName(DISPATCHER_CLASS, false, loader);
        final Method postSend = dispatcherClass.getDeclaredMethod("_postSend", long.class, long.class);
        postSend.setAccessible(true);
        final Method objId = Class.forName(QP_CLASS, false, loader).getDeclaredMethod("getObjId");
        objId.setAccessible(true);
        return new Method[]{postSend, objId};
    }

    /**
     * Posts the work request at native address {@code wrAddress} on {@code qp}.
     *
     * @throws IOException if {@code ibv_post_send} fails (e.g. the send queue is full).
     */
    public void post(final IbvQP qp, final long wrAddress) throws IOException
    {
        try
        {
            postSend.invoke(dispatcher, (long)qpObjId.invoke(qp), wrAddress);
        }
        catch (final java.lang.reflect.InvocationTargetException ex)
        {
            if (ex.getCause() instanceof IOException)
            {
                throw (IOException)ex.getCause();
            }
            throw new IllegalStateException(ex.getCause());
        }
        catch (final IllegalAccessException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    /** Registers {@code length} bytes at {@code address} for local and remote read, write and atomics. */
    public static IbvMr registerRegion(final IbvPd pd, final long address, final int length) throws IOException
    {
        return pd.regMr(address, length, VerbsAbi.REGION_ACCESS).execute().free().getMr();
    }
}
