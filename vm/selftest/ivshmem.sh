#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The guest's view of vm/run --ivshmem without a driver: busybox devmem on
# the BARs of the ivshmem device (PCI 1af4:1110), found in sysfs.
#   ivshmem.sh id              this VM's IVPosition (BAR0 + 8): its peer ID
#   ivshmem.sh read OFFSET     the 32-bit word at OFFSET of the region (BAR2)
#   ivshmem.sh write OFFSET V  write V there
set -e
# The guest's install tree has the selftests' helper for the device.
. "${SMC_SELFTESTS:-/smc/libexec/smc-linux/selftests}/lib/ivshmem.sh"
ivshmem_find
case "$1" in
id) echo $(($(devmem $(($(ivshmem_bar 0) + 8)) 32))) ;;
read) echo $(($(devmem $(($(ivshmem_bar 2) + $2)) 32))) ;;
write) devmem $(($(ivshmem_bar 2) + $2)) 32 "$3" ;;
*) echo "usage: ivshmem.sh id | read OFFSET | write OFFSET VALUE" >&2; exit 2 ;;
esac
