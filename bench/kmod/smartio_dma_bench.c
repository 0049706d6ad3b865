// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark: the cost of one DMA map and unmap through a device's DMA ops,
 * whichever they are. For a borrowed function's shadow device they are
 * smartio's (lend/shadow.c: in IOMMU mode, pages go into the NTB's IOVA
 * window, ntb/iova.c); for a local device behind the same IOMMU they are
 * the kernel's iommu-dma. Comparing the two says what the hook a borrower
 * puts in every driver's DMA path costs against the native one.
 *
 *	echo "BDF KIND COUNT" > <debugfs>/smartio_dma_bench/run
 *	cat <debugfs>/smartio_dma_bench/run
 *
 * BDF is a PCI name (0000:00:03.0, or 10000:00:00.0 for a shadow); KIND
 * is "page" (dma_map_page() and dma_unmap_page() of one 4 KiB page) or
 * "sg64k" (dma_map_sg() and dma_unmap_sg() of a 16-entry scatterlist of
 * 4 KiB pages, no two adjacent in memory); COUNT iterations are timed
 * with ktime_get_ns() after a warm-up of COUNT / 10 (at least 16), and so
 * is each of up to 65536 of them, evenly spread. The write returns when
 * the run is done; a read gives
 *
 *	ns_per_op N median_ns M ops COUNT total_ns T mask 0x... driver NAME
 *
 * N being the mean nanoseconds per map+unmap, M the median of those timed
 * one by one: under TCG a loaded host stretches some of the run (the
 * vCPU waiting for a host CPU), which moves the mean but few single
 * operations, each a few microseconds. The device is taken as it
 * is: nothing is bound to it and its DMA mask is left as its driver set
 * it (nvme sets 64 bits, for the local function and the shadow alike);
 * its device lock is held for the run, so that driver stays bound. The
 * device never sees the addresses: the pages are mapped and unmapped
 * only, bidirectionally, never accessed by it.
 */
#include <linux/debugfs.h>
#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/gfp.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/scatterlist.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sort.h>

#define SMARTIO_DMA_BENCH_SG	16		/* entries of sg64k: 64 KiB */
/*
 * Each entry of sg64k is the first page of a block of two, so that no two
 * are adjacent: pages allocated one by one sometimes are, and then map as
 * one run, for either path, making runs differ by chance.
 */
#define SMARTIO_DMA_BENCH_ORDER	1
#define SMARTIO_DMA_BENCH_MAX	10000000	/* iterations */
#define SMARTIO_DMA_BENCH_SAMPLES 65536		/* timed one by one */

enum smartio_dma_bench_kind {
	SMARTIO_DMA_BENCH_PAGE,
	SMARTIO_DMA_BENCH_SG64K,
};

static struct dentry *smartio_dma_bench_dir;
static DEFINE_MUTEX(smartio_dma_bench_lock);
static char smartio_dma_bench_result[192];	/* under the lock */

/* One map and unmap of @kind; 0 or -EIO when the map fails. */
static int smartio_dma_bench_once(struct device *dev,
				  enum smartio_dma_bench_kind kind,
				  struct page *page, struct scatterlist *sgl)
{
	dma_addr_t addr;

	if (kind == SMARTIO_DMA_BENCH_PAGE) {
		addr = dma_map_page(dev, page, 0, PAGE_SIZE, DMA_BIDIRECTIONAL);
		if (dma_mapping_error(dev, addr))
			return -EIO;
		dma_unmap_page(dev, addr, PAGE_SIZE, DMA_BIDIRECTIONAL);
		return 0;
	}
	if (!dma_map_sg(dev, sgl, SMARTIO_DMA_BENCH_SG, DMA_BIDIRECTIONAL))
		return -EIO;
	dma_unmap_sg(dev, sgl, SMARTIO_DMA_BENCH_SG, DMA_BIDIRECTIONAL);
	return 0;
}

/*
 * @count iterations; never sleeps long enough to upset the watchdogs.
 * With @samples, one iteration in every count / SMARTIO_DMA_BENCH_SAMPLES
 * + 1 is timed, its ns added to @samples at *@nsamples.
 */
static int smartio_dma_bench_loop(struct device *dev,
				  enum smartio_dma_bench_kind kind,
				  struct page *page, struct scatterlist *sgl,
				  unsigned int count, u32 *samples,
				  unsigned int *nsamples)
{
	unsigned int i, stride = count / SMARTIO_DMA_BENCH_SAMPLES + 1;
	u64 start = 0;
	int ret;

	for (i = 0; i < count; i++) {
		if (samples && i % stride == 0)
			start = ktime_get_ns();
		ret = smartio_dma_bench_once(dev, kind, page, sgl);
		if (ret)
			return ret;
		if (samples && i % stride == 0)
			samples[(*nsamples)++] = min_t(u64, ktime_get_ns() - start,
						       U32_MAX);
		if (i % 256 == 255)
			cond_resched();
	}
	return 0;
}

static int smartio_dma_bench_cmp(const void *a, const void *b)
{
	u32 x = *(const u32 *)a, y = *(const u32 *)b;

	return x < y ? -1 : x > y;
}

/*
 * Times @count map+unmap of @kind through @dev's DMA ops: all of them
 * (@total_ns), and the median of those timed one by one (@median_ns).
 */
static int smartio_dma_bench_run(struct device *dev,
				 enum smartio_dma_bench_kind kind,
				 unsigned int count, u64 *total_ns,
				 u32 *median_ns)
{
	struct page *pages[SMARTIO_DMA_BENCH_SG] = { };
	unsigned int nsamples = 0;
	struct scatterlist *sgl;
	u32 *samples;
	u64 start;
	int i, ret = -ENOMEM;

	sgl = kcalloc(SMARTIO_DMA_BENCH_SG, sizeof(*sgl), GFP_KERNEL);
	samples = kvmalloc_array(SMARTIO_DMA_BENCH_SAMPLES, sizeof(*samples),
				 GFP_KERNEL);
	if (!sgl || !samples)
		goto out;
	sg_init_table(sgl, SMARTIO_DMA_BENCH_SG);
	for (i = 0; i < SMARTIO_DMA_BENCH_SG; i++) {
		pages[i] = alloc_pages(GFP_KERNEL, SMARTIO_DMA_BENCH_ORDER);
		if (!pages[i])
			goto out;
		sg_set_page(&sgl[i], pages[i], PAGE_SIZE, 0);
	}

	ret = smartio_dma_bench_loop(dev, kind, pages[0], sgl,
				     max(count / 10, 16U), NULL, NULL);
	if (ret)
		goto out;
	start = ktime_get_ns();
	ret = smartio_dma_bench_loop(dev, kind, pages[0], sgl, count, samples,
				     &nsamples);
	*total_ns = ktime_get_ns() - start;
	if (ret)
		goto out;
	sort(samples, nsamples, sizeof(*samples), smartio_dma_bench_cmp, NULL);
	*median_ns = samples[nsamples / 2];
out:
	for (i = 0; i < SMARTIO_DMA_BENCH_SG; i++)
		if (pages[i])
			__free_pages(pages[i], SMARTIO_DMA_BENCH_ORDER);
	kvfree(samples);
	kfree(sgl);
	return ret;
}

static ssize_t smartio_dma_bench_write(struct file *file,
				       const char __user *ubuf, size_t count,
				       loff_t *ppos)
{
	enum smartio_dma_bench_kind kind;
	char name[64], kname[16], *line;
	unsigned int iters;
	struct device *dev;
	u64 total_ns = 0;
	u32 median_ns = 0;
	int ret;

	if (count > 128)
		return -EINVAL;
	line = memdup_user_nul(ubuf, count);
	if (IS_ERR(line))
		return PTR_ERR(line);
	ret = sscanf(line, "%63s %15s %u", name, kname, &iters);
	kfree(line);
	if (ret != 3 || !iters || iters > SMARTIO_DMA_BENCH_MAX)
		return -EINVAL;
	if (!strcmp(kname, "page"))
		kind = SMARTIO_DMA_BENCH_PAGE;
	else if (!strcmp(kname, "sg64k"))
		kind = SMARTIO_DMA_BENCH_SG64K;
	else
		return -EINVAL;

	dev = bus_find_device_by_name(&pci_bus_type, NULL, name);
	if (!dev)
		return -ENODEV;
	mutex_lock(&smartio_dma_bench_lock);
	smartio_dma_bench_result[0] = '\0';
	device_lock(dev);
	/* The mask its driver set, or the bus's default: never ours. */
	if (!dev->dma_mask || !dma_get_mask(dev)) {
		ret = -EINVAL;
	} else {
		ret = smartio_dma_bench_run(dev, kind, iters, &total_ns,
					    &median_ns);
		if (!ret)
			snprintf(smartio_dma_bench_result,
				 sizeof(smartio_dma_bench_result),
				 "ns_per_op %llu median_ns %u ops %u total_ns %llu mask 0x%llx driver %s\n",
				 div_u64(total_ns, iters), median_ns, iters,
				 total_ns,
				 dma_get_mask(dev),
				 dev->driver ? dev->driver->name : "none");
	}
	device_unlock(dev);
	mutex_unlock(&smartio_dma_bench_lock);
	put_device(dev);
	return ret ?: count;
}

static ssize_t smartio_dma_bench_read(struct file *file, char __user *ubuf,
				      size_t count, loff_t *ppos)
{
	ssize_t ret;

	mutex_lock(&smartio_dma_bench_lock);
	ret = simple_read_from_buffer(ubuf, count, ppos,
				      smartio_dma_bench_result,
				      strlen(smartio_dma_bench_result));
	mutex_unlock(&smartio_dma_bench_lock);
	return ret;
}

static const struct file_operations smartio_dma_bench_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = smartio_dma_bench_write,
	.read = smartio_dma_bench_read,
	.llseek = default_llseek,
};

static int __init smartio_dma_bench_init(void)
{
	smartio_dma_bench_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("run", 0600, smartio_dma_bench_dir, NULL,
			    &smartio_dma_bench_fops);
	return 0;
}

static void __exit smartio_dma_bench_exit(void)
{
	debugfs_remove(smartio_dma_bench_dir);
}

module_init(smartio_dma_bench_init);
module_exit(smartio_dma_bench_exit);

MODULE_DESCRIPTION("smartio benchmark: ns per DMA map+unmap through a device's DMA ops");
MODULE_LICENSE("GPL");
