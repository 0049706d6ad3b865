// SPDX-License-Identifier: GPL-2.0
/*
 * The flush queue of a borrowed device's unmaps from the IOVA window.
 *
 * A driver's register writes reach its borrowed device as posted writes
 * across the fabric, behind our CPU. A driver may post a command that
 * makes its device read a buffer and unmap the buffer at once, trusting
 * the write to have landed, as a local device's or a hypervisor's trap
 * has (vmxnet3 maps its multicast table, posts UPDATE_MAC_FILTERS and
 * unmaps it; it closes by posting QUIESCE_DEV and freeing its rings):
 * across the NTB the device would read a page the window no longer maps,
 * a DMAR fault here. Waiting for the posted writes to land (a read
 * through the same path, smartio_node_flush()) before every unmap would
 * put a round trip in every packet's path.
 *
 * So, as the IOMMU's own flush queue defers the IOTLB invalidation of
 * what is unmapped (drivers/iommu/dma-iommu.c), a single mapping's and
 * coherent memory's unmap is queued here, the pages still mapped (and
 * coherent memory not yet freed), and a batch of them is unmapped behind
 * one flush read: SMARTIO_FLUSHQ_DELAY_MS after the first of them, at
 * once when the queue is half full. A full queue unmaps the one range
 * behind a read of its own. A device may thus read what its driver
 * unmapped for that long, as a local device behind the IOMMU in its
 * default lazy mode may through the IOTLB; coherent memory is freed only
 * once unmapped, so no ring a device may still write is reused.
 *
 * Scatterlists are unmapped at once (ntb/iova.c): a device is done with
 * one when its request completes, which its driver learns from the
 * device, never from a command it posted. A lost device was stopped by
 * its lender: its unmaps are not queued either.
 *
 * Locks: @lock (a spinlock, any context, interrupts off) protects the
 * queue, @batch and the pending entries; @release_lock (a mutex,
 * process context) is held by whoever takes a batch and releases it,
 * the delayed work or smartio_flushq_drain(), and orders @lock inside.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/gfp.h>
#include <linux/lockdep.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "smartio/ntb.h"
#include "lend_priv.h"

/* How many unmaps a queue holds, and how long the first waits at most. */
#define SMARTIO_FLUSHQ_SIZE	128
#define SMARTIO_FLUSHQ_DELAY_MS	10

/*
 * An unmap waiting for its flush: the window range, and the coherent
 * memory to free once it is unmapped (NULL for a streaming mapping).
 */
struct smartio_flushq_entry {
	dma_addr_t addr;
	size_t size;
	struct page *page;
};

/**
 * struct smartio_flushq - A borrowed device's unmaps waiting for a flush.
 * @sh: The shadow: its window, its lender, and the owner of its ranges.
 * @lock: Protects @queue and @len.
 * @release_lock: Held while a batch is taken and released: @batch.
 * @work: Releases the queue SMARTIO_FLUSHQ_DELAY_MS after its first entry.
 * @len: Entries in @queue.
 * @queue: Unmaps waiting, in order.
 * @batch: The batch being released, out of @queue.
 */
struct smartio_flushq {
	struct smartio_shadow *sh;
	spinlock_t lock;		/* see above */
	struct mutex release_lock;	/* see above */
	struct delayed_work work;
	unsigned int len;
	struct smartio_flushq_entry queue[SMARTIO_FLUSHQ_SIZE];
	struct smartio_flushq_entry batch[SMARTIO_FLUSHQ_SIZE];
};

/* Unmaps @e from @sh's window, and frees its coherent memory. */
static void smartio_flushq_release_one(struct smartio_shadow *sh,
				       const struct smartio_flushq_entry *e)
{
	smartio_iova_unmap(sh->iova, sh, e->addr, e->size);
	if (e->page)
		__free_pages(e->page, get_order(e->size));
}

/*
 * Takes what is queued into @fq->batch, lands what was posted before
 * toward the lender (unless @flush is false: the device is stopped), and
 * releases the batch. Called with @fq->release_lock held.
 */
static void smartio_flushq_release(struct smartio_flushq *fq, bool flush)
{
	struct smartio_shadow *sh = fq->sh;
	unsigned long flags;
	unsigned int i, n;

	lockdep_assert_held(&fq->release_lock);
	spin_lock_irqsave(&fq->lock, flags);
	n = fq->len;
	memcpy(fq->batch, fq->queue, n * sizeof(fq->batch[0]));
	fq->len = 0;
	spin_unlock_irqrestore(&fq->lock, flags);
	if (!n)
		return;
	/*
	 * Each entry was queued after its driver's last write to the device
	 * was posted; this read, issued after the batch was taken under
	 * @fq->lock, lands them all.
	 */
	if (flush && !READ_ONCE(sh->lost))
		smartio_node_flush(sh->lender);
	for (i = 0; i < n; i++)
		smartio_flushq_release_one(sh, &fq->batch[i]);
}

static void smartio_flushq_work(struct work_struct *work)
{
	struct smartio_flushq *fq = container_of(to_delayed_work(work),
						 struct smartio_flushq, work);

	mutex_lock(&fq->release_lock);
	smartio_flushq_release(fq, true);
	mutex_unlock(&fq->release_lock);
}

/**
 * smartio_flushq_create() - Give a borrowed device its flush queue.
 * @sh: The shadow, with its IOVA window (without one nothing is
 *	unmapped, and it needs none).
 *
 * Context: Process context; sleeps.
 * Return: The queue, or NULL when out of memory.
 */
struct smartio_flushq *smartio_flushq_create(struct smartio_shadow *sh)
{
	struct smartio_flushq *fq = kzalloc(sizeof(*fq), GFP_KERNEL);

	if (!fq)
		return NULL;
	fq->sh = sh;
	spin_lock_init(&fq->lock);
	mutex_init(&fq->release_lock);
	INIT_DELAYED_WORK(&fq->work, smartio_flushq_work);
	return fq;
}

/**
 * smartio_flushq_unmap() - Unmap a range of a device's, behind a flush.
 * @fq: The device's queue.
 * @addr: The window address the range was mapped at (smartio_iova_map()).
 * @size: Its size.
 * @page: Coherent memory to free once unmapped (of @size), or NULL.
 *
 * The range stays mapped until a read toward the lender has landed what
 * was posted to the device before (see the top of this file); a full
 * queue has this range unmapped now, behind a read of its own.
 *
 * Context: Any (a driver unmaps in interrupt context).
 */
void smartio_flushq_unmap(struct smartio_flushq *fq, dma_addr_t addr,
			  size_t size, struct page *page)
{
	struct smartio_flushq_entry e = { addr, size, page };
	unsigned long flags;
	unsigned int len;

	spin_lock_irqsave(&fq->lock, flags);
	len = fq->len;
	if (len < SMARTIO_FLUSHQ_SIZE)
		fq->queue[fq->len++] = e;
	spin_unlock_irqrestore(&fq->lock, flags);
	if (len == SMARTIO_FLUSHQ_SIZE) {
		if (!READ_ONCE(fq->sh->lost))
			smartio_node_flush(fq->sh->lender);
		smartio_flushq_release_one(fq->sh, &e);
		mod_delayed_work(system_wq, &fq->work, 0);
	} else if (len + 1 >= SMARTIO_FLUSHQ_SIZE / 2) {
		mod_delayed_work(system_wq, &fq->work, 0);
	} else if (!len) {
		queue_delayed_work(system_wq, &fq->work,
				   msecs_to_jiffies(SMARTIO_FLUSHQ_DELAY_MS));
	}
}

/**
 * smartio_flushq_drain() - Release every unmap a device's queue holds.
 * @fq: The queue.
 * @flush: Land what was posted to the device first; false once its DMA
 *	is known stopped (smartio_shadow_dma_stop(), a lost device).
 *
 * Before what a driver left mapped is unmapped and its ranges are
 * reused, and before the queue goes. Unmaps queued meanwhile wait for
 * the work as usual.
 *
 * Context: Process context; sleeps.
 */
void smartio_flushq_drain(struct smartio_flushq *fq, bool flush)
{
	cancel_delayed_work_sync(&fq->work);
	mutex_lock(&fq->release_lock);
	smartio_flushq_release(fq, flush);
	mutex_unlock(&fq->release_lock);
}

/**
 * smartio_flushq_destroy() - Release what a device's queue holds; free it.
 * @fq: The queue, or NULL. Its device's DMA is stopped, and nothing
 *	unmaps through it any more.
 *
 * Context: Process context; sleeps.
 */
void smartio_flushq_destroy(struct smartio_flushq *fq)
{
	if (!fq)
		return;
	smartio_flushq_drain(fq, false);
	mutex_destroy(&fq->release_lock);
	kfree(fq);
}
