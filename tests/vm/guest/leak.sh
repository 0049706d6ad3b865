# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# The leak check of the tests that churn through smartio's objects (the
# fuzzers', fuzz.sh; mdev-nvme's open and close cycles): leak_mark before,
# no_leak after. tests/vm/selftest/run checks leak_sites_count and
# leak_sites_compare on the host, in busybox's shell: nothing here may
# source another file.

# This node's smartio node id: its NTB port's number plus one (the
# default), as every node of these tests has one port, numbered as the node.
NODE_ID=$((NODE + 1))

# The leak check counts the kmalloc objects alive per allocating call.
# The tests boot with slub_debug=U,kmalloc-* (their test.conf's
# append): SLUB then keeps the call and the stack of each allocation, and
# <debugfs>/slab/kmalloc-*/alloc_traces counts the live objects by them.
# leak_sites prints "SITE WHO COUNT": SITE the allocating function, WHO
# the stack's first match of
#   ours:FN  a function FN of smartio's or of the NTB modules' (any module
#            named smartio*, ntb*, switchtec): smartio, or the kernel on
#            its behalf;
#   task     the creation of a task (copy_process) or of a worker
#            (create_worker), the kernel's own;
# else "kernel". Dentries and inodes are dropped first: a sysfs inode the
# shell looked up holds its kernfs node, and the node its name.
leak_sites() {
	echo 2 >/proc/sys/vm/drop_caches
	# Shrinking a cache also frees what KASAN holds in quarantine of it
	# (kasan_cache_shrink()), freed objects the traces would count. Each
	# shrink file's open leaves a kernfs_open_node (allocated in
	# kernfs_fop_open()) that kfree_rcu() frees, batched for up to seconds
	# under load: a fixed second once left all 39 in the count (CI). Wait
	# until none is left (nothing else here holds a sysfs file open), for
	# at most 20 s.
	for c in /sys/kernel/slab/kmalloc-*; do
		echo 1 >"$c/shrink" 2>/dev/null || true
	done
	rcu_waits=0
	while [ $rcu_waits -lt 40 ] && grep -q '^ *[0-9][0-9]* kernfs_fop_open+' \
		/sys/kernel/debug/slab/kmalloc-*/alloc_traces; do
		sleep 0.5
		rcu_waits=$((rcu_waits + 1))
	done
	cat /sys/kernel/debug/slab/kmalloc-*/alloc_traces | leak_sites_count
}

# leak_sites_count: leak_sites' lines from SLUB's alloc_traces on stdin
# (tests/check's selftest feeds it its own).
leak_sites_count() {
	awk '
		function flush() {
			if (site == "")
				return
			who = ours != "" ? "ours:" ours : task ? "task" : "kernel"
			n[site " " who] += count
			site = ""
		}
		function fn(frame) {
			sub(/\+0x.*/, "", frame)
			return frame
		}
		/^ *[0-9]+ / {
			flush()
			count = $1; site = fn($2); ours = ""; task = 0
			next
		}
		/^        / {
			if (ours == "" && $NF ~ /^\[(smartio[a-z_]*|ntb[a-z_]*|switchtec)\]$/)
				ours = fn($1)
			if ($1 ~ /^(copy_process|create_worker)\+/)
				task = 1
		}
		END {
			flush()
			for (k in n)
				print k, n[k]
		}' | sort
}

# pci_domains: how many PCI domains this boot created (the kernel log's
# "PCI host bridge to bus DDDD:BB" lines: log_buf_len=16M in the fuzz
# tests' append keeps them).
pci_domains() {
	dmesg | sed -n 's/.*PCI host bridge to bus \([0-9a-f]*\):.*/\1/p' | sort -u | wc -l
}

# tasks: the names of the node's tasks, sorted, but kernel worker
# threads' (whose pools grow under load and shrink when idle, the
# kernel's to decide). Read by the shell itself, which has no child then.
tasks() {
	for t in /proc/[0-9]*; do
		read -r comm 2>/dev/null <"$t/comm" && echo "$comm"
	done >/tmp/tasks.all
	grep -v '^kworker/' /tmp/tasks.all | sort
}

# leak_mark: what no_leak compares with: smartio's holdings, the kmalloc
# objects per site, the PCI domains and the tasks.
leak_mark() {
	holdings >/tmp/holdings.before
	# With device lending loaded, smartio keeps one listing of the
	# cluster's devices for callers without privileges
	# (kmod/device_cache.c): made now, not by a fuzzer.
	[ ! -d /sys/module/smartio_lend ] ||
		as_nobody "smartioctl device list" >/dev/null
	# Once for nothing: a debugfs file's first open allocates what the
	# file then keeps (debugfs_file_get()), the traces' own files too.
	leak_sites >/dev/null
	leak_sites >/tmp/sites.before
	pci_domains >/tmp/domains.before
	tasks >/tmp/tasks.before
}

# holdings: what smartio holds on this node, one line per object, by
# type: each function it lends (by PCI name, not fdid: a fuzzer may
# register it anew) and its state; each device it borrows; each segment
# it knows (its own, and the other nodes' it is connected to); each entry
# of its requester-ID tables and its users; and what smartio_ntb holds
# (fabric.sh's $adapters), as its debugfs file counts it: window slots,
# inbound windows, IOVA pages, per adapter (the message counts left out).
# The tests compare it before and after fuzzing, with nothing allowed:
# what a fuzzer leaves must be put back first (devices_reset).
holdings() {
	smartioctl device list | awk -v node="$NODE_ID" '
		$7 == node { print "lent", $2, $8 }
		/ borrowed by / {
			for (i = 1; i < NF; i++)
				if ($i == "by" && $(i + 1) == node)
					print "borrowed", $1
		}' | sort
	smartioctl segment list | sort
	requesters=/sys/kernel/debug/smartio/requesters
	[ ! -r $requesters ] || grep '^  ' $requesters | sort | sed 's/^ */requester /'
	# shellcheck disable=SC2154 # fabric.sh sets it
	grep -E '^adapter |^  windows |^  iova ' "$adapters"
}

# leak_sites_compare BEFORE AFTER NEW_DOMAINS: each allocating site with
# more kmalloc objects in AFTER than in BEFORE (leak_sites' lines), and
# whether what the kernel keeps for good accounts for them: the objects
# of tasks it created (task, the kernel workers the load added: the
# tasks themselves are compared), and at pci_bus_insert_busn_res
# (get_pci_domain_busn_res(), inlined) one per PCI domain created since
# BEFORE, NEW_DOMAINS (drivers/pci/probe.c keeps them). Counted per
# site, whoever asked: an object the kernel allocated at boot may be
# freed and allocated again on smartio's behalf (the IOMMU's per-domain
# data, as a lent function goes back to its default domain). Fails if
# more are left, and prints who asked for them (LEAKED).
leak_sites_compare() {
	awk -v node="node$NODE" -v domains="$3" '
		FNR == NR {
			before[$1] += $3; by[$1 " " $2] = $3
			if ($2 == "task")
				tasks_before[$1] += $3
			next
		}
		{
			after[$1] += $3; now[$1 " " $2] = $3
			if ($2 == "task")
				tasks_after[$1] += $3
		}
		END {
			for (site in after) {
				grew = after[site] - before[site]
				if (grew <= 0)
					continue
				kept = tasks_after[site] - tasks_before[site]
				kept = kept > 0 ? kept : 0
				if (site == "pci_bus_insert_busn_res")
					kept += domains
				printf "%s: kmalloc objects from %s: %d before, %d after, %d kept by kernel tasks and PCI domains%s\n",
					node, site, before[site], after[site], kept,
					(grew > kept ? " (LEAKED)" : "")
				if (grew <= kept)
					continue
				leaked += grew - kept
				for (k in now)
					if (index(k, site " ") == 1 && now[k] > by[k])
						printf "%s:   %s: %d before, %d after\n",
							node, k, by[k], now[k]
			}
			exit leaked > 0
		}' "$1" "$2"
}

# no_leak: since leak_mark, the node holds what it held (holdings, each
# object), the same tasks, and no more kmalloc objects from any site but
# what the kernel keeps for good (leak_sites_compare, which prints each
# site that grew). Under make check-debug, kmemleak scans besides for what
# nothing references when the script is done.
no_leak() {
	holdings >/tmp/holdings.after
	if ! cmp -s /tmp/holdings.before /tmp/holdings.after; then
		diff /tmp/holdings.before /tmp/holdings.after || true
		fail "smartio holds other devices, segments, requester IDs, windows or pages than before"
	fi
	leaked=
	tasks >/tmp/tasks.after
	if ! cmp -s /tmp/tasks.before /tmp/tasks.after; then
		diff /tmp/tasks.before /tmp/tasks.after || true
		leaked="other tasks than before"
	fi
	domains=$(($(pci_domains) - $(cat /tmp/domains.before)))
	# What the last steps freed may take a moment to go: retried.
	waited=0
	while leak_sites >/tmp/sites.after &&
		! leak_sites_compare /tmp/sites.before /tmp/sites.after \
			"$domains" >/tmp/sites.grew; do
		[ $waited -lt 30 ] || break
		sleep 1
		waited=$((waited + 1))
	done
	echo "node$NODE: kmalloc sites compared after $waited s"
	cat /tmp/sites.grew
	grep -q LEAKED /tmp/sites.grew &&
		leaked="${leaked:+$leaked; }kmalloc objects leaked (slub_debug's allocation traces, by allocating site)"
	[ -z "$leaked" ] || fail "$leaked"
}
