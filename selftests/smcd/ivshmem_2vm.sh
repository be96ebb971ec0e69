#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# smcd/ivshmem_2vm.sh: af_smc's ivshmem driver (Documentation/smc-d.md,
# "Between VMs") on two VMs of topology 2+ivshmem:
#   - each VM binds its device: debugfs ivshmem names one device, peer IDs
#     0 and 1 between the two VMs, partitions 0 and 1;
#   - each VM sees both partitions "up", and the other VM's heartbeat
#     moves (it counts up every second);
#   - a doorbell crosses: VM 0 rings vector 1 of VM 1's ID, and VM 1's
#     interrupt count of vector 1 goes up, vector 0's does not; the same
#     from VM 1 to VM 0 on vector 0;
#   - SMC-D between the VMs over the region (step 4): with a UEID in
#     common (their SEIDs differ), an AF_SMC echo from VM 0 to VM 1 is
#     SMCD on both ends, byte-exact from 1 B to 256 MiB, VM 1's signal vector
#     counts interrupts, and the DMBs are gone from both sides after it;
#     with 1 MiB DMBs, 12 connections overfill a partition: the ones that
#     find no room fall back to TCP with the server's Decline for memory,
#     every one carries its bytes, and SMC-D works again once they closed;
#     1000 connections open at once with 16 KiB DMBs are all SMC-D, with
#     a DMB each in both partitions (1020 slots each), none left after;
#     inside one VM the loopback device still carries SMC-D (VM 1's
#     ivshmem interrupts stay put);
#   - VM 0's device unbound (sysfs) under four connections a client holds
#     open and an echo in flight: the unbind returns within 10 s without
#     their owners' close, no SMC-D connection or DMB is left on VM 0 while
#     the four sockets live on, the echo ends with an error, VM 1's ends
#     of all five end (the TCP connections under them were reset), the
#     300 connections opened meanwhile end (each SMC-D, a fallback or an
#     error, their client within 90 s); bound again, the device takes a
#     partition and an echo is SMCD again;
#   - smcd device lists the ivshmem device (its PCI address, its CHID)
#     beside the loopback device (CHID ffff);
#   - af_smc removed on VM 1: VM 0 sees VM 1's partition "free"; loaded
#     again without ivshmem=1 (the default is off): the device stays
#     unbound and the partition free; with ivshmem=1: VM 1 takes it again,
#     "up" on VM 0, with the same peer ID;
#   - VM 1 killed (SIGKILL of its QEMU) in the middle of an echo: VM 0's
#     client gets an error once VM 1's heartbeat has stood still for 15 s
#     (the driver's bound), not later than 40 s after the kill; VM 1
#     booted again gets a new peer ID from the server, takes over its old
#     partition once that has stood still for 15 s in its own eyes, and
#     an echo over SMC-D works again;
#   - a hostile VM: with af_smc removed on VM 1 (so devmem may write the
#     BARs) and VM 0 using its own partition for SMC-D inside itself
#     (loopback_ism=0), VM 1 points VM 0's DMB slots outside the region,
#     writes 400 random words into its signal bits, DMB slots and DMBs
#     and rings its doorbell during an echo: VM 0
#     neither crashes nor warns (the harness would fail the run), the echo
#     ends (verified or with an error), and a new echo is SMCD and
#     byte-exact; then VM 1 overwrites VM 0's claim: VM 0 says it was
#     taken over, and a new echo falls back to TCP, byte-exact.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tap.sh"
. "$here/../lib/topology.sh"

topo_require_ours_2vm "the ivshmem driver is af_smc's own"
# Only a VM without the region skips (run by hand elsewhere): in topology
# 2+ivshmem a missing device or debugfs file is the driver's failure.
[ -n "${SMC_IVSHMEM:-}" ] || tap_skip_all "no ivshmem region (vm/run --ivshmem, topology 2+ivshmem)"
D=/sys/kernel/debug/af_smc/ivshmem
T=$SMC_SELFTESTS/tools
B=$(dirname "$(command -v smcd)")
SRV=10.43.0.2
port=4457
EID=SMC-IVSHMEM.SELFTEST

cleanup() {
	topo_stop_2vm /tmp/srv.pid
	topo_stop_2vm /tmp/srv2.pid
	topo_stop_2vm /tmp/srv3.pid
	for vm in 0 1; do topo_on $vm "$B/smcd ueid flush" >/dev/null 2>&1; done
	# As the harness loaded it (the last cases load it otherwise).
	topo_reload_ours_2vm
}
tap_at_exit cleanup

# id_of VM (its peer ID), part_of VM (its partition, -1: none yet),
# beat_of VM PART: numbers from VM's debugfs (interrupts: topo_ivshmem_irqs).
id_of() { topo_on "$1" "sed -n 's/.* id \([0-9]*\) part .*/\1/p' $D | head -n 1"; }
part_of() { topo_on "$1" "sed -n 's/.* part \(-*[0-9]*\) size .*/\1/p' $D | head -n 1"; }
dmbs_of() { topo_on "$1" "sed -n 's/.* dmbs \([0-9]*\) .*/\1/p' $D | head -n 1"; }
no_dmbs() { [ "$(dmbs_of "$1")" = 0 ]; }
# pci_of: the PCI address of this VM's device.
pci_of() { sed -n 's/^\([0-9a-f:.]*\) id .*/\1/p' $D | head -n 1; }
beat_of() { topo_on "$1" "sed -n 's/^  part $2 up id [0-9]* heartbeat \([0-9]*\)\$/\1/p' $D"; }

ids() {
	for vm in 0 1; do
		topo_on $vm "grep -q ' id ' $D" || tap_fail "VM $vm: no ivshmem device in $D"
	done
	a=$(id_of 0) b=$(id_of 1) pa=$(part_of 0) pb=$(part_of 1)
	tap_diag "VM 0 has ID $a and partition $pa, VM 1 has ID $b and partition $pb"
	[ "$a$b" = 01 ] || [ "$a$b" = 10 ] || tap_fail "IDs '$a' and '$b', not 0 and 1"
	[ "$pa$pb" = 01 ] || [ "$pa$pb" = 10 ] || tap_fail "partitions '$pa' and '$pb', not 0 and 1"
}

heartbeats() {
	for vm in 0 1; do
		for p in 0 1; do
			topo_on $vm "grep -q '^  part $p up ' $D" || tap_fail "VM $vm: partition $p not up"
		done
	done
	other0=$(part_of 1) other1=$(part_of 0)
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
	before=$(topo_ivshmem_irqs "$2" "$3") before_other=$(topo_ivshmem_irqs "$2" $other)
	topo_on "$1" "echo ring $(id_of "$2") $3 >$D" || tap_fail "VM $1 could not ring"
	n=0
	while [ "$(topo_ivshmem_irqs "$2" "$3")" = "$before" ] && [ $n -lt 20 ]; do sleep 0.25; n=$((n + 1)); done
	after=$(topo_ivshmem_irqs "$2" "$3") after_other=$(topo_ivshmem_irqs "$2" $other)
	tap_diag "VM $2 vector $3: $before -> $after interrupts; vector $other: $before_other -> $after_other"
	[ "$after" = $((before + 1)) ] || tap_fail "VM $2's vector $3 did not count one interrupt"
	[ "$after_other" = "$before_other" ] || tap_fail "VM $2's vector $other counted one too"
}

# on1_start PIDFILE READY COMMAND: COMMAND in the background on VM 1, its
# pid in PIDFILE; returns 0 once COMMAND created the file READY (30 s at
# most).
on1_start() {
	topo_on 1 "rm -f $2; $3 </dev/null & echo \$! >$1" &&
		topo_on 1 "n=0; until [ -e $2 ]; do n=\$((n+1)); [ \$n -lt 600 ] || exit 1; sleep 0.05; done"
}

# serve: an echo server on VM 1, ready when it writes /tmp/ready.
serve() {
	topo_stop_2vm /tmp/srv.pid
	on1_start /tmp/srv.pid /tmp/ready \
		"$T/smc-echo -s -k 0 -f smc -a $SRV -p $port -r /tmp/ready -t $(tap_scaled 300) >/tmp/srv.log 2>&1"
}

# part_size: the bytes of a partition of the region (this VM's debugfs).
part_size() {
	_s=$(sed -n 's/.* size \([0-9]*\) partitions \([0-9]*\) .*/\1 \2/p' $D | head -n 1)
	[ -n "$_s" ] && echo $((${_s% *} / ${_s#* }))
}

# conns_serve N SECONDS: smc-conns on VM 1 accepting N connections and
# echoing each, for at most SECONDS (scaled), ready when it returns 0.
conns_serve() {
	topo_stop_2vm /tmp/srv.pid
	on1_start /tmp/srv.pid /tmp/ready \
		"$T/smc-conns -s -a $SRV -p $port -n $1 -r /tmp/ready -t $(tap_scaled "$2") >/tmp/conns.log 2>&1"
}

# conns_open N HOLD SECONDS: smc-conns's client on VM 0 opens N connections
# to conns_serve's server and holds them HOLD seconds, all within SECONDS
# (scaled); returns once they are open, with the client's pid in pid and
# its "open ..." line in modes (its output in $TMPDIR/conns).
conns_open() {
	# Not the last call's lines: the shell truncates the file in the
	# background child, maybe after the first look below.
	rm -f "$TMPDIR/conns"
	$T/smc-conns -c -a $SRV -p $port -n "$1" -H "$2" -t "$(tap_scaled "$3")" >"$TMPDIR/conns" 2>&1 &
	pid=$!
	tap_wait_for "$(tap_scaled $(($3 * 5 / 6)))" grep -qs '^open ' "$TMPDIR/conns" ||
		tap_fail "the connections did not open: $(cat "$TMPDIR/conns")"
	modes=$(grep '^open ' "$TMPDIR/conns")
}

smcd_between() {
	for vm in 0 1; do
		topo_on $vm "$B/smcd ueid add $EID" || tap_assert "UEID $EID on VM $vm" false
	done
	tap_assert "echo server on VM 1" serve
	for n in 1 65537 4194304 268435456; do
		before=$(topo_ivshmem_irqs 1 0)
		out=$($T/smc-echo -c -f smc -a $SRV -p $port -n $n -w 20 -t "$(tap_scaled 120)" 2>&1) ||
			tap_fail "echo of $n bytes: $out"
		after=$(topo_ivshmem_irqs 1 0)
		tap_diag "$n B: $(echo "$out" | grep -E '^(mode|verified)' | tr '\n' ' '); VM 1's signal vector $before -> $after"
		echo "$out" | grep -q '^mode SMCD ' || tap_fail "the client is not SMCD for $n bytes"
		echo "$out" | grep -q "^verified $n bytes" || tap_fail "$n bytes not verified"
		[ "$after" -gt "$before" ] || tap_fail "no doorbell on VM 1 for $n bytes"
	done
	srv=$(topo_on 1 "cat /tmp/srv.log")
	[ "$(echo "$srv" | grep -c ' mode SMCD ')" = 4 ] || tap_fail "the server's side is not SMCD 4 times: $srv"
	# The DMBs go with their connections (no pool on this device).
	tap_wait_for 5 no_dmbs 0 || tap_fail "VM 0 still has $(dmbs_of 0) DMBs"
	tap_wait_for 5 no_dmbs 1 || tap_fail "VM 1 still has $(dmbs_of 1) DMBs"
	return 0
}

# A partition full of DMBs. With net.smc.rmem at 1 MiB every connection
# takes a 1 MiB DMB in each VM's partition (half the region, less its
# header and slot table), so 12 do not fit: the handshake of each that
# finds no room declines with SMC_CLC_DECL_MEM (the server makes its DMB
# first, so its partition fills first, and the client reads the reason as
# its peer's) and the connection carries its bytes over TCP. Once all are
# closed the DMBs are gone and a new echo is SMCD again.
full() {
	# Five more 1 MiB DMBs than a partition holds after its 64 KiB header.
	size=$(part_size)
	[ -n "$size" ] || tap_assert "the region's size in $D" false
	n=$(((size - 65536) / 1048576 + 5))
	rmem=$(cat /proc/sys/net/smc/rmem)	# the same on both VMs
	for vm in 0 1; do
		topo_on $vm "sysctl -qw net.smc.rmem=1048576" || tap_assert "net.smc.rmem on VM $vm" false
	done
	conns_serve $n 120 || tap_assert "smc-conns server on VM 1" false
	conns_open $n 10 120
	ss=$($B/smcss -a 2>&1 | grep ":$port ")
	d0=$(dmbs_of 0) d1=$(dmbs_of 1)
	wait $pid || tap_fail "smc-conns: $(cat "$TMPDIR/conns")"
	for vm in 0 1; do topo_on $vm "sysctl -qw net.smc.rmem=$rmem"; done
	k=$(echo "$modes" | sed -n 's/.* smcd=\([0-9]*\) .*/\1/p')
	tap_diag "a partition of $size bytes: $n connections of 1 MiB DMBs"
	tcp=$(echo "$modes" | sed -n 's/.* tcp=\([0-9]*\)$/\1/p')
	tap_diag "$modes; DMBs: VM 0 $d0, VM 1 $d1; fallbacks in smcss: $(echo "$ss" | grep -o 'TCP 0x[0-9a-f/x]*' | sort | uniq -c | tr -s ' \n' ' ')"
	echo "$modes" | grep -q "^open $n verified $n " || tap_fail "not every connection carried its bytes"
	[ -n "$k" ] && [ "$k" -ge 1 ] && [ "$k" -lt $n ] || tap_fail "$k of $n SMC-D: the partition should take some, not all"
	[ "$tcp" = $((n - k)) ] || tap_fail "$tcp fallbacks, not $((n - k))"
	[ "$d0" = "$k" ] && [ "$d1" = "$k" ] || tap_fail "DMBs $d0 and $d1 for $k SMC-D connections"
	[ "$(echo "$ss" | grep -c ' TCP 0x05000000/0x01010000')" = "$tcp" ] ||
		tap_fail "the fallbacks are not all the server's Decline for memory (0x01010000): $ss"
	tap_wait_for 5 no_dmbs 0 || tap_fail "VM 0 still has $(dmbs_of 0) DMBs"
	tap_wait_for 5 no_dmbs 1 || tap_fail "VM 1 still has $(dmbs_of 1) DMBs"
	tap_assert "echo server on VM 1" serve
	out=$($T/smc-echo -c -f smc -a $SRV -p $port -n 65537 -w 20 -t "$(tap_scaled 60)" 2>&1) ||
		tap_fail "echo after the full partition: $out"
	echo "$out" | grep -q '^mode SMCD ' || tap_fail "the echo after the full partition is not SMCD: $out"
}

# Inside VM 1 the loopback device carries SMC-D; the region is not used.
# 1000 connections from VM 0 to VM 1 open at once, 16 KiB DMBs (net.smc.rmem
# and wmem 16 KiB on both VMs): each SMC-D, a DMB for each in both
# partitions (more than the 254 slots a partition had), each echoing its
# bytes; and none left after.
thousand() {
	n=$many
	rmem=$(cat /proc/sys/net/smc/rmem) wmem=$(cat /proc/sys/net/smc/wmem)
	for vm in 0 1; do
		topo_on $vm "sysctl -qw net.smc.rmem=16384 net.smc.wmem=16384" ||
			tap_assert "net.smc.rmem and wmem on VM $vm" false
	done
	conns_serve $n 240 || tap_assert "smc-conns server on VM 1" false
	conns_open $n 5 240
	d0=$(dmbs_of 0) d1=$(dmbs_of 1)
	wait $pid || tap_fail "smc-conns: $(cat "$TMPDIR/conns")"
	for vm in 0 1; do topo_on $vm "sysctl -qw net.smc.rmem=$rmem net.smc.wmem=$wmem"; done
	tap_diag "$modes; DMBs: VM 0 $d0, VM 1 $d1"
	echo "$modes" | grep -q "^open $n verified $n modes smcr=0 smcd=$n tcp=0" ||
		tap_fail "not $n SMC-D connections, each with its bytes"
	[ "$d0" = $n ] && [ "$d1" = $n ] || tap_fail "DMBs $d0 and $d1 for $n SMC-D connections"
	tap_wait_for 10 no_dmbs 0 || tap_fail "VM 0 still has $(dmbs_of 0) DMBs"
	tap_wait_for 10 no_dmbs 1 || tap_fail "VM 1 still has $(dmbs_of 1) DMBs"
	# The echo server again, for the next cases.
	tap_assert "echo server on VM 1" serve
}

smcd_inside() {
	before=$(topo_ivshmem_irqs 1 0)
	out=$(topo_on 1 "$T/smc-echo -c -f smc -a $SRV -p $port -n 65537 -w 20 -t 60" 2>&1) ||
		tap_fail "echo inside VM 1: $out"
	after=$(topo_ivshmem_irqs 1 0)
	tap_diag "inside VM 1: $(echo "$out" | grep -E '^(mode|verified)' | tr '\n' ' '); signal vector $before -> $after"
	echo "$out" | grep -q '^mode SMCD ' || tap_fail "not SMCD inside VM 1"
	[ "$after" = "$before" ] || tap_fail "VM 1's ivshmem vector moved for a connection inside it"
}

# VM 0's device unbound (sysfs, as a hot unplug does) under live
# connections: four that a client holds open and sleeps on (their owner
# closes them only later), an echo in flight, and new connections being
# made one after the other (handshakes in flight).
unbound() {
	drv=/sys/bus/pci/drivers/af_smc-ivshmem
	O=/sys/kernel/debug/af_smc/objects
	pci=$(pci_of)
	[ -e "$drv/$pci" ] || tap_fail "no device $pci bound to $drv"
	tap_assert "echo server on VM 1" serve
	on1_start /tmp/srv2.pid /tmp/ready2 \
		"$T/smc-conns -s -a $SRV -p $((port + 1)) -n 4 -r /tmp/ready2 -t $(tap_scaled 120) >/tmp/conns2.log 2>&1" ||
		tap_assert "smc-conns server on VM 1" false
	$T/smc-conns -c -a $SRV -p $((port + 1)) -n 4 -H 600 -t "$(tap_scaled 700)" >"$TMPDIR/held" 2>&1 &
	held=$!
	tap_wait_for "$(tap_scaled 60)" grep -qs '^open ' "$TMPDIR/held" ||
		tap_fail "the held connections did not open: $(cat "$TMPDIR/held")"
	grep -q '^open 4 verified 4 modes smcr=0 smcd=4 tcp=0' "$TMPDIR/held" ||
		tap_fail "not 4 SMC-D connections: $(cat "$TMPDIR/held")"
	$T/smc-echo -c -f smc -a $SRV -p $port -n 2G -w 20 -t "$(tap_scaled 300)" >"$TMPDIR/ub" 2>&1 &
	echoing=$!
	tap_wait_for 20 grep -qs '^mode SMCD ' "$TMPDIR/ub" || tap_fail "the echo is not SMCD: $(cat "$TMPDIR/ub")"
	# Handshakes in flight during the unbind: 300 connections opened one
	# after the other, each SMC-D, a fallback or an error; they must end.
	on1_start /tmp/srv3.pid /tmp/ready3 \
		"$T/smc-conns -s -a $SRV -p $((port + 2)) -n 300 -r /tmp/ready3 -t $(tap_scaled 120) >/dev/null 2>&1" ||
		tap_assert "third server on VM 1" false
	sleep 1
	$T/smc-conns -c -a $SRV -p $((port + 2)) -n 300 -t "$(tap_scaled 90)" >"$TMPDIR/many" 2>&1 &
	many=$!
	sleep 0.5
	t0=$(date +%s)
	sh -c "echo $pci >$drv/unbind" 2>"$TMPDIR/unbind" &
	ub=$!
	tap_wait_for "$(tap_scaled 10)" sh -c "! kill -0 $ub 2>/dev/null" ||
		tap_fail "the unbind still waits $(tap_scaled 10) s later, for connections their owner holds open"
	wait $ub || tap_fail "the unbind failed: $(cat "$TMPDIR/unbind")"
	tap_diag "unbound in $(($(date +%s) - t0)) s; objects: $(tr '\n' ' ' <$O)"
	kill -0 $held 2>/dev/null || tap_fail "the client holding four connections ended: $(cat "$TMPDIR/held")"
	# Its four sockets live on; nothing of SMC-D is left under them.
	[ "$(sed -n 's/^conns //p' $O)" = 0 ] && [ "$(sed -n 's/^dmbs //p' $O)" = 0 ] ||
		tap_fail "VM 0 keeps SMC-D connections or DMBs: $(tr '\n' ' ' <$O)"
	tap_wait_for 10 sh -c "! kill -0 $echoing 2>/dev/null" || tap_fail "the echo still runs after the unbind"
	wait $echoing && tap_fail "the echo succeeded across the unbind"
	tap_diag "echo: $(grep -E '^(received|smc-echo)' "$TMPDIR/ub" | head -n 2 | tr '\n' ' ')"
	# VM 1's ends learn by the reset of the TCP connections under them.
	tap_wait_for "$(tap_scaled 10)" topo_on 1 "grep -q '^served 4' /tmp/conns2.log" ||
		tap_fail "VM 1's ends of the held connections did not end: $(topo_on 1 "cat /tmp/conns2.log")"
	tap_wait_for "$(tap_scaled 10)" topo_on 1 "grep -qE '^(smc-echo: )?connection 1: (read|write)' /tmp/srv.log" ||
		tap_fail "VM 1's end of the echo did not end: $(topo_on 1 "tail -n 3 /tmp/srv.log")"
	kill $held 2>/dev/null
	wait $held 2>/dev/null
	tap_wait_for "$(tap_scaled 100)" sh -c "! kill -0 $many 2>/dev/null" ||
		tap_fail "the connections opened during the unbind still run: $(cat "$TMPDIR/many")"
	tap_diag "connections opened during the unbind: $(grep -E '^(open|smc-conns)' "$TMPDIR/many" | head -n 2 | tr '\n' ' ')"
	topo_stop_2vm /tmp/srv3.pid
	# Bound again: a partition, and SMC-D between the VMs again.
	echo "$pci" >$drv/bind || tap_fail "bind $pci again"
	topo_ivshmem_up "$(tap_scaled 60)" || tap_fail "the partitions are not up after the bind"
	tap_assert "echo server on VM 1" serve
	out=$($T/smc-echo -c -f smc -a $SRV -p $port -n 65537 -w 20 -t "$(tap_scaled 60)" 2>&1) ||
		tap_fail "echo after the bind: $out"
	echo "$out" | grep -q '^mode SMCD ' || tap_fail "the echo after the bind is not SMCD: $out"
}

tools() {
	out=$($B/smcd device 2>&1) || tap_fail "smcd device: $out"
	pci=$(pci_of)
	chid=$(sed -n 's/.* chid \([0-9a-f]*\) .*/\1/p' $D | head -n 1)
	tap_diag "$(echo "$out" | tr '\n' ';') (the device: $pci, CHID $chid)"
	echo "$out" | grep -q " $pci .* $chid " || tap_fail "no line with $pci and CHID $chid"
	echo "$out" | grep -q " ffff " || tap_fail "no loopback device (CHID ffff)"
}

gone_and_back() {
	topo_stop_2vm /tmp/srv.pid
	id1=$(id_of 1) p1=$(part_of 1)
	topo_on 1 "rmmod af_smc" || tap_assert "rmmod on VM 1" false
	topo_on 0 "grep -q '^  part $p1 free' $D" || tap_fail "VM 0 still sees VM 1's partition $p1 used"
	topo_on 1 "insmod $module" || tap_assert "insmod on VM 1" false
	topo_on 1 "grep -q ' id ' $D" && tap_fail "VM 1 bound the device without ivshmem=1"
	sleep 1.5	# a heartbeat's time, had it come up
	topo_on 0 "grep -q '^  part $p1 free' $D" || tap_fail "VM 0 sees VM 1's partition used, with ivshmem off"
	topo_on 1 "rmmod af_smc && insmod $module ivshmem=1" || tap_assert "insmod ivshmem=1 on VM 1" false
	tap_wait_for 5 topo_on 0 "grep -q '^  part $p1 up id $id1 ' $D" ||
		tap_fail "VM 0 does not see VM 1 (ID $id1) in partition $p1 again"
}

tap_case "each VM binds its ivshmem device, peer IDs 0 and 1" 60 ids
tap_case "both partitions up on both VMs, each heartbeat moves" 60 heartbeats
tap_case "a doorbell from VM 0 interrupts VM 1 on the vector rung" 60 ring 0 1 1
tap_case "a doorbell from VM 1 interrupts VM 0 on the vector rung" 60 ring 1 0 0
tap_case "SMC-D between the VMs over the region, byte-exact 1 B .. 256 MiB" 300 smcd_between
tap_case "a partition full of DMBs: the next connections fall back (Decline for memory), all carry their bytes" 180 full
# More than the 254 slots a partition had, and the rest of the 1000 as
# tap_volume leaves it (1000 in make check, 441 in make check-debug).
many=$((255 + $(tap_volume 745)))
tap_case "$many connections open at once between the VMs, all SMC-D, a DMB each in both partitions" 300 thousand
tap_case "inside one VM the loopback device still carries SMC-D" 60 smcd_inside
tap_case "VM 0's device unbound under live connections: done in 10 s, they reset, their DMBs gone; bound again: SMCD" 180 unbound
# A VM that stops dead: its heartbeat stands still, and after 15 s VM 0
# resets the connections with it.
killed() {
	topo_on 1 "$B/smcd ueid add $EID" >/dev/null 2>&1
	$B/smcd ueid add $EID >/dev/null 2>&1
	tap_assert "echo server on VM 1" serve
	$T/smc-echo -c -f smc -a $SRV -p $port -n 2G -w 20 -t "$(tap_scaled 300)" >"$TMPDIR/long" 2>&1 &
	pid=$!
	tap_wait_for 20 grep -qs '^mode SMCD ' "$TMPDIR/long" || tap_fail "the long echo is not SMCD: $(cat "$TMPDIR/long")"
	sleep 2
	kill -0 $pid 2>/dev/null || tap_fail "the long echo ended before the kill: $(cat "$TMPDIR/long")"
	t0=$(date +%s)
	smc-vm-host kill 1 >/dev/null || tap_assert "smc-vm-host kill 1" false
	n=0
	while kill -0 $pid 2>/dev/null && [ $n -lt "$(tap_scaled 60)" ]; do sleep 1; n=$((n + 1)); done
	t1=$(date +%s)
	if kill -0 $pid 2>/dev/null; then
		kill $pid
		tap_fail "the echo still runs $((t1 - t0)) s after VM 1 was killed"
	fi
	wait $pid && tap_fail "the echo succeeded with VM 1 killed"
	tap_diag "the echo ended $((t1 - t0)) s after the kill: $(tail -n 1 "$TMPDIR/long")"
	[ $((t1 - t0)) -le "$(tap_scaled 40)" ] || tap_fail "it took longer than 40 s"
	dmesg | grep -q "partition $p1_seen stopped (no heartbeat)" || tap_fail "VM 0 did not log the stopped partition"
	# Back: a new ID from the server (QEMU's device cannot take an old
	# one back), its old partition taken over once it stood still 15 s.
	smc-vm-host boot 1 >/dev/null || tap_assert "smc-vm-host boot 1" false
	tap_wait_for "$(tap_scaled 120)" topo_on 1 "grep -q ' part $p1_seen size ' $D" ||
		tap_fail "VM 1 has not taken partition $p1_seen after its boot: $(topo_on 1 "head -n 1 $D")"
	tap_diag "VM 1 is back with ID $(id_of 1) (was $id1_seen) in partition $p1_seen"
	[ "$(id_of 1)" != "$id1_seen" ] || tap_fail "VM 1 came back with its old ID $id1_seen"
	tap_wait_for 10 sh -c "dmesg | grep -q -e 'partition $p1_seen has a new owner' -e 'partition $p1_seen is back'" ||
		tap_fail "VM 0 did not see VM 1 back"
	topo_on 1 "$B/smcd ueid add $EID" || tap_assert "UEID on VM 1" false
	tap_assert "echo server on VM 1 again" serve
	out=$($T/smc-echo -c -f smc -a $SRV -p $port -n 65537 -w 20 -t "$(tap_scaled 60)" 2>&1) ||
		tap_fail "echo after VM 1's boot: $out"
	echo "$out" | grep -q '^mode SMCD ' || tap_fail "the echo after VM 1's boot is not SMCD"
}

# echo_in_vm0 BYTES: an echo inside VM 0 (client and server on 10.43.0.1);
# its output.
echo_in_vm0() {
	$T/smc-echo -c -f smc -a 10.43.0.1 -p $port -n "$1" -w 20 -t "$(tap_scaled 40)" 2>&1
}

scribbled() {
	topo_stop_2vm /tmp/srv.pid
	topo_on 0 "rmmod af_smc && insmod $module ivshmem=1 loopback_ism=0" ||
		tap_assert "af_smc ivshmem=1 loopback_ism=0 on VM 0" false
	tap_wait_for 10 grep -q ' part [0-9][0-9]* size ' $D || tap_fail "VM 0 has no partition"
	p0=$(part_of 0) id0=$(id_of 0)
	ps=$(part_size)
	topo_on 1 "rmmod af_smc" || tap_assert "rmmod on VM 1" false
	rm -f /tmp/ready
	$T/smc-echo -s -k 0 -f smc -a 10.43.0.1 -p $port -r /tmp/ready -t "$(tap_scaled 120)" >"$TMPDIR/srv0" 2>&1 &
	srv=$!
	tap_wait_for 10 test -e /tmp/ready || tap_fail "no echo server on VM 0"
	echo_in_vm0 2G >"$TMPDIR/scr" &
	pid=$!
	tap_wait_for 20 grep -qs '^mode SMCD ' "$TMPDIR/scr" || tap_fail "the echo inside VM 0 is not SMCD: $(cat "$TMPDIR/scr")"
	before=$(topo_ivshmem_irqs 0 0)
	topo_on 1 "sh $here/ivshmem_scribble.sh $((p0 * ps)) $ps $$ 400 $id0" ||
		tap_fail "the scribbler failed"
	# The echo ends by itself (verified, or an error) or is stopped: its
	# result is the scribbler's to decide; the kernel's is what counts.
	running=
	tap_wait_for 5 sh -c "! kill -0 $pid 2>/dev/null" || { running=" (stopped)"; kill $pid; }
	wait $pid
	rc=$?
	tap_diag "echo during the scribbling: status $rc$running, $(grep -E '^(verified|smc-echo)' "$TMPDIR/scr" | head -n 2 | tr '\n' ' ');" \
		"VM 0's signal vector $before -> $(topo_ivshmem_irqs 0 0)"
	# Whichever end found the other's slot broken also reset the TCP
	# connection under it, so the server's end of the echo ends too (an
	# error, or the EOF of a client that stopped in time), and the same
	# server takes the next connection. Before that RST a server whose
	# client was the one reset waited in its read for good.
	tap_wait_for "$(tap_scaled 10)" grep -qE '^(smc-echo: )?connection 1: (read|write|echoed)' "$TMPDIR/srv0" ||
		tap_fail "the server's end of the broken echo did not end: $(tail -n 3 "$TMPDIR/srv0")"
	tap_diag "server: $(grep -E '^(smc-echo: )?connection 1: ' "$TMPDIR/srv0")"
	out=$(echo_in_vm0 1M) || tap_fail "a new echo after the scribbling: $out"
	echo "$out" | grep -q '^mode SMCD ' || tap_fail "the new echo is not SMCD: $out"
	topo_on 1 "sh $here/ivshmem_scribble.sh $((p0 * ps)) $ps $$ claim $id0" ||
		tap_fail "the claim scribbler failed"
	tap_wait_for 5 sh -c "dmesg | grep -q 'partition $p0 was taken over'" ||
		tap_fail "VM 0 did not notice its claim overwritten"
	out=$(echo_in_vm0 1M) || tap_fail "an echo after the claim: $out"
	echo "$out" | grep -q '^mode TCP ' || tap_fail "the echo after the claim is not a fallback: $out"
	kill $srv 2>/dev/null
	wait $srv 2>/dev/null
	return 0
}

tap_case "smcd device lists the ivshmem device beside the loopback device" 30 tools
tap_case "af_smc removed on VM 1: its partition free; loaded again: taken with ivshmem=1 only" 60 gone_and_back
id1_seen=$(id_of 1) p1_seen=$(part_of 1)
tap_case "VM 1 killed mid-echo: VM 0's echo ends within 40 s; VM 1 back in its partition, SMC-D again" 300 killed
tap_case "VM 1 scribbles over VM 0's partition: no crash, new echoes SMCD; its claim taken: a fallback" 300 scribbled
tap_done
