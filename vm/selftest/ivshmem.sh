#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The guest's view of vm/run --ivshmem without a driver: busybox devmem on
# the BARs of the ivshmem device (PCI 1af4:1110), found in sysfs.
#   ivshmem.sh id              this VM's IVPosition (BAR0 + 8): its peer ID
#   ivshmem.sh read OFFSET     the 32-bit word at OFFSET of the region (BAR2)
#   ivshmem.sh write OFFSET V  write V there
set -e
dev=
for d in /sys/bus/pci/devices/*; do
	if [ "$(cat "$d/vendor")" = 0x1af4 ] && [ "$(cat "$d/device")" = 0x1110 ]; then dev=$d; fi
done
[ -n "$dev" ] || { echo "ivshmem.sh: no ivshmem device" >&2; exit 1; }
# Memory decoding on: nothing else enables a device no driver has taken.
echo 1 >"$dev/enable"
# A BAR's start: line N+1 of the device's resource file.
bar() { sed -n "$(($1 + 1))p" "$dev/resource" | cut -d' ' -f1; }
case "$1" in
id) echo $(($(devmem $(($(bar 0) + 8)) 32))) ;;
read) echo $(($(devmem $(($(bar 2) + $2)) 32))) ;;
write) devmem $(($(bar 2) + $2)) 32 "$3" ;;
*) echo "usage: ivshmem.sh id | read OFFSET | write OFFSET VALUE" >&2; exit 2 ;;
esac
