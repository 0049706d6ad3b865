/*
 * ntb-cable: the cable between two ports of an emulated NTB
 *
 * Carries messages between two ports, in one QEMU (a socketpair) or across
 * two (a UNIX stream socket, one side listening): posted messages through a
 * send queue, tagged reads that wait for their reply with the BQL released,
 * and, on the receiving side, an inbound thread that performs what arrives,
 * in order. What the messages mean is the device's: it numbers its own
 * types apart from the cable's (MEM_WRITE, MEM_READ, READ_REPLY) and
 * handles them in its NtbCableOps. The protocol and the threads are
 * specified in smartio's qemu/smartio-ntb.md ("Message protocol").
 *
 * Copyright (c) 2026 smartio authors
 *
 * SPDX-License-Identifier: GPL-2.0
 */

#ifndef NTB_CABLE_H
#define NTB_CABLE_H

#include "qemu/units.h"
#include "qemu/thread.h"
#include "qemu/queue.h"
#include "exec/memory.h"
#include "sysemu/dma.h"
#include "hw/qdev-core.h"

/* Message types the cable itself uses; devices number theirs apart. */
enum {
    NTB_CABLE_MSG_MEM_WRITE = 6,
    NTB_CABLE_MSG_MEM_READ = 7,
    NTB_CABLE_MSG_READ_REPLY = 8,
};

#define NTB_CABLE_MAX_PAYLOAD   (64 * KiB)
#define NTB_CABLE_READ_TIMEOUT_MS 5000

/*
 * MEM_READ value: the length in bits 23..0, and a flag allowing the peer
 * to answer with more when the target is RAM: to the end of the (4 KiB)
 * page, and as many whole pages after it as bits 27..24 say (those the
 * read QEMU is dispatching goes on into, memory_region_read_extent(), up
 * to NTB_CABLE_READ_AHEAD_MAX).
 */
#define NTB_CABLE_READ_LEN_MASK 0x00ffffffu
#define NTB_CABLE_READ_AHEAD    (1u << 31)
#define NTB_CABLE_READ_AHEAD_PAGES_SHIFT 24
#define NTB_CABLE_READ_AHEAD_PAGES_MASK  0xfu
#define NTB_CABLE_READ_AHEAD_PAGE (4 * KiB)
#define NTB_CABLE_READ_AHEAD_MAX \
    ((NTB_CABLE_READ_AHEAD_PAGES_MASK + 1) * NTB_CABLE_READ_AHEAD_PAGE)

typedef struct QEMU_PACKED NtbCableHdr {
    uint32_t type;
    uint32_t len;
    uint64_t addr;
    uint32_t tag;
    uint32_t value;
} NtbCableHdr;

typedef struct NtbCableMsg NtbCableMsg;
typedef struct NtbCableInbound NtbCableInbound;
typedef struct NtbCableWaiter NtbCableWaiter;
typedef struct NtbCableDeferred NtbCableDeferred;

/*
 * What a read of the peer's RAM brought beyond what was asked: QEMU splits
 * a device's DMA through an aperture into 8-byte accesses, and one round
 * trip each would make a 4 KiB transfer take 512. Only the continuation of
 * the read that filled it hits, and anything from the peer (which is how a
 * peer that changed its memory tells us, a doorbell or register write
 * after the data) or any write of ours empties it: then it holds no more
 * than one large read by the peer would have returned.
 *
 * A read that QEMU dispatches to the aperture in 8-byte accesses but that
 * its caller made longer (a device's DMA of a whole buffer, a bounce
 * buffer's fill) asks for all the pages it goes on into, up to
 * NTB_CABLE_READ_AHEAD_MAX, as one hardware read request of that length
 * would: a 1 MiB request is 16 round trips, not 256, and the device, busy
 * for all of them, takes the peer's register writes again sooner. Never a
 * page the read does not reach: the peer's IOMMU would fault on a page
 * nobody asked for.
 */
typedef struct NtbCableReadAhead {
    uint64_t addr;              /* wire address of data[0] */
    uint32_t len;
    uint64_t next;              /* where the continuation starts */
    uint32_t epoch;             /* bumped by anything that empties it */
    uint8_t data[NTB_CABLE_READ_AHEAD_MAX];
} NtbCableReadAhead;

typedef struct NtbCableOps {
    /* A connection is up: queue the greeting. Under the cable's lock. */
    void (*connected_locked)(void *opaque);
    /*
     * Perform a received message other than a read reply, in the inbound
     * thread, with the BQL, in the order received.
     */
    void (*handle)(void *opaque, NtbCableHdr *h, uint8_t *payload);
    /* The connection ended. With the BQL. */
    void (*disconnected)(void *opaque);
    /* May a read of the peer go out now? Under the cable's lock. */
    bool (*may_read_locked)(void *opaque);
    /*
     * May this posted message, sent by the other port of this QEMU, be
     * performed at once, by the thread that sends it? Only what can wait
     * neither on a device nor on the cable: a register update, a write
     * into RAM, a write dropped. With the BQL. NULL: never.
     */
    bool (*immediate)(void *opaque, const NtbCableHdr *h);
} NtbCableOps;

typedef struct NtbCable {
    /* Set by the device: properties, and ntb_cable_init() */
    char *socket_path;
    bool listen;
    const char *name;           /* device type, for messages */
    uint32_t port;              /* for messages and thread names */
    const NtbCableOps *ops;
    void *opaque;

    /* Connection and queues, under lock; the device may use lock too. */
    QemuMutex lock;
    QemuCond send_cond;         /* queue not empty, or stop */
    QemuCond idle_cond;         /* sender idle, queue drained */
    QemuCond reply_cond;        /* a waiter completed */
    int fd;                     /* connected socket, or -1 */
    bool sending;
    bool stop;
    QSIMPLEQ_HEAD(, NtbCableMsg) sendq;
    size_t sendq_bytes;
    QTAILQ_HEAD(, NtbCableWaiter) waiters;
    uint32_t next_tag;
    NtbCableReadAhead ra;
    /*
     * Messages queued to the peer, and messages received from it: with
     * inq_received and inq_performed they tell whether everything one
     * port of a loopback pair sent has been performed by the other.
     */
    uint64_t tx_msgs;
    uint64_t rx_msgs;
    struct NtbCable *local_peer; /* the other port, when in this QEMU */

    QSIMPLEQ_HEAD(, NtbCableInbound) inq; /* received, to be performed */
    QemuCond inq_cond;          /* inq not empty, or stop */
    /*
     * Messages put on inq, and those performed or dropped since: a read
     * reply completes only once every message received before it is
     * performed (ntb_cable_read_ahead).
     */
    uint64_t inq_received;
    uint64_t inq_performed;
    bool inq_stalled;           /* the inbound thread waits on a busy device */
    /*
     * Posted writes received for a device busy in an access of its own,
     * accepted and performed once it is free (ntb_cable_dma()); the
     * inbound thread's alone.
     */
    QSIMPLEQ_HEAD(, NtbCableDeferred) deferred;
    size_t deferred_bytes;
    uint32_t conn_gen;          /* bumped when a connection ends */

    int listen_fd;
    int loop_fd;                /* our end of a loopback socketpair */
    bool cabled;                /* a loopback peer has taken this port */
    bool initialized;
    bool threads_started;
    QemuThread conn_thread;
    QemuThread send_thread;
    QemuThread inbound_thread;
} NtbCable;

/* From the device's instance_init: no sockets yet. */
void ntb_cable_instance_init(NtbCable *c);
/*
 * From realize, after the properties are checked: listen (listen=on), and
 * set up the queues. False with @errp set on failure.
 */
bool ntb_cable_init(NtbCable *c, const char *name, uint32_t port,
                    const NtbCableOps *ops, void *opaque, Error **errp);
/*
 * Check the cabling of a port (@dev, whose cable is @c) that names
 * @peer_dev (cable @peer) in its peer property, or NULL: not both peer and
 * socket, not itself, not a port already cabled (@peer_names_peer: it names
 * a peer of its own), and one realized first. False with @errp set.
 */
bool ntb_cable_check_peer(NtbCable *c, DeviceState *dev, DeviceState *peer_dev,
                          NtbCable *peer, bool peer_names_peer, Error **errp);
/* Cable two ports of one QEMU to each other; @a is already realized. */
bool ntb_cable_pair(NtbCable *a, NtbCable *b, Error **errp);
/* Start the threads (after ntb_cable_init, and ntb_cable_pair if any). */
void ntb_cable_start(NtbCable *c);
/* From exit, or a realize that fails after ntb_cable_init. */
void ntb_cable_cleanup(NtbCable *c);

/* Is the calling thread a receive thread, which must not read the peer? */
bool ntb_cable_in_rx(void);
/* Is a connection up? Under lock. */
bool ntb_cable_connected_locked(NtbCable *c);

/* Queue a message; under lock. Dropped without a connection. */
void ntb_cable_enqueue_locked(NtbCable *c, uint32_t type, uint64_t addr,
                              uint32_t tag, uint32_t value,
                              const void *payload, uint32_t len);
/*
 * Send a posted message. To a port in this QEMU, from a thread holding the
 * BQL, what the peer's immediate() allows is performed before this returns
 * (see ntb-cable.c); anything else is queued, and waits only for room in a
 * very full queue.
 */
void ntb_cable_send(NtbCable *c, uint32_t type, uint64_t addr, uint32_t tag,
                    uint32_t value, const void *payload, uint32_t len);
/* Answer a read the peer sent (tag from its header). */
void ntb_cable_reply(NtbCable *c, const NtbCableHdr *h, bool ok,
                     const void *data, uint32_t len);
/*
 * Read from the peer: a tagged request, waiting for the reply with the BQL
 * released. False (answer all-ones) on a dead link, an error or a timeout.
 */
bool ntb_cable_read(NtbCable *c, uint32_t type, uint64_t addr,
                    uint32_t value, void *buf, uint32_t len);
/*
 * Read @size (1 to 8) bytes of memory at wire address @target through the
 * read-ahead into @data; all-ones and MEMTX_ERROR when it fails. @extent:
 * the bytes from @target to the end of the read being dispatched that go
 * on to contiguous wire addresses (memory_region_read_extent(), cut at the
 * end of the window's translation), or 0.
 *
 * Both NTBs answer every failed or dropped read through a window so: a
 * CPU's load sees all-ones (x86 TCG ignores the result, as a root complex
 * completes a failed read with all-ones), a device's DMA sees the error,
 * as an endpoint whose read got an Unsupported Request completion or none
 * at all, and does not take all-ones for data (QEMU's NVMe, reading a
 * shadow doorbell as 0xffffffff, would process its queue forever).
 */
MemTxResult ntb_cable_mem_read(NtbCable *c, uint64_t target, unsigned size,
                               uint64_t extent, uint64_t *data);
/* Empty the read-ahead, as any write of ours must. */
void ntb_cable_ra_drop(NtbCable *c);
/*
 * How long the answer to a MEM_READ of @size bytes at @da, with value
 * @value, is: @size, or, when @value allows a read-ahead, on through the
 * pages it names that are RAM behind @as's translations (the IOMMU's, when
 * there is one), within @room bytes (what the inbound window holds from
 * @da). A register read has effects: it happens once, and as asked.
 */
uint32_t ntb_cable_read_ahead_len(AddressSpace *as, dma_addr_t da,
                                  uint32_t size, uint32_t value,
                                  uint64_t room, MemTxAttrs attrs);

/*
 * The receiving side's DMA. A posted write to a device busy in an access
 * of its own (QEMU's re-entrancy guard) is accepted, as a device's receive
 * buffer accepts it, and performed once the device is free, in order with
 * the writes to that device after it; what follows for other targets goes
 * on meanwhile. A read of a device waits, bounded like a read, for the
 * device and for the writes it has yet to take, as a PCIe completer
 * stalls a request.
 */
MemTxResult ntb_cable_dma(AddressSpace *as, dma_addr_t da, void *buf,
                          uint32_t len, DMADirection dir, MemTxAttrs attrs);
/* Is [@da, @da + @len) plain RAM, where access sizes do not matter? */
bool ntb_cable_dma_is_ram(AddressSpace *as, dma_addr_t da, uint32_t len,
                          bool is_write, MemTxAttrs attrs);
/*
 * Perform a MEM_WRITE of @len bytes merged from stores of @unit bytes: one
 * write into RAM, the original stores into anything else (device registers
 * decode each store by its size and address).
 */
void ntb_cable_dma_write(AddressSpace *as, dma_addr_t da,
                         const uint8_t *payload, uint32_t len, uint32_t unit,
                         MemTxAttrs attrs);
#endif
