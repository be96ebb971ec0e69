#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# smcd/ivshmem_2vm.sh: af_smc's ivshmem driver, step 1 (Documentation/
# smc-d.md, "Between VMs"), on two VMs of topology 2+ivshmem:
#   - each VM binds its device: debugfs ivshmem names one device, peer IDs
#     0 and 1 between the two VMs;
#   - each VM sees both partitions' headers "up", and the other VM's
#     heartbeat moves (it counts up every second);
#   - a doorbell crosses: VM 0 rings vector 1 of VM 1's ID, and VM 1's
#     interrupt count of vector 1 goes up, vector 0's does not; the same
#     from VM 1 to VM 0 on vector 0;
#   - af_smc removed on VM 1: VM 0 sees VM 1's partition "absent"; loaded
#     again without ivshmem=1 (the default is off): the device stays
#     unbound and the partition absent; with ivshmem=1: "up" again, with
#     the same ID.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/topology.sh"

topo_require_ours_2vm "the ivshmem driver is af_smc's own"
# Only a VM without the region skips (run by hand elsewhere): in topology
# 2+ivshmem a missing device or debugfs file is the driver's failure.
[ -n "${SMC_IVSHMEM:-}" ] || tap_skip_all "no ivshmem region (vm/run --ivshmem, topology 2+ivshmem)"
D=/sys/kernel/debug/af_smc/ivshmem

# id_of VM, irqs_of VM VECTOR, beat_of VM PEER: numbers from VM's debugfs.
id_of() { topo_on "$1" "sed -n 's/.* id \([0-9]*\) .*/\1/p' $D | head -n 1"; }
irqs_of() { topo_on "$1" "sed -n 's/.* irqs \([0-9]*\) \([0-9]*\)\$/\1 \2/p' $D | head -n 1" | cut -d' ' -f$(($2 + 1)); }
beat_of() { topo_on "$1" "sed -n 's/^  peer $2 up heartbeat \([0-9]*\)\$/\1/p' $D"; }

ids() {
	for vm in 0 1; do
		topo_on $vm "grep -q ' id ' $D" || tap_fail "VM $vm: no ivshmem device in $D"
	done
	a=$(id_of 0) b=$(id_of 1)
	tap_diag "VM 0 has ID $a, VM 1 has ID $b"
	[ "$a$b" = 01 ] || [ "$a$b" = 10 ] || tap_fail "IDs '$a' and '$b', not 0 and 1"
}

heartbeats() {
	for vm in 0 1; do
		for p in 0 1; do
			topo_on $vm "grep -q '^  peer $p up ' $D" || tap_fail "VM $vm: peer $p not up"
		done
	done
	other0=$(id_of 1) other1=$(id_of 0)
	x=$(beat_of 0 "$other0") y=$(beat_of 1 "$other1")
	sleep 2.5
	x2=$(beat_of 0 "$other0") y2=$(beat_of 1 "$other1")
	tap_diag "VM 0 reads VM 1's heartbeat $x then $x2; VM 1 reads VM 0's $y then $y2"
	[ -n "$x" ] && [ -n "$x2" ] && [ "$x2" -gt "$x" ] || tap_fail "VM 1's heartbeat did not move"
	[ -n "$y" ] && [ -n "$y2" ] && [ "$y2" -gt "$y" ] || tap_fail "VM 0's heartbeat did not move"
}

# ring FROM TO VECTOR: FROM rings TO's vector; TO counts one more on it and
# none on the other.
ring() {
	other=$((1 - $3))
	before=$(irqs_of "$2" "$3") before_other=$(irqs_of "$2" $other)
	topo_on "$1" "echo ring $(id_of "$2") $3 >$D" || tap_fail "VM $1 could not ring"
	n=0
	while [ "$(irqs_of "$2" "$3")" = "$before" ] && [ $n -lt 20 ]; do sleep 0.25; n=$((n + 1)); done
	after=$(irqs_of "$2" "$3") after_other=$(irqs_of "$2" $other)
	tap_diag "VM $2 vector $3: $before -> $after interrupts; vector $other: $before_other -> $after_other"
	[ "$after" = $((before + 1)) ] || tap_fail "VM $2's vector $3 did not count one interrupt"
	[ "$after_other" = "$before_other" ] || tap_fail "VM $2's vector $other counted one too"
}

gone_and_back() {
	id1=$(id_of 1)
	topo_on 1 "rmmod af_smc" || tap_assert "rmmod on VM 1" false
	topo_on 0 "grep -q '^  peer $id1 absent' $D" || tap_fail "VM 0 still sees VM 1's partition up"
	topo_on 1 "insmod $module" || tap_assert "insmod on VM 1" false
	topo_on 1 "grep -q ' id ' $D" && tap_fail "VM 1 bound the device without ivshmem=1"
	sleep 1.5	# a heartbeat's time, had it come up
	topo_on 0 "grep -q '^  peer $id1 absent' $D" || tap_fail "VM 0 sees VM 1 up, with ivshmem off"
	topo_on 1 "rmmod af_smc && insmod $module ivshmem=1" || tap_assert "insmod ivshmem=1 on VM 1" false
	tap_wait_for 5 topo_on 0 "grep -q '^  peer $id1 up' $D" || tap_fail "VM 0 does not see VM 1 up again"
	[ "$(id_of 1)" = "$id1" ] || tap_fail "VM 1's ID changed: $(id_of 1), was $id1"
}

tap_case "each VM binds its ivshmem device, peer IDs 0 and 1" 60 ids
tap_case "both partitions up on both VMs, each heartbeat moves" 60 heartbeats
tap_case "a doorbell from VM 0 interrupts VM 1 on the vector rung" 60 ring 0 1 1
tap_case "a doorbell from VM 1 interrupts VM 0 on the vector rung" 60 ring 1 0 0
tap_case "af_smc removed on VM 1: its partition absent; loaded again: up with ivshmem=1 only" 60 gone_and_back
tap_done
