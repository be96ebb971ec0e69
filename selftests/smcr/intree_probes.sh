# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# smcr/intree_probes.sh: sourced by the tests that watch Debian's smc.ko
# (intree_pair.sh, v2_intree.sh). Shell snippets, run on the VM that has
# smc.ko (sh -c "$probes" here, smc-vm-exec 1 "$probes" there):
#   $probes    mount tracefs, add the kprobes of group smcit, enable them
#   $unprobe   disable and remove them
#   $records   one line per record: "EVENT ARGS" (e.g. "conf_link_ret ret=-67")
#   $counters  rxe0's sent_pkts and rcvd_pkts
# The field offsets were read from Debian's 6.1.0 binaries: smc_link.state
# +0x304, smc_link.qp_attr.qp_state +0x20 and .cur_qp_state +0x24,
# rxe_cq.notify +0x13c. The tests check qp_state reads RTS (3) where it
# must, so a moved field fails a test rather than passing silently.
# (smc_wr_drain_cq itself takes no kprobe; the blocked tasks' stacks show it.)
probes='TR=/sys/kernel/tracing
grep -q " $TR tracefs" /proc/mounts || mount -t tracefs none $TR || exit 1
echo 0 >$TR/tracing_on
echo >$TR/trace
add() { echo "$1" >>$TR/kprobe_events || { echo "cannot add: $1"; exit 1; }; }
add "p:smcit/conf_link smc_llc_send_confirm_link lnk_state=+0x304(%di):u32 qp_state=+0x20(%di):u32 cur_qp_state=+0x24(%di):u32"
add "r:smcit/conf_link_ret smc_llc_send_confirm_link ret=\$retval:s32"
add "r:smcit/clc_wait smc_clc_wait_msg ret=\$retval:s32"
add "p:smcit/arm rxe_req_notify_cq flags=%si:u32"
add "p:smcit/cq_post rxe_cq_post notify=+0x13c(%di):u8"
add "p:smcit/rx_cq smc_wr_rx_cq_handler"
add "p:smcit/tx_cq smc_wr_tx_cq_handler"
add "r:smcit/llc_wait smc_llc_wait ret=\$retval:x64"
echo 1 >$TR/events/smcit/enable
echo 1 >$TR/tracing_on'
unprobe='TR=/sys/kernel/tracing
[ -d $TR/events/smcit ] || exit 0
echo 0 >$TR/events/smcit/enable
for e in conf_link conf_link_ret clc_wait arm cq_post rx_cq tx_cq llc_wait; do
	echo "-:smcit/$e" >>$TR/kprobe_events
done 2>/dev/null
exit 0'
records='grep -v "^#" /sys/kernel/tracing/trace | sed -n "s/.* \([a-z_]*\): (.*) *\(.*\)$/\1 \2/p"'
counters='for c in sent_pkts rcvd_pkts; do
	echo "$c $(cat /sys/class/infiniband/rxe0/ports/1/hw_counters/$c)"; done'

