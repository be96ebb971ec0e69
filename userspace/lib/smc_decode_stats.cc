// SPDX-License-Identifier: GPL-2.0
//
// SMC_NETLINK_GET_STATS and SMC_NETLINK_GET_FBACK_STATS replies, and
// af_smc's own SMC_NETLINK_GET_LINK_STATS.
#include <linux/smc.h>
#include <smc/af_smc.h>

#include "smc_decode.h"

namespace smc {

namespace {

void decode_histogram(const nl::AttrSet &s, SizeHistogram &h)
{
	// SMC_NLA_STATS_PLOAD_8K (1) .. SMC_NLA_STATS_PLOAD_G_1024K (9)
	for (std::size_t i = 0; i < h.size(); ++i)
		h[i] = s.uint_or(static_cast<std::uint16_t>(SMC_NLA_STATS_PLOAD_8K + i), 0);
}

void decode_buffers(const nl::AttrSet &s, BufferStats &b)
{
	b.size_small_peer = s.uint_or(SMC_NLA_STATS_RMB_SIZE_SM_PEER_CNT, 0);
	b.size_small = s.uint_or(SMC_NLA_STATS_RMB_SIZE_SM_CNT, 0);
	b.full_peer = s.uint_or(SMC_NLA_STATS_RMB_FULL_PEER_CNT, 0);
	b.full = s.uint_or(SMC_NLA_STATS_RMB_FULL_CNT, 0);
	b.reuse = s.uint_or(SMC_NLA_STATS_RMB_REUSE_CNT, 0);
	b.alloc = s.uint_or(SMC_NLA_STATS_RMB_ALLOC_CNT, 0);
	b.downgrade = s.uint_or(SMC_NLA_STATS_RMB_DGRADE_CNT, 0);
}

void decode_tech(AttrDecoder &d, const nl::AttrSet &s, TechStats &t)
{
	decode_histogram(d.nest(s, SMC_NLA_STATS_T_TX_RMB_SIZE), t.tx_buf_size);
	decode_histogram(d.nest(s, SMC_NLA_STATS_T_RX_RMB_SIZE), t.rx_buf_size);
	decode_histogram(d.nest(s, SMC_NLA_STATS_T_TXPLOAD_SIZE), t.tx_req_size);
	decode_histogram(d.nest(s, SMC_NLA_STATS_T_RXPLOAD_SIZE), t.rx_req_size);
	decode_buffers(d.nest(s, SMC_NLA_STATS_T_TX_RMB_STATS), t.tx_buf);
	decode_buffers(d.nest(s, SMC_NLA_STATS_T_RX_RMB_STATS), t.rx_buf);
	t.clnt_v1_succ = s.uint_or(SMC_NLA_STATS_T_CLNT_V1_SUCC, 0);
	t.clnt_v2_succ = s.uint_or(SMC_NLA_STATS_T_CLNT_V2_SUCC, 0);
	t.srv_v1_succ = s.uint_or(SMC_NLA_STATS_T_SRV_V1_SUCC, 0);
	t.srv_v2_succ = s.uint_or(SMC_NLA_STATS_T_SRV_V2_SUCC, 0);
	t.sendpage = s.uint_or(SMC_NLA_STATS_T_SENDPAGE_CNT, 0);
	t.urg_data = s.uint_or(SMC_NLA_STATS_T_URG_DATA_CNT, 0);
	t.splice = s.uint_or(SMC_NLA_STATS_T_SPLICE_CNT, 0);
	t.cork = s.uint_or(SMC_NLA_STATS_T_CORK_CNT, 0);
	t.nodelay = s.uint_or(SMC_NLA_STATS_T_NDLY_CNT, 0);
	t.rx_bytes = s.uint_or(SMC_NLA_STATS_T_RX_BYTES, 0);
	t.tx_bytes = s.uint_or(SMC_NLA_STATS_T_TX_BYTES, 0);
	t.rx_cnt = s.uint_or(SMC_NLA_STATS_T_RX_CNT, 0);
	t.tx_cnt = s.uint_or(SMC_NLA_STATS_T_TX_CNT, 0);
	t.rx_buf_use = s.uint(SMC_NLA_STATS_T_RX_RMB_USAGE);
	t.tx_buf_use = s.uint(SMC_NLA_STATS_T_TX_RMB_USAGE);
}

} // namespace

Result<Stats> decode_stats(const std::vector<GenlMessage> &stats,
			   const std::vector<GenlMessage> &fallback)
{
	AttrDecoder d;
	Stats out;
	for (const auto &m : stats) {
		auto top = d.top(m);
		if (!top.has(SMC_GEN_STATS))
			continue;
		auto s = d.nest(top, SMC_GEN_STATS);
		if (s.has(SMC_NLA_STATS_SMCD_TECH))
			decode_tech(d, d.nest(s, SMC_NLA_STATS_SMCD_TECH), out.smcd);
		if (s.has(SMC_NLA_STATS_SMCR_TECH))
			decode_tech(d, d.nest(s, SMC_NLA_STATS_SMCR_TECH), out.smcr);
		out.clnt_hs_err = s.uint_or(SMC_NLA_STATS_CLNT_HS_ERR_CNT, 0);
		out.srv_hs_err = s.uint_or(SMC_NLA_STATS_SRV_HS_ERR_CNT, 0);
	}
	// One message per reason code; the totals ride on the first of them.
	for (const auto &m : fallback) {
		auto top = d.top(m);
		if (!top.has(SMC_GEN_FBACK_STATS))
			continue;
		auto s = d.nest(top, SMC_GEN_FBACK_STATS);
		if (auto v = s.uint(SMC_NLA_FBACK_STATS_SRV_CNT))
			out.srv_fallback = *v;
		if (auto v = s.uint(SMC_NLA_FBACK_STATS_CLNT_CNT))
			out.clnt_fallback = *v;
		auto code = s.uint(SMC_NLA_FBACK_STATS_RSN_CODE);
		if (!code || *code == 0)
			continue;
		FallbackReason r{static_cast<std::uint32_t>(*code), s.uint_or(SMC_NLA_FBACK_STATS_RSN_CNT, 0)};
		bool server = s.uint_or(SMC_NLA_FBACK_STATS_TYPE, 0) != 0;
		(server ? out.srv_reasons : out.clnt_reasons).push_back(r);
	}
	if (d.failed())
		return d.error("statistics");
	return out;
}

Result<LinkStats> decode_link_stats(const std::vector<GenlMessage> &msgs)
{
	AttrDecoder d;
	LinkStats out;
	for (const auto &m : msgs) {
		auto top = d.top(m);
		out.failovers = top.uint_or(SMC_NLA_LINK_STATS_FAILOVERS, out.failovers);
		out.resent = top.uint_or(SMC_NLA_LINK_STATS_RESENT, out.resent);
	}
	if (d.failed())
		return d.error("link statistics");
	return out;
}

} // namespace smc
