// SPDX-License-Identifier: GPL-2.0
/*
 * smartio_mdev: any device of the cluster, passed to a virtual machine as
 * a VFIO mediated device (samples/vfio-mdev/mtty.c is the skeleton):
 *
 *	echo $(uuidgen) > /sys/class/smartio/smartio/mdev_supported_types/smartio-pci/create
 *	echo 20000 > /sys/bus/mdev/devices/UUID/smartio/fdid
 *	qemu-system-x86_64 ... -device vfio-pci,sysfsdev=/sys/bus/mdev/devices/UUID
 *
 * One parent (the device "smartio" of the class of that name) with one
 * type, smartio-pci; each mdev names its device by fdid. The device is
 * borrowed when its VFIO device is opened (QEMU's realize, or a hot add to
 * a running VM), with no driver bound to its shadow here, and given back
 * when it is closed; between the two the VM's own driver drives it.
 *
 * The VFIO device registers with an emulated IOMMU
 * (vfio_register_emulated_iommu_dev()): the device's DMA goes through the
 * NTB, whose IOMMU group is smartio's, never VFIO's.
 *
 * An fdid is taken only while its lender is joined to this node, and the
 * parent tells udev when a node joins or leaves (a change uevent with
 * SMARTIO_NODE and SMARTIO_NODE_STATE), and when a device of the cluster
 * becomes available (SMARTIO_DEVICE and SMARTIO_DEVICE_STATE): so
 * mdevctl, which removes an mdev whose attribute it cannot write and
 * creates none while the type has no available instance, creates the
 * mdevs defined with --auto when their lender joins or their device is
 * available (mdev/60-smartio-mdev.rules, mdev/README.md).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/device.h>
#include <linux/module.h>
#include <linux/netlink.h>
#include <linux/notifier.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "smartio/fdid.h"
#include "smartio/ntb.h"
#include "mdev_priv.h"

/**
 * struct smartio_mdev_parent - The one parent device and what it tells udev.
 * @class: Its class, "smartio".
 * @dev: The parent device, "smartio".
 * @parent: Its registration with the mdev core.
 * @uevent_wq: Ordered: the node events, told to udev in the order they
 *	came, out of the NTB layer's link handling (which holds an adapter's
 *	lock).
 * @available_work: On @uevent_wq: tells udev a device became available.
 * @available_fdid: The device announced last.
 * @available_told: When @available_work last told udev (jiffies).
 */
static struct smartio_mdev_parent {
	struct class *class;
	struct device dev;
	struct mdev_parent parent;
	struct workqueue_struct *uevent_wq;
	struct delayed_work available_work;
	u32 available_fdid;
	unsigned long available_told;
} smartio_mdev_parent;

static struct mdev_type smartio_mdev_type = {
	.sysfs_name = "pci",
	.pretty_name = "a PCI function of the smartio cluster, by fdid",
};

static struct mdev_type *smartio_mdev_types[] = { &smartio_mdev_type };

static struct smartio_mdev *smartio_mdev_of(struct vfio_device *vdev)
{
	return container_of(vdev, struct smartio_mdev, vdev);
}

/* --- the fdid attribute --- */

static ssize_t fdid_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	struct smartio_mdev *sm = dev_get_drvdata(dev);
	ssize_t len;

	mutex_lock(&sm->lock);
	len = sm->fdid ? sysfs_emit(buf, "%x\n", sm->fdid) :
			 sysfs_emit(buf, "none\n");
	mutex_unlock(&sm->lock);
	return len;
}

/*
 * Set while the device is closed; an open one keeps its device. Only an
 * fdid whose lender is joined to this node is taken (EHOSTUNREACH
 * otherwise): mdevctl, which writes it when it starts an mdev, removes
 * the mdev again when the write fails, and starts it when the lender
 * joins (the parent's uevent). Once taken, the fdid stays when its lender
 * leaves: an open then fails until it is back.
 */
static ssize_t fdid_store(struct device *dev, struct device_attribute *attr,
			  const char *buf, size_t count)
{
	struct smartio_mdev *sm = dev_get_drvdata(dev);
	u16 node_id;
	u32 fdid;
	int ret;

	ret = kstrtou32(buf, 16, &fdid);
	if (ret || !smartio_fdid_valid(fdid))
		return -EINVAL;
	node_id = smartio_fdid_node(fdid);
	if (!smartio_node_session(node_id)) {
		dev_info(dev, "fdid %x: its lender, node %u, has not joined this node: not taken\n",
			 fdid, node_id);
		return -EHOSTUNREACH;
	}
	mutex_lock(&sm->lock);
	if (sm->borrowed) {
		dev_info(dev, "fdid %x: not changed while the device is open (borrowed fdid %x)\n",
			 fdid, sm->fdid);
		ret = -EBUSY;
	} else {
		sm->fdid = fdid;
	}
	mutex_unlock(&sm->lock);
	return ret ?: count;
}
static DEVICE_ATTR_RW(fdid);

static struct attribute *smartio_mdev_attrs[] = {
	&dev_attr_fdid.attr,
	NULL,
};

static const struct attribute_group smartio_mdev_group = {
	.name = "smartio",
	.attrs = smartio_mdev_attrs,
};

static const struct attribute_group *smartio_mdev_groups[] = {
	&smartio_mdev_group,
	NULL,
};

/* --- the VFIO device --- */

static void smartio_mdev_lost(struct smartio_borrowed *b, void *priv)
{
	struct smartio_mdev *sm = priv;

	/* Not sm->lock: an open holds it across a borrow. */
	smartio_mdev_bars_lost(sm);
	smartio_mdev_irqs_close(sm);
	dev_info(&sm->mdev->dev, "fdid %x lost: its BARs are unmapped and read as errors until the VM closes it%s\n",
		 smartio_borrowed_fdid(b),
		 smartio_mdev_req_signal(sm) ? ", which it is asked to" : "");
}

static const struct smartio_borrow_ops smartio_mdev_borrow_ops = {
	.lost = smartio_mdev_lost,
};

/*
 * Borrows the device. Refused with one line in the log, which QEMU shows
 * as its error, and nothing changed: no fdid yet, or the borrow's own
 * refusal (another node holds it: EBUSY; its lender unreachable:
 * EHOSTUNREACH).
 */
static int smartio_mdev_open(struct vfio_device *vdev)
{
	struct smartio_mdev *sm = smartio_mdev_of(vdev);
	struct smartio_borrow_args args = {
		.driver = SMARTIO_BORROW_NO_DRIVER,
		.ops = &smartio_mdev_borrow_ops,
		.priv = sm,
	};
	struct netlink_ext_ack extack = {};
	struct smartio_borrowed *b;
	int ret = 0;

	mutex_lock(&sm->lock);
	if (!sm->fdid) {
		dev_err(&sm->mdev->dev, "no device to open: write its fdid to smartio/fdid first\n");
		ret = -ENODEV;
		goto unlock;
	}
	/* The VM's RAM, which the device's own windows must keep clear of. */
	smartio_mdev_dma_space(&args.user_ranges[0]);
	b = smartio_borrow(sm->fdid, &args, &extack);
	if (IS_ERR(b)) {
		ret = PTR_ERR(b);
		dev_err(&sm->mdev->dev, "fdid %x not borrowed: %s (%pe)\n",
			sm->fdid, extack._msg ?: "no reason given",
			ERR_PTR(ret));
		goto unlock;
	}
	sm->borrowed = b;
	sm->pdev = smartio_borrowed_pci_dev(b);
	WRITE_ONCE(sm->lost, false);
	/* As vfio-pci: the PCI core allocates vectors of enabled ones only. */
	ret = pci_enable_device(sm->pdev);
	if (ret) {
		dev_err(&sm->mdev->dev, "fdid %x: its shadow %s cannot be enabled (%pe)\n",
			sm->fdid, pci_name(sm->pdev), ERR_PTR(ret));
		goto err_give_back;
	}
	/*
	 * Its lender lends it mastering the bus: the VM turns that on, when
	 * its driver is ready, and the guest RAM is mapped then (dma.c).
	 */
	pci_clear_master(sm->pdev);
	smartio_mdev_config_open(sm);
	ret = smartio_mdev_bars_open(sm);
	if (ret) {
		dev_err(&sm->mdev->dev, "fdid %x: its BARs cannot be mapped here\n",
			sm->fdid);
		goto err_disable;
	}
	smartio_mdev_p2p_open(sm);
	dev_info(&sm->mdev->dev, "fdid %x borrowed as %s\n", sm->fdid,
		 pci_name(sm->pdev));
	mutex_unlock(&sm->lock);
	return 0;

err_disable:
	pci_disable_device(sm->pdev);
err_give_back:
	smartio_give_back(b);
	sm->borrowed = NULL;
	sm->pdev = NULL;
unlock:
	mutex_unlock(&sm->lock);
	return ret;
}

static void smartio_mdev_close(struct vfio_device *vdev)
{
	struct smartio_mdev *sm = smartio_mdev_of(vdev);

	mutex_lock(&sm->lock);
	/* Its DMA stops before the guest RAM it may reach is unmapped. */
	pci_clear_master(sm->pdev);
	smartio_mdev_dma_off(sm);
	smartio_mdev_irqs_close(sm);
	smartio_mdev_req_close(sm);
	smartio_mdev_bars_close(sm);
	smartio_mdev_p2p_close(sm);
	pci_disable_device(sm->pdev);
	smartio_give_back(sm->borrowed);
	sm->borrowed = NULL;
	sm->pdev = NULL;
	dev_info(&sm->mdev->dev, "fdid %x given back\n", sm->fdid);
	mutex_unlock(&sm->lock);
}

static ssize_t smartio_mdev_rw(struct smartio_mdev *sm, char __user *buf,
			       size_t count, loff_t *ppos, bool write)
{
	unsigned int index = SMARTIO_MDEV_OFFSET_INDEX(*ppos);
	loff_t pos = *ppos & SMARTIO_MDEV_OFFSET_MASK;
	ssize_t ret;

	mutex_lock(&sm->lock);
	if (index == VFIO_PCI_CONFIG_REGION_INDEX)
		ret = smartio_mdev_config_rw(sm, buf, count, pos, write);
	else if (index <= VFIO_PCI_BAR5_REGION_INDEX)
		ret = smartio_mdev_bar_rw(sm, index, buf, count, pos, write);
	else
		ret = -EINVAL;
	mutex_unlock(&sm->lock);
	if (ret > 0)
		*ppos += ret;
	return ret;
}

static ssize_t smartio_mdev_read(struct vfio_device *vdev, char __user *buf,
				 size_t count, loff_t *ppos)
{
	return smartio_mdev_rw(smartio_mdev_of(vdev), buf, count, ppos, false);
}

static ssize_t smartio_mdev_write(struct vfio_device *vdev,
				  const char __user *buf, size_t count,
				  loff_t *ppos)
{
	return smartio_mdev_rw(smartio_mdev_of(vdev), (char __user *)buf,
			       count, ppos, true);
}

/* The region's info; its capabilities, if any, into @caps. */
static int smartio_mdev_region_info(struct smartio_mdev *sm,
				    struct vfio_region_info *info,
				    struct vfio_info_cap *caps)
{
	if (info->index >= VFIO_PCI_NUM_REGIONS)
		return -EINVAL;
	info->offset = SMARTIO_MDEV_INDEX_OFFSET(info->index);
	info->flags = 0;
	info->size = 0;
	if (info->index == VFIO_PCI_CONFIG_REGION_INDEX) {
		info->size = sm->pdev->cfg_size;
		info->flags = VFIO_REGION_INFO_FLAG_READ |
			      VFIO_REGION_INFO_FLAG_WRITE;
		return 0;
	}
	if (info->index <= VFIO_PCI_BAR5_REGION_INDEX)
		return smartio_mdev_bar_info(sm, info, caps);
	return 0;	/* no ROM, no VGA */
}

/*
 * VFIO_DEVICE_GET_REGION_INFO: the info, and its capabilities after it
 * where the caller's argsz has room (or the argsz they need).
 */
static int smartio_mdev_get_region_info(struct smartio_mdev *sm,
					struct vfio_region_info __user *uarg)
{
	unsigned long minsz = offsetofend(struct vfio_region_info, offset);
	struct vfio_info_cap caps = {};
	struct vfio_region_info info;
	int ret;

	if (copy_from_user(&info, uarg, minsz))
		return -EFAULT;
	if (info.argsz < minsz)
		return -EINVAL;
	mutex_lock(&sm->lock);
	ret = smartio_mdev_region_info(sm, &info, &caps);
	mutex_unlock(&sm->lock);
	if (ret)
		goto out;
	info.cap_offset = 0;
	if (caps.size) {
		info.flags |= VFIO_REGION_INFO_FLAG_CAPS;
		if (info.argsz < sizeof(info) + caps.size) {
			info.argsz = sizeof(info) + caps.size;
		} else {
			vfio_info_cap_shift(&caps, sizeof(info));
			if (copy_to_user(uarg + 1, caps.buf, caps.size)) {
				ret = -EFAULT;
				goto out;
			}
			info.cap_offset = sizeof(info);
		}
	}
	if (copy_to_user(uarg, &info, minsz))
		ret = -EFAULT;
out:
	kfree(caps.buf);
	return ret;
}

/* VFIO_DEVICE_SET_IRQS: validated as vfio-pci does, then intrs.c's. */
static int smartio_mdev_ioctl_set_irqs(struct smartio_mdev *sm,
				       void __user *uarg)
{
	unsigned long minsz = offsetofend(struct vfio_irq_set, count);
	struct vfio_irq_set hdr;
	size_t data_size = 0;
	void *data = NULL;
	int count, ret;

	if (copy_from_user(&hdr, uarg, minsz))
		return -EFAULT;
	mutex_lock(&sm->lock);
	count = hdr.index < VFIO_PCI_NUM_IRQS ?
		smartio_mdev_irq_info_count(sm, hdr.index) : 0;
	mutex_unlock(&sm->lock);
	ret = vfio_set_irqs_validate_and_prepare(&hdr, count,
						 VFIO_PCI_NUM_IRQS,
						 &data_size);
	if (ret)
		return ret;
	if (data_size) {
		data = memdup_user(uarg + minsz, data_size);
		if (IS_ERR(data))
			return PTR_ERR(data);
	}
	ret = smartio_mdev_set_irqs(sm, &hdr, data);
	kfree(data);
	return ret;
}

static long smartio_mdev_ioctl(struct vfio_device *vdev, unsigned int cmd,
			       unsigned long arg)
{
	struct smartio_mdev *sm = smartio_mdev_of(vdev);
	void __user *uarg = (void __user *)arg;
	unsigned long minsz;

	switch (cmd) {
	case VFIO_DEVICE_GET_INFO: {
		struct vfio_device_info info;

		minsz = offsetofend(struct vfio_device_info, num_irqs);
		if (copy_from_user(&info, uarg, minsz))
			return -EFAULT;
		if (info.argsz < minsz)
			return -EINVAL;
		info.flags = VFIO_DEVICE_FLAGS_PCI;
		/* QEMU resets only a device that says it can. */
		mutex_lock(&sm->lock);
		if (sm->pdev->reset_methods[0])
			info.flags |= VFIO_DEVICE_FLAGS_RESET;
		mutex_unlock(&sm->lock);
		info.num_regions = VFIO_PCI_NUM_REGIONS;
		info.num_irqs = VFIO_PCI_NUM_IRQS;
		return copy_to_user(uarg, &info, minsz) ? -EFAULT : 0;
	}
	case VFIO_DEVICE_RESET: {
		int ret;

		/* A function reset on the lender, its state restored. */
		mutex_lock(&sm->lock);
		ret = smartio_borrowed_reset(sm->borrowed);
		mutex_unlock(&sm->lock);
		return ret;
	}
	case VFIO_DEVICE_GET_REGION_INFO:
		return smartio_mdev_get_region_info(sm, uarg);
	case VFIO_DEVICE_GET_IRQ_INFO: {
		struct vfio_irq_info info;
		int ret;

		minsz = offsetofend(struct vfio_irq_info, count);
		if (copy_from_user(&info, uarg, minsz))
			return -EFAULT;
		if (info.argsz < minsz)
			return -EINVAL;
		mutex_lock(&sm->lock);
		ret = smartio_mdev_irq_info(sm, &info);
		mutex_unlock(&sm->lock);
		if (ret)
			return ret;
		return copy_to_user(uarg, &info, minsz) ? -EFAULT : 0;
	}
	case VFIO_DEVICE_SET_IRQS:
		return smartio_mdev_ioctl_set_irqs(sm, uarg);
	}
	return -ENOTTY;
}

static int smartio_mdev_init_dev(struct vfio_device *vdev)
{
	struct smartio_mdev *sm = smartio_mdev_of(vdev);

	sm->mdev = to_mdev_device(vdev->dev);
	mutex_init(&sm->lock);
	mutex_init(&sm->map_lock);
	INIT_LIST_HEAD(&sm->vmas);
	mutex_init(&sm->irq_lock);
	sm->irq_index = -1;
	INIT_LIST_HEAD(&sm->chunks);
	return 0;
}

static void smartio_mdev_release_dev(struct vfio_device *vdev)
{
	struct smartio_mdev *sm = smartio_mdev_of(vdev);

	mutex_destroy(&sm->irq_lock);
	mutex_destroy(&sm->map_lock);
	mutex_destroy(&sm->lock);
	vfio_free_device(vdev);
}

/*
 * The mdev is being removed while open: vfio_unregister_group_dev() waits
 * for the close, and calls this every 10 s meanwhile. As vfio-pci, ask
 * the VM to release the device each time (QEMU unplugs it from the
 * guest).
 */
static void smartio_mdev_request(struct vfio_device *vdev, unsigned int count)
{
	struct smartio_mdev *sm = smartio_mdev_of(vdev);
	bool asked = smartio_mdev_req_signal(sm);

	if (!count)
		dev_info(&sm->mdev->dev, "removed while open: %s\n",
			 asked ? "the VM is asked to release it" :
				 "waiting for the VM to close it, which gave no way to ask it to");
}

static const struct vfio_device_ops smartio_mdev_ops = {
	.name = "smartio-mdev",
	.init = smartio_mdev_init_dev,
	.release = smartio_mdev_release_dev,
	.open_device = smartio_mdev_open,
	.close_device = smartio_mdev_close,
	.read = smartio_mdev_read,
	.write = smartio_mdev_write,
	.ioctl = smartio_mdev_ioctl,
	.mmap = smartio_mdev_mmap,
	.dma_unmap = smartio_mdev_dma_unmap,
	.request = smartio_mdev_request,
};

/* --- the mdev driver and its parent --- */

static int smartio_mdev_probe(struct mdev_device *mdev)
{
	struct smartio_mdev *sm;
	int ret;

	sm = vfio_alloc_device(smartio_mdev, vdev, &mdev->dev,
			       &smartio_mdev_ops);
	if (IS_ERR(sm))
		return PTR_ERR(sm);
	ret = vfio_register_emulated_iommu_dev(&sm->vdev);
	if (ret)
		goto err_put;
	dev_set_drvdata(&mdev->dev, sm);
	return 0;

err_put:
	vfio_put_device(&sm->vdev);
	return ret;
}

static void smartio_mdev_remove(struct mdev_device *mdev)
{
	struct smartio_mdev *sm = dev_get_drvdata(&mdev->dev);

	vfio_unregister_group_dev(&sm->vdev);
	vfio_put_device(&sm->vdev);
}

/* Follows the cluster: the devices it lists available now. */
static unsigned int smartio_mdev_get_available(struct mdev_type *mtype)
{
	return smartio_borrowable_count();
}

static struct mdev_driver smartio_mdev_driver = {
	.device_api = VFIO_DEVICE_API_PCI_STRING,
	.driver = {
		.name = "smartio_mdev",
		.owner = THIS_MODULE,
		.mod_name = KBUILD_MODNAME,
		.dev_groups = smartio_mdev_groups,
	},
	.probe = smartio_mdev_probe,
	.remove = smartio_mdev_remove,
	.get_available = smartio_mdev_get_available,
};

/* --- node events, told to udev --- */

/**
 * struct smartio_mdev_node_uevent - A node's joining or leaving, to be told
 *	to udev.
 * @work: On smartio_mdev_parent.uevent_wq.
 * @node_id: The node.
 * @joined: It joined; it left otherwise.
 */
struct smartio_mdev_node_uevent {
	struct work_struct work;
	u16 node_id;
	bool joined;
};

/*
 * A change uevent of the parent, "SMARTIO_NODE=2 SMARTIO_NODE_STATE=joined"
 * (or left): mdev/60-smartio-mdev.rules has mdevctl start the parent's
 * mdevs then, whose fdids this node now takes (fdid_store()).
 */
static void smartio_mdev_node_uevent_work(struct work_struct *work)
{
	struct smartio_mdev_node_uevent *ue =
		container_of(work, struct smartio_mdev_node_uevent, work);
	char node[sizeof("SMARTIO_NODE=65535")];
	char *envp[3];
	int ret;

	snprintf(node, sizeof(node), "SMARTIO_NODE=%u", ue->node_id);
	envp[0] = node;
	envp[1] = ue->joined ? "SMARTIO_NODE_STATE=joined" :
			       "SMARTIO_NODE_STATE=left";
	envp[2] = NULL;
	ret = kobject_uevent_env(&smartio_mdev_parent.dev.kobj, KOBJ_CHANGE,
				 envp);
	if (ret)
		dev_err(&smartio_mdev_parent.dev, "node %u %s, but udev could not be told (%pe)\n",
			ue->node_id, ue->joined ? "joined" : "left",
			ERR_PTR(ret));
	kfree(ue);
}

/*
 * Told by the NTB layer's link handling, with an adapter's lock held: the
 * uevent goes from a work item, which takes no lock of the NTB layer's.
 * Nothing to finish at SMARTIO_ADAPTER_GONE: the work uses no adapter.
 */
static int smartio_mdev_node_event(struct notifier_block *nb,
				   unsigned long event, void *data)
{
	const struct smartio_node_event *ev = data;
	struct smartio_mdev_node_uevent *ue;

	if (event != SMARTIO_NODE_JOINED && event != SMARTIO_NODE_LEFT)
		return NOTIFY_DONE;
	ue = kzalloc(sizeof(*ue), GFP_KERNEL);
	if (!ue) {
		dev_err(&smartio_mdev_parent.dev, "node %u %s, but there is no memory to tell udev\n",
			ev->node_id,
			event == SMARTIO_NODE_JOINED ? "joined" : "left");
		return NOTIFY_DONE;
	}
	INIT_WORK(&ue->work, smartio_mdev_node_uevent_work);
	ue->node_id = ev->node_id;
	ue->joined = event == SMARTIO_NODE_JOINED;
	queue_work(smartio_mdev_parent.uevent_wq, &ue->work);
	return NOTIFY_OK;
}

static struct notifier_block smartio_mdev_node_nb = {
	.notifier_call = smartio_mdev_node_event,
};

/*
 * A device of the cluster became available: a change uevent of the parent,
 * "SMARTIO_DEVICE=20000 SMARTIO_DEVICE_STATE=available", on which
 * mdev/60-smartio-mdev.rules has mdevctl start the parent's mdevs (those it
 * could not create while the type had no available instance). Each has
 * udev run mdevctl, and a peer chooses how often it announces: at most one
 * a SMARTIO_MDEV_AVAILABLE_INTERVAL, naming the last device announced.
 */
#define SMARTIO_MDEV_AVAILABLE_INTERVAL	HZ

static void smartio_mdev_available_work(struct work_struct *work)
{
	struct smartio_mdev_parent *p = &smartio_mdev_parent;
	char device[sizeof("SMARTIO_DEVICE=ffffffff")];
	char *envp[3];
	int ret;

	WRITE_ONCE(p->available_told, jiffies);
	snprintf(device, sizeof(device), "SMARTIO_DEVICE=%x",
		 READ_ONCE(p->available_fdid));
	envp[0] = device;
	envp[1] = "SMARTIO_DEVICE_STATE=available";
	envp[2] = NULL;
	ret = kobject_uevent_env(&p->dev.kobj, KOBJ_CHANGE, envp);
	if (ret)
		dev_err(&p->dev, "%s available, but udev could not be told (%pe)\n",
			device + strlen("SMARTIO_DEVICE="), ERR_PTR(ret));
}

/* Told by smartio_lend, in process context, of each announcement. */
static int smartio_mdev_available_event(struct notifier_block *nb,
					unsigned long event, void *data)
{
	struct smartio_mdev_parent *p = &smartio_mdev_parent;
	unsigned long next;

	if (event != SMARTIO_BORROWABLE_AVAILABLE)
		return NOTIFY_DONE;
	WRITE_ONCE(p->available_fdid, *(u32 *)data);
	next = READ_ONCE(p->available_told) + SMARTIO_MDEV_AVAILABLE_INTERVAL;
	/* Nothing more to do while one is queued: it names this device. */
	queue_delayed_work(p->uevent_wq, &p->available_work,
			   time_after(next, jiffies) ? next - jiffies : 0);
	return NOTIFY_OK;
}

static struct notifier_block smartio_mdev_available_nb = {
	.notifier_call = smartio_mdev_available_event,
};

/* --- the module --- */

static void smartio_mdev_parent_release(struct device *dev)
{
}

static int __init smartio_mdev_init(void)
{
	struct smartio_mdev_parent *p = &smartio_mdev_parent;
	int ret;

	ret = smartio_mdev_dma_init();
	if (ret)
		return ret;
	p->uevent_wq = alloc_ordered_workqueue("smartio_mdev_uevent", 0);
	if (!p->uevent_wq)
		return -ENOMEM;
	ret = mdev_register_driver(&smartio_mdev_driver);
	if (ret)
		goto err_wq;
	/* The type's name is the parent's class name, then its own. */
	p->class = class_create(THIS_MODULE, "smartio");
	if (IS_ERR(p->class)) {
		ret = PTR_ERR(p->class);
		goto err_driver;
	}
	p->dev.class = p->class;
	p->dev.release = smartio_mdev_parent_release;
	dev_set_name(&p->dev, "smartio");
	ret = device_register(&p->dev);
	if (ret) {
		put_device(&p->dev);
		goto err_class;
	}
	/*
	 * The notifier first, so that no node's joining goes untold: one
	 * that joins before the parent is registered is told to udev, whose
	 * mdevctl finds no parent yet, and then by the parent's own uevent
	 * (MDEV_STATE=registered), which has mdevctl start the mdevs of the
	 * nodes joined by then. Starting an mdev twice changes nothing.
	 */
	ret = smartio_node_notifier_register(&smartio_mdev_node_nb);
	if (ret)
		goto err_device;
	/* The same for a device that becomes available. */
	p->available_told = jiffies - SMARTIO_MDEV_AVAILABLE_INTERVAL;
	INIT_DELAYED_WORK(&p->available_work, smartio_mdev_available_work);
	ret = smartio_borrowable_notifier_register(&smartio_mdev_available_nb);
	if (ret)
		goto err_node_notifier;
	ret = mdev_register_parent(&p->parent, &p->dev, &smartio_mdev_driver,
				   smartio_mdev_types,
				   ARRAY_SIZE(smartio_mdev_types));
	if (ret)
		goto err_notifier;
	return 0;

err_notifier:
	smartio_borrowable_notifier_unregister(&smartio_mdev_available_nb);
	cancel_delayed_work_sync(&p->available_work);
err_node_notifier:
	smartio_node_notifier_unregister(&smartio_mdev_node_nb);
	flush_workqueue(p->uevent_wq);
err_device:
	device_unregister(&p->dev);
err_class:
	class_destroy(p->class);
err_driver:
	mdev_unregister_driver(&smartio_mdev_driver);
err_wq:
	destroy_workqueue(p->uevent_wq);
	return ret;
}

static void __exit smartio_mdev_exit(void)
{
	struct smartio_mdev_parent *p = &smartio_mdev_parent;

	mdev_unregister_parent(&p->parent);
	/*
	 * No event is queued after this; those queued are told before the
	 * device they are told on goes.
	 */
	smartio_borrowable_notifier_unregister(&smartio_mdev_available_nb);
	cancel_delayed_work_sync(&p->available_work);
	smartio_node_notifier_unregister(&smartio_mdev_node_nb);
	flush_workqueue(p->uevent_wq);
	device_unregister(&p->dev);
	class_destroy(p->class);
	mdev_unregister_driver(&smartio_mdev_driver);
	destroy_workqueue(p->uevent_wq);
}

module_init(smartio_mdev_init);
module_exit(smartio_mdev_exit);

MODULE_DESCRIPTION("smartio: devices of the cluster as VFIO mediated devices");
MODULE_LICENSE("GPL");
