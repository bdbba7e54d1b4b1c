package io.mmx.rdma.verbs;

/**
 * The parts of the libibverbs ABI (Linux x86_64 and aarch64, LP64) that mmx writes directly:
 * the layout of {@code struct ibv_send_wr} and {@code struct ibv_sge}, opcode values, send
 * flags and memory access flags. {@code VerbsAbiProbeTest} compiles a C probe against the
 * system's {@code <infiniband/verbs.h>} and checks every constant here against it.
 *
 * <p>Why not DiSNI's own serialisation: DiSNI 2.1's {@code NatIbvSendWR.writeBack} writes only
 * the {@code wr.rdma} member of the union, so the {@code compare_add}, {@code swap} and
 * atomic {@code rkey} of a CAS or fetch-and-add never reach the NIC, and it strides work
 * requests by 72 bytes where {@code sizeof(struct ibv_send_wr)} is 128.
 */
public final class VerbsAbi
{
    /** sizeof(struct ibv_send_wr). */
    public static final int SEND_WR_SIZE = 128;
    /** offsetof(struct ibv_send_wr, wr_id). */
    public static final int WR_ID_OFFSET = 0;
    /** offsetof(struct ibv_send_wr, next). */
    public static final int NEXT_OFFSET = 8;
    /** offsetof(struct ibv_send_wr, sg_list). */
    public static final int SG_LIST_OFFSET = 16;
    /** offsetof(struct ibv_send_wr, num_sge). */
    public static final int NUM_SGE_OFFSET = 24;
    /** offsetof(struct ibv_send_wr, opcode). */
    public static final int OPCODE_OFFSET = 28;
    /** offsetof(struct ibv_send_wr, send_flags). */
    public static final int SEND_FLAGS_OFFSET = 32;
    /** offsetof(struct ibv_send_wr, imm_data). */
    public static final int IMM_DATA_OFFSET = 36;
    /** offsetof(struct ibv_send_wr, wr.rdma.remote_addr). */
    public static final int RDMA_REMOTE_ADDR_OFFSET = 40;
    /** offsetof(struct ibv_send_wr, wr.rdma.rkey). */
    public static final int RDMA_RKEY_OFFSET = 48;
    /** offsetof(struct ibv_send_wr, wr.atomic.remote_addr). */
    public static final int ATOMIC_REMOTE_ADDR_OFFSET = 40;
    /** offsetof(struct ibv_send_wr, wr.atomic.compare_add). */
    public static final int ATOMIC_COMPARE_ADD_OFFSET = 48;
    /** offsetof(struct ibv_send_wr, wr.atomic.swap). */
    public static final int ATOMIC_SWAP_OFFSET = 56;
    /** offsetof(struct ibv_send_wr, wr.atomic.rkey). */
    public static final int ATOMIC_RKEY_OFFSET = 64;

    /** sizeof(struct ibv_sge). */
    public static final int SGE_SIZE = 16;
    /** offsetof(struct ibv_sge, addr). */
    public static final int SGE_ADDR_OFFSET = 0;
    /** offsetof(struct ibv_sge, length). */
    public static final int SGE_LENGTH_OFFSET = 8;
    /** offsetof(struct ibv_sge, lkey). */
    public static final int SGE_LKEY_OFFSET = 12;

    /** IBV_WR_RDMA_WRITE. */
    public static final int IBV_WR_RDMA_WRITE = 0;
    /** IBV_WR_RDMA_READ. */
    public static final int IBV_WR_RDMA_READ = 4;
    /** IBV_WR_ATOMIC_CMP_AND_SWP. */
    public static final int IBV_WR_ATOMIC_CMP_AND_SWP = 5;
    /** IBV_WR_ATOMIC_FETCH_AND_ADD. */
    public static final int IBV_WR_ATOMIC_FETCH_AND_ADD = 6;

    /** IBV_QPT_RC: the reliable-connected queue pair type, the only one with RDMA atomics. */
    public static final int IBV_QPT_RC = 2;

    /** IBV_SEND_SIGNALED. */
    public static final int IBV_SEND_SIGNALED = 1 << 1;

    /** IBV_ACCESS_LOCAL_WRITE. */
    public static final int IBV_ACCESS_LOCAL_WRITE = 1;
    /** IBV_ACCESS_REMOTE_WRITE. */
    public static final int IBV_ACCESS_REMOTE_WRITE = 1 << 1;
    /** IBV_ACCESS_REMOTE_READ. */
    public static final int IBV_ACCESS_REMOTE_READ = 1 << 2;
    /** IBV_ACCESS_REMOTE_ATOMIC: DiSNI's endpoints register without it, so remote CAS would fail. */
    public static final int IBV_ACCESS_REMOTE_ATOMIC = 1 << 3;

    /** IBV_WC_SUCCESS. */
    public static final int IBV_WC_SUCCESS = 0;
    /** IBV_WC_WR_FLUSH_ERR: the QP went to the error state before this request ran. */
    public static final int IBV_WC_WR_FLUSH_ERR = 5;
    /** IBV_WC_REM_ACCESS_ERR: the remote registration refused the key or the range. */
    public static final int IBV_WC_REM_ACCESS_ERR = 10;
    /** IBV_WC_RETRY_EXC_ERR: the remote side did not answer within the transport retries. */
    public static final int IBV_WC_RETRY_EXC_ERR = 12;

    /** What a region is registered with: everything a neighbour's one-sided ops need. */
    public static final int REGION_ACCESS =
        IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC;

    private VerbsAbi()
    {
    }
}
