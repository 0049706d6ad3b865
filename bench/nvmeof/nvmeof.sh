# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# NVMe-oF/TCP for the nvmeof benchmark, over its management network (a
# virtio-net cable between the two VMs, see qemu): node 2 exports its NVMe
# through the kernel's target (nvmet, set up in configfs), node 1 connects
# to it with nvme-tcp through /dev/nvme-fabrics, as nvme-cli would.

# shellcheck disable=SC2034 # for the scripts that source this
initiator_addr=10.0.0.1
target_addr=10.0.0.2
nqn=nqn.2014-08.org.smartio:bench-nvmeof
nvmet=/sys/kernel/config/nvmet

# mgmt_up ADDR: the management interface (the one virtio-net function) up
# as ADDR/24.
mgmt_up() {
	modprobe virtio_pci
	modprobe virtio_net
	wait_until 30 mgmt_if >/dev/null || fail "no management interface"
	ip addr add "$1/24" dev "$(mgmt_if)"
	ip link set "$(mgmt_if)" up
}

mgmt_if() {
	for net in /sys/bus/virtio/drivers/virtio_net/virtio*/net/*; do
		[ -e "$net" ] && echo "${net##*/}" && return 0
	done
	return 1
}

# nvmet_set FILE VALUE: one configfs attribute of the target.
nvmet_set() {
	echo "$2" >"$nvmet/$1" || fail "nvmet: cannot set $1 to $2"
}

# nvmet_export DEV: block device DEV as namespace 1 of subsystem $nqn, open
# to any host, on port 1: NVMe/TCP at $target_addr, port 4420.
nvmet_export() {
	modprobe nvmet_tcp
	sub=subsystems/$nqn
	mkdir "$nvmet/$sub" "$nvmet/$sub/namespaces/1" "$nvmet/ports/1"
	nvmet_set "$sub/attr_allow_any_host" 1
	nvmet_set "$sub/namespaces/1/device_path" "$1"
	nvmet_set "$sub/namespaces/1/enable" 1
	nvmet_set ports/1/addr_trtype tcp
	nvmet_set ports/1/addr_adrfam ipv4
	nvmet_set ports/1/addr_traddr "$target_addr"
	nvmet_set ports/1/addr_trsvcid 4420
	# Linking the subsystem into the port starts listening.
	ln -s "$nvmet/$sub" "$nvmet/ports/1/$sub"
}

# nvmet_unexport: undoes nvmet_export, which closes the block device
# (nvmet holds it open while the namespace is enabled).
nvmet_unexport() {
	sub=subsystems/$nqn
	rm "$nvmet/ports/1/$sub"
	rmdir "$nvmet/ports/1" "$nvmet/$sub/namespaces/1" "$nvmet/$sub"
}

# nvmf_connect: node 1 connects to subsystem $nqn at $target_addr with
# nvme-tcp; prints the new controller's sysfs directory. The kernel
# answers the connect string, on the same open file, with the controller's
# instance: "instance=N,cntlid=M".
nvmf_connect() {
	modprobe nvme_tcp
	reply=$({
		printf 'transport=tcp,traddr=%s,trsvcid=4420,nqn=%s' "$target_addr" "$nqn" >&3 &&
			cat <&3
	} 3<>/dev/nvme-fabrics) || fail "nvme-tcp: cannot connect to $nqn at $target_addr"
	instance=$(echo "$reply" | sed -n 's/^instance=\([0-9]*\),.*/\1/p')
	[ -n "$instance" ] || fail "nvme-tcp: connect answered \"$reply\""
	echo "/sys/class/nvme/nvme$instance"
}

# nvmf_disconnect CTRL: node 1 deletes the controller nvmf_connect made.
nvmf_disconnect() {
	echo 1 >"$1/delete_controller" || fail "cannot delete $1"
}
