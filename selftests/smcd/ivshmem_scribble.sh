#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# smcd/ivshmem_scribble.sh: a hostile VM on an ivshmem region, for
# smcd/ivshmem_2vm.sh. Runs on a VM whose af_smc is removed (so the BARs
# are nobody's and busybox devmem may write them) and writes COUNT random
# 32-bit words into the partition at byte OFFSET of the region, SIZE bytes
# long: half into its header area's first 16 KiB past the first 64 bytes
# (the signal bits and the first 252 DMB slots, where the DMBs in use are:
# slots are taken lowest first), half into its first MiB of DMBs, which
# begin after the 64 KiB header area; every tenth write rings the
# doorbell of peer ID RING, vector 0. Before them it points the first four
# DMB slots (the DMBs of the connections that run) far outside the
# partition: offset 0x7ffff000, length 1 MiB. With "claim" instead of
# COUNT, it overwrites the partition's magic and claim word instead.
#
#   ivshmem_scribble.sh OFFSET SIZE SEED COUNT|claim RING
set -e
off=$1 size=$2 seed=$3 what=$4 ring=$5
. "$(dirname "$0")/../lib/ivshmem.sh"
ivshmem_find
bar0=$(ivshmem_bar 0) base=$(($(ivshmem_bar 2) + off))
if [ "$what" = claim ]; then
	for o in 0 4 32 36; do devmem $((base + o)) 32 0x5ca1ab1e; done
	exit 0
fi
# A slot is 64 bytes from byte 256: token, then offset and length
# (kernel/smcd_ivshmem.c, struct smcd_ivsh_header; its build checks them).
for slot in 0 1 2 3; do
	devmem $((base + 256 + slot * 64 + 8)) 32 0x7ffff000
	devmem $((base + 256 + slot * 64 + 12)) 32 0x100000
done
devmem $((bar0 + 12)) 32 $((ring << 16))
# "OFFSET VALUE" lines: OFFSET 4-aligned, inside the partition.
awk -v seed="$seed" -v n="$what" -v size="$size" 'BEGIN {
	srand(seed)
	hdr = 65536
	dmbs = size - hdr; if (dmbs > 1048576) dmbs = 1048576
	for (i = 0; i < n; i++) {
		if (i % 2) o = 64 + int(rand() * (16384 - 64) / 4) * 4
		else o = hdr + int(rand() * dmbs / 4) * 4
		printf "%d 0x%04x%04x\n", o, int(rand() * 65536), int(rand() * 65536)
	}
}' | {
	i=0
	while read -r o v; do
		devmem $((base + o)) 32 "$v"
		i=$((i + 1))
		[ $((i % 10)) != 0 ] || devmem $((bar0 + 12)) 32 $((ring << 16))
	done
}
