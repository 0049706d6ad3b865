// SPDX-License-Identifier: GPL-2.0
/*
 * Interrupts of a mediated device (after vfio_pci_intrs.c): the VM's MSI or
 * MSI-X vectors are the shadow's, allocated through the PCI API, whose
 * messages cross the fabric to this node directly (the shadow's MSI
 * domain, lend/shadow.c); each vector's handler signals the eventfd the
 * VM gave for it (VFIO_DEVICE_SET_IRQS). The lender does nothing per
 * interrupt. No INTx: the shadow has no pin. The request eventfd
 * (VFIO_PCI_REQ_IRQ_INDEX) asks the VM to release the device, as vfio-pci
 * asks when its device goes: QEMU then unplugs it from the guest.
 *
 * Each vector with an eventfd is also an irq_bypass_producer, its token
 * the eventfd, as in vfio-pci: when KVM routes that eventfd to a guest
 * (irqfd) on a host with posted interrupts, it may point the vector
 * straight at the guest's vCPU, and this handler no longer runs. That
 * path needs KVM with posted interrupts (VT-d's or AMD's AVIC), which no
 * emulated node has: it is built, and registering is exercised (a kernel
 * without the irq bypass manager, CONFIG_IRQ_BYPASS_MANAGER, builds
 * without it), but a bypassed interrupt is never tested here.
 */
#include <linux/eventfd.h>
#include <linux/interrupt.h>
#include <linux/pci.h>
#include <linux/slab.h>

#include "mdev_priv.h"

/**
 * smartio_mdev_irq_info_count() - The vectors of @index the function has.
 * @sm: The mdev, open. Called with @sm->lock held.
 * @index: A VFIO_PCI_*_IRQ_INDEX.
 *
 * Return: The count; 1 for the request eventfd, 0 for INTx (the shadow
 * has no pin) and for error reports (VFIO_PCI_ERR_IRQ_INDEX: no lender
 * forwards its AER events yet).
 */
int smartio_mdev_irq_info_count(struct smartio_mdev *sm, unsigned int index)
{
	int n = 0;

	if (index == VFIO_PCI_MSI_IRQ_INDEX)
		n = pci_msi_vec_count(sm->pdev);
	else if (index == VFIO_PCI_MSIX_IRQ_INDEX)
		n = pci_msix_vec_count(sm->pdev);
	else if (index == VFIO_PCI_REQ_IRQ_INDEX)
		n = 1;
	return max(n, 0);
}

/**
 * smartio_mdev_irq_info() - VFIO_DEVICE_GET_IRQ_INFO.
 * @sm: The mdev, open. Called with @sm->lock held.
 * @info: Its index set; its count and flags are filled in.
 *
 * Return: 0, or -EINVAL for an index past VFIO_PCI_NUM_IRQS.
 */
int smartio_mdev_irq_info(struct smartio_mdev *sm, struct vfio_irq_info *info)
{
	if (info->index >= VFIO_PCI_NUM_IRQS)
		return -EINVAL;
	info->count = smartio_mdev_irq_info_count(sm, info->index);
	info->flags = VFIO_IRQ_INFO_EVENTFD;
	if (info->index == VFIO_PCI_MSI_IRQ_INDEX)
		info->flags |= VFIO_IRQ_INFO_NORESIZE;
	return 0;
}

static irqreturn_t smartio_mdev_irq(int irq, void *arg)
{
	struct smartio_mdev_vector *v = arg;
	struct eventfd_ctx *trigger = READ_ONCE(v->trigger);

	if (trigger)
		eventfd_signal(trigger, 1);
	return IRQ_HANDLED;
}

#if IS_ENABLED(CONFIG_IRQ_BYPASS_MANAGER)
/* Offers vector @i, whose eventfd is set, to KVM. */
static void smartio_mdev_bypass_on(struct smartio_mdev *sm, int i)
{
	struct smartio_mdev_vector *v = &sm->vectors[i];
	int ret;

	v->producer.token = v->trigger;
	v->producer.irq = pci_irq_vector(sm->pdev, i);
	ret = irq_bypass_register_producer(&v->producer);
	if (ret) {
		/* As vfio-pci: the handler still signals the eventfd. */
		dev_info(&sm->mdev->dev, "vector %d: no irq bypass (%pe): its interrupts go through this node's handler\n",
			 i, ERR_PTR(ret));
		v->producer.token = NULL;
	}
}

static void smartio_mdev_bypass_off(struct smartio_mdev_vector *v)
{
	if (v->producer.token)
		irq_bypass_unregister_producer(&v->producer);
	v->producer.token = NULL;
}
#else
static void smartio_mdev_bypass_on(struct smartio_mdev *sm, int i)
{
}

static void smartio_mdev_bypass_off(struct smartio_mdev_vector *v)
{
}
#endif

/* Frees the vectors and their eventfds. Called with irq_lock held. */
static void smartio_mdev_irqs_off(struct smartio_mdev *sm)
{
	int i;

	lockdep_assert_held(&sm->irq_lock);
	for (i = 0; i < sm->nr_irqs; i++) {
		smartio_mdev_bypass_off(&sm->vectors[i]);
		free_irq(pci_irq_vector(sm->pdev, i), &sm->vectors[i]);
		if (sm->vectors[i].trigger)
			eventfd_ctx_put(sm->vectors[i].trigger);
	}
	if (sm->nr_irqs)
		pci_free_irq_vectors(sm->pdev);
	kfree(sm->vectors);
	sm->vectors = NULL;
	sm->nr_irqs = 0;
	sm->irq_index = -1;
}

/*
 * Allocates @count vectors of @index on the shadow, each with its handler
 * and no eventfd yet. Called with irq_lock held, none allocated.
 */
static int smartio_mdev_irqs_on(struct smartio_mdev *sm, unsigned int index,
				int count)
{
	unsigned int type = index == VFIO_PCI_MSIX_IRQ_INDEX ? PCI_IRQ_MSIX :
							       PCI_IRQ_MSI;
	int i, ret;

	lockdep_assert_held(&sm->irq_lock);
	sm->vectors = kcalloc(count, sizeof(*sm->vectors), GFP_KERNEL);
	if (!sm->vectors)
		return -ENOMEM;
	ret = pci_alloc_irq_vectors(sm->pdev, count, count, type);
	if (ret < 0)
		goto err_free;
	for (i = 0; i < count; i++) {
		ret = request_irq(pci_irq_vector(sm->pdev, i), smartio_mdev_irq,
				  0, "smartio-mdev", &sm->vectors[i]);
		if (ret)
			goto err_irqs;
	}
	sm->nr_irqs = count;
	sm->irq_index = index;
	return 0;

err_irqs:
	while (i--)
		free_irq(pci_irq_vector(sm->pdev, i), &sm->vectors[i]);
	pci_free_irq_vectors(sm->pdev);
err_free:
	kfree(sm->vectors);
	sm->vectors = NULL;
	return ret;
}

/*
 * Sets vector @i's eventfd to @fd (-1: none), and offers it to KVM anew.
 * Called with irq_lock held.
 */
static int smartio_mdev_irq_trigger(struct smartio_mdev *sm, int i, s32 fd)
{
	struct smartio_mdev_vector *v = &sm->vectors[i];
	struct eventfd_ctx *trigger = NULL, *old;

	if (fd >= 0) {
		trigger = eventfd_ctx_fdget(fd);
		if (IS_ERR(trigger))
			return PTR_ERR(trigger);
	}
	lockdep_assert_held(&sm->irq_lock);
	/* The handler reads it without a lock: the vector stays quiet. */
	disable_irq(pci_irq_vector(sm->pdev, i));
	smartio_mdev_bypass_off(v);
	old = v->trigger;
	WRITE_ONCE(v->trigger, trigger);
	if (trigger)
		smartio_mdev_bypass_on(sm, i);
	enable_irq(pci_irq_vector(sm->pdev, i));
	if (old)
		eventfd_ctx_put(old);
	return 0;
}

/*
 * VFIO_DEVICE_SET_IRQS for the request eventfd, as vfio-pci's
 * vfio_pci_set_ctx_trigger_single(): set (an eventfd, or -1 for none),
 * freed (count 0 with DATA_NONE), or signalled (DATA_NONE, or DATA_BOOL
 * true: a loopback test).
 */
static int smartio_mdev_set_req(struct smartio_mdev *sm,
				struct vfio_irq_set *hdr, const void *data)
{
	u32 type = hdr->flags & VFIO_IRQ_SET_DATA_TYPE_MASK;
	struct eventfd_ctx *trigger = NULL;
	bool set = false;
	s32 fd;

	if (!hdr->count) {
		/* vfio_set_irqs_validate_and_prepare() gave no data. */
		set = type == VFIO_IRQ_SET_DATA_NONE;
	} else if (type == VFIO_IRQ_SET_DATA_EVENTFD) {
		set = true;
		fd = *(const s32 *)data;
		if (fd >= 0) {
			trigger = eventfd_ctx_fdget(fd);
			if (IS_ERR(trigger))
				return PTR_ERR(trigger);
		}
	}
	mutex_lock(&sm->irq_lock);
	if (set) {
		swap(sm->req_trigger, trigger);
		if (trigger)
			eventfd_ctx_put(trigger);
	} else if (hdr->count && sm->req_trigger &&
		   (type == VFIO_IRQ_SET_DATA_NONE || *(const u8 *)data)) {
		eventfd_signal(sm->req_trigger, 1);
	}
	mutex_unlock(&sm->irq_lock);
	return 0;
}

/**
 * smartio_mdev_set_irqs() - VFIO_DEVICE_SET_IRQS for MSI and MSI-X.
 * @sm: The mdev, open.
 * @hdr: The request, validated by vfio_set_irqs_validate_and_prepare()
 *	against smartio_mdev_irq_info_count().
 * @data: Its eventfds or booleans, if any.
 *
 * ACTION_TRIGGER only: eventfds for vectors [start, start + count) (the
 * vectors allocated at the first, as many as start + count), a count of
 * 0 with DATA_NONE to free them all, or DATA_NONE or DATA_BOOL to signal
 * them (a loopback test of the eventfds, as vfio-pci offers).
 *
 * The request eventfd's index goes to smartio_mdev_set_req().
 *
 * Return: 0 or -errno: -EINVAL for INTx or what else is not offered,
 * -EBUSY for an index other than the one in use.
 */
int smartio_mdev_set_irqs(struct smartio_mdev *sm, struct vfio_irq_set *hdr,
			  const void *data)
{
	u32 type = hdr->flags & VFIO_IRQ_SET_DATA_TYPE_MASK;
	unsigned int i;
	int ret = 0;

	if ((hdr->flags & VFIO_IRQ_SET_ACTION_TYPE_MASK) !=
	    VFIO_IRQ_SET_ACTION_TRIGGER)
		return -EINVAL;
	if (hdr->index == VFIO_PCI_REQ_IRQ_INDEX)
		return smartio_mdev_set_req(sm, hdr, data);
	if (hdr->index != VFIO_PCI_MSI_IRQ_INDEX &&
	    hdr->index != VFIO_PCI_MSIX_IRQ_INDEX)
		return -EINVAL;
	mutex_lock(&sm->irq_lock);
	if (READ_ONCE(sm->lost)) {
		ret = -EIO;
		goto unlock;
	}
	if (!hdr->count && type == VFIO_IRQ_SET_DATA_NONE) {
		if (sm->irq_index == hdr->index)
			smartio_mdev_irqs_off(sm);
		goto unlock;
	}
	if (sm->nr_irqs && sm->irq_index != hdr->index) {
		ret = -EBUSY;
		goto unlock;
	}
	if (type == VFIO_IRQ_SET_DATA_EVENTFD) {
		if (!sm->nr_irqs)
			ret = smartio_mdev_irqs_on(sm, hdr->index,
						   hdr->start + hdr->count);
		for (i = 0; !ret && i < hdr->count; i++) {
			if (hdr->start + i >= sm->nr_irqs) {
				ret = -EINVAL;
				break;
			}
			ret = smartio_mdev_irq_trigger(sm, hdr->start + i,
						       ((const s32 *)data)[i]);
		}
		goto unlock;
	}
	/* Loopback: signal what is set. */
	for (i = 0; i < hdr->count && hdr->start + i < sm->nr_irqs; i++)
		if ((type == VFIO_IRQ_SET_DATA_NONE ||
		     ((const u8 *)data)[i]) && sm->vectors[hdr->start + i].trigger)
			eventfd_signal(sm->vectors[hdr->start + i].trigger, 1);
unlock:
	mutex_unlock(&sm->irq_lock);
	return ret;
}

/**
 * smartio_mdev_irqs_close() - Free what the VM left allocated.
 * @sm: The mdev, being closed or its device lost. Not under @sm->lock
 *	from a loss (the borrower's lock is held then).
 */
void smartio_mdev_irqs_close(struct smartio_mdev *sm)
{
	mutex_lock(&sm->irq_lock);
	if (sm->nr_irqs)
		smartio_mdev_irqs_off(sm);
	mutex_unlock(&sm->irq_lock);
}

/**
 * smartio_mdev_req_signal() - Ask the VM to release the device.
 * @sm: The mdev, open.
 *
 * Return: Whether the VM gave an eventfd to be asked through.
 */
bool smartio_mdev_req_signal(struct smartio_mdev *sm)
{
	bool asked = false;

	mutex_lock(&sm->irq_lock);
	if (sm->req_trigger) {
		eventfd_signal(sm->req_trigger, 1);
		asked = true;
	}
	mutex_unlock(&sm->irq_lock);
	return asked;
}

/**
 * smartio_mdev_req_close() - Drop the request eventfd, at the close.
 * @sm: The mdev, being closed.
 */
void smartio_mdev_req_close(struct smartio_mdev *sm)
{
	mutex_lock(&sm->irq_lock);
	if (sm->req_trigger)
		eventfd_ctx_put(sm->req_trigger);
	sm->req_trigger = NULL;
	mutex_unlock(&sm->irq_lock);
}
