# SPDX-License-Identifier: GPL-2.0
# ivshmem.sh: QEMU's ivshmem-doorbell device (PCI 1af4:1110) as a guest sees
# it in sysfs, for scripts that reach its BARs with busybox devmem (which
# the kernel allows only while no driver has claimed them). Sourced.
#
#   ivshmem_find     sets ivshmem_dev to the device's sysfs directory and
#                    turns its memory decoding on; 1 (and a message) if none
#   ivshmem_bar N    the physical start of BAR N (0 registers, 2 the region)

ivshmem_find() {
	ivshmem_dev=
	for _ivs_d in /sys/bus/pci/devices/*; do
		if [ "$(cat "$_ivs_d/vendor")" = 0x1af4 ] && [ "$(cat "$_ivs_d/device")" = 0x1110 ]; then
			ivshmem_dev=$_ivs_d
		fi
	done
	[ -n "$ivshmem_dev" ] || { echo "no ivshmem device" >&2; return 1; }
	# Memory decoding on: nothing else enables a device no driver has taken.
	echo 1 >"$ivshmem_dev/enable"
}

# A BAR's start: line N+1 of the device's resource file.
ivshmem_bar() {
	echo $(($(sed -n "$(($1 + 1))p" "$ivshmem_dev/resource" | cut -d' ' -f1)))
}
