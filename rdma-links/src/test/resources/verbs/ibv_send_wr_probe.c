/*
 * Prints the libibverbs ABI facts mmx's verbs backend relies on, from the system's headers,
 * as "NAME VALUE" lines, then the bytes of three work requests filled through the C field
 * names. VerbsAbiProbeTest compares all of it with VerbsAbi and SendWorkRequestEncoder.
 */
#include <infiniband/verbs.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define FAKE_BASE 0x00007f0000001000ULL

static void dump(const char *name, enum ibv_wr_opcode opcode, uint64_t remote, uint64_t cmp, uint64_t swp,
                 uint32_t rkey, uint32_t length)
{
    unsigned char mem[sizeof(struct ibv_send_wr) + sizeof(struct ibv_sge)];
    memset(mem, 0, sizeof mem);
    struct ibv_send_wr *wr = (struct ibv_send_wr *)mem;
    struct ibv_sge *sge = (struct ibv_sge *)(mem + sizeof(struct ibv_send_wr));
    wr->wr_id = 0x0102030405060708ULL;
    wr->next = NULL;
    wr->sg_list = (struct ibv_sge *)(uintptr_t)(FAKE_BASE + sizeof(struct ibv_send_wr));
    wr->num_sge = 1;
    wr->opcode = opcode;
    wr->send_flags = IBV_SEND_SIGNALED;
    if (opcode == IBV_WR_ATOMIC_CMP_AND_SWP || opcode == IBV_WR_ATOMIC_FETCH_AND_ADD)
    {
        wr->wr.atomic.remote_addr = remote;
        wr->wr.atomic.compare_add = cmp;
        wr->wr.atomic.swap = swp;
        wr->wr.atomic.rkey = rkey;
    }
    else
    {
        wr->wr.rdma.remote_addr = remote;
        wr->wr.rdma.rkey = rkey;
    }
    sge->addr = 0x1112131415161718ULL;
    sge->length = length;
    sge->lkey = 0x21222324U;
    printf("%s ", name);
    for (size_t i = 0; i < sizeof mem; i++)
    {
        printf("%02x", mem[i]);
    }
    printf("\n");
}

int main(void)
{
    printf("SEND_WR_SIZE %zu\n", sizeof(struct ibv_send_wr));
    printf("WR_ID_OFFSET %zu\n", offsetof(struct ibv_send_wr, wr_id));
    printf("NEXT_OFFSET %zu\n", offsetof(struct ibv_send_wr, next));
    printf("SG_LIST_OFFSET %zu\n", offsetof(struct ibv_send_wr, sg_list));
    printf("NUM_SGE_OFFSET %zu\n", offsetof(struct ibv_send_wr, num_sge));
    printf("OPCODE_OFFSET %zu\n", offsetof(struct ibv_send_wr, opcode));
    printf("SEND_FLAGS_OFFSET %zu\n", offsetof(struct ibv_send_wr, send_flags));
    printf("IMM_DATA_OFFSET %zu\n", offsetof(struct ibv_send_wr, imm_data));
    printf("RDMA_REMOTE_ADDR_OFFSET %zu\n", offsetof(struct ibv_send_wr, wr.rdma.remote_addr));
    printf("RDMA_RKEY_OFFSET %zu\n", offsetof(struct ibv_send_wr, wr.rdma.rkey));
    printf("ATOMIC_REMOTE_ADDR_OFFSET %zu\n", offsetof(struct ibv_send_wr, wr.atomic.remote_addr));
    printf("ATOMIC_COMPARE_ADD_OFFSET %zu\n", offsetof(struct ibv_send_wr, wr.atomic.compare_add));
    printf("ATOMIC_SWAP_OFFSET %zu\n", offsetof(struct ibv_send_wr, wr.atomic.swap));
    printf("ATOMIC_RKEY_OFFSET %zu\n", offsetof(struct ibv_send_wr, wr.atomic.rkey));
    printf("SGE_SIZE %zu\n", sizeof(struct ibv_sge));
    printf("SGE_ADDR_OFFSET %zu\n", offsetof(struct ibv_sge, addr));
    printf("SGE_LENGTH_OFFSET %zu\n", offsetof(struct ibv_sge, length));
    printf("SGE_LKEY_OFFSET %zu\n", offsetof(struct ibv_sge, lkey));
    printf("IBV_WR_RDMA_WRITE %d\n", (int)IBV_WR_RDMA_WRITE);
    printf("IBV_WR_RDMA_READ %d\n", (int)IBV_WR_RDMA_READ);
    printf("IBV_WR_ATOMIC_CMP_AND_SWP %d\n", (int)IBV_WR_ATOMIC_CMP_AND_SWP);
    printf("IBV_WR_ATOMIC_FETCH_AND_ADD %d\n", (int)IBV_WR_ATOMIC_FETCH_AND_ADD);
    printf("IBV_QPT_RC %d\n", (int)IBV_QPT_RC);
    printf("IBV_SEND_SIGNALED %d\n", (int)IBV_SEND_SIGNALED);
    printf("IBV_ACCESS_LOCAL_WRITE %d\n", (int)IBV_ACCESS_LOCAL_WRITE);
    printf("IBV_ACCESS_REMOTE_WRITE %d\n", (int)IBV_ACCESS_REMOTE_WRITE);
    printf("IBV_ACCESS_REMOTE_READ %d\n", (int)IBV_ACCESS_REMOTE_READ);
    printf("IBV_ACCESS_REMOTE_ATOMIC %d\n", (int)IBV_ACCESS_REMOTE_ATOMIC);
    printf("IBV_WC_SUCCESS %d\n", (int)IBV_WC_SUCCESS);
    printf("IBV_WC_WR_FLUSH_ERR %d\n", (int)IBV_WC_WR_FLUSH_ERR);
    printf("IBV_WC_REM_ACCESS_ERR %d\n", (int)IBV_WC_REM_ACCESS_ERR);
    printf("IBV_WC_RETRY_EXC_ERR %d\n", (int)IBV_WC_RETRY_EXC_ERR);
    dump("BYTES_CAS", IBV_WR_ATOMIC_CMP_AND_SWP, 0x3132333435363738ULL, 0x4142434445464748ULL,
         0x5152535455565758ULL, 0x61626364U, 8);
    dump("BYTES_FAA", IBV_WR_ATOMIC_FETCH_AND_ADD, 0x3132333435363738ULL, 0x4142434445464748ULL, 0,
         0x61626364U, 8);
    dump("BYTES_READ", IBV_WR_RDMA_READ, 0x3132333435363738ULL, 0, 0, 0x61626364U, 4096);
    dump("BYTES_WRITE", IBV_WR_RDMA_WRITE, 0x3132333435363738ULL, 0, 0, 0x61626364U, 8);
    return 0;
}
