// SPDX-License-Identifier: GPL-2.0
//
// What the SMC_GEN_NETLINK family reports, as plain typed values. Missing
// attributes leave the defaults below (0, empty, or nullopt where "absent"
// must be told apart from 0).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace smc {

enum class Tech { smcd, smcr };

const char *tech_name(Tech t);	// "SMC-D" / "SMC-R"

// SMC_NLA_SYS_*
struct SysInfo {
	std::optional<std::uint64_t> version, release;
	std::optional<bool> ism_v2, smcr_v2;
	std::optional<std::string> hostname, seid;
};

// SMC_NLA_LGR_V2_*: what the v2 handshake of a link group negotiated.
struct LinkGroupV2 {
	std::uint64_t version = 0, release = 0, os = 0;
	std::string negotiated_eid, peer_host;
};

// SMC_GEN_LINK_SMCR
struct LinkR {
	std::uint64_t id = 0;
	std::string ib_dev;
	std::uint64_t ib_port = 0;
	std::string gid, peer_gid;
	std::uint64_t conn_cnt = 0;
	std::uint32_t netdev = 0;		// ifindex, 0 when none
	std::uint32_t uid = 0, peer_uid = 0;	// 4 bytes as the kernel keeps them
	std::uint64_t state = 0;
};

// SMC_GEN_LGR_SMCR, with its links when they were asked for.
struct LinkGroupR {
	std::uint32_t id = 0;
	std::uint64_t role = 0;		// 0 client, 1 server
	std::uint64_t type = 0;		// none, single, symmetric, asymmetric peer/local
	std::string pnetid;
	std::uint64_t vlan = 0;
	std::uint64_t conns = 0;
	std::optional<LinkGroupV2> v2;
	std::optional<bool> v2_direct;
	std::optional<std::uint64_t> max_conns, max_links, net_cookie;
	std::optional<std::uint64_t> sndbuf_alloc, rmb_alloc;
	std::vector<LinkR> links;
};

// SMC_GEN_LGR_SMCD
struct LinkGroupD {
	std::uint32_t id = 0;
	std::uint64_t gid = 0, peer_gid = 0;
	std::optional<std::uint64_t> gid_ext, peer_gid_ext;
	std::uint64_t vlan = 0;
	std::uint64_t conns = 0;
	std::string pnetid;
	std::uint64_t chid = 0;
	std::optional<LinkGroupV2> v2;
	std::optional<std::uint64_t> sndbuf_alloc, dmb_alloc;
};

// SMC_NLA_DEV_PORT*
struct DevicePort {
	bool pnetid_by_user = false;
	std::string pnetid;
	std::uint32_t netdev = 0;	// ifindex, 0 when none
	std::uint64_t state = 0;	// 0 inactive, 1 active
	bool valid = false;
	std::uint64_t link_cnt = 0;
};

// SMC_GEN_DEV_SMCD / SMC_GEN_DEV_SMCR
struct Device {
	Tech tech = Tech::smcr;
	std::uint64_t use_cnt = 0;
	bool critical = false;
	std::uint64_t pci_fid = 0, pci_chid = 0, pci_vendor = 0, pci_device = 0;
	std::string pci_id;
	std::string ib_name;
	std::array<std::optional<DevicePort>, 2> ports;
};

// Histogram of sizes: 8K, 16K, ... 1024K, larger.
using SizeHistogram = std::array<std::uint64_t, 9>;

struct BufferStats {
	std::uint64_t size_small_peer = 0, size_small = 0, full_peer = 0, full = 0;
	std::uint64_t reuse = 0, alloc = 0, downgrade = 0;
};

// SMC_NLA_STATS_T_*: the counters of one technology.
struct TechStats {
	SizeHistogram tx_buf_size{}, rx_buf_size{};	// buffers allocated
	SizeHistogram tx_req_size{}, rx_req_size{};	// request payloads
	BufferStats tx_buf, rx_buf;
	std::uint64_t clnt_v1_succ = 0, clnt_v2_succ = 0, srv_v1_succ = 0, srv_v2_succ = 0;
	std::uint64_t sendpage = 0, urg_data = 0, splice = 0, cork = 0, nodelay = 0;
	std::uint64_t rx_bytes = 0, tx_bytes = 0, rx_cnt = 0, tx_cnt = 0;
	// Bytes of receive rings and send buffers the namespace's live
	// connections hold now (Linux 6.12 on). A level, not a counter: not in
	// for_each_counter, so a "stats reset" snapshot leaves it as it is.
	std::optional<std::uint64_t> rx_buf_use, tx_buf_use;
};

struct FallbackReason {
	std::uint32_t code = 0;
	std::uint64_t count = 0;
};

// SMC-R's link failovers (af_smc's own SMC_NETLINK_GET_LINK_STATS; other
// kernels have no such command).
struct LinkStats {
	std::uint64_t failovers = 0;	// connections moved to another link
	std::uint64_t resent = 0;	// bytes those moves wrote again
};

struct Stats {
	TechStats smcd, smcr;
	std::uint64_t clnt_hs_err = 0, srv_hs_err = 0;
	std::uint64_t clnt_fallback = 0, srv_fallback = 0;
	std::vector<FallbackReason> clnt_reasons, srv_reasons;
	// Asked for by "smcr stats" only; nullopt when the kernel has none.
	std::optional<LinkStats> links;

	TechStats &tech(Tech t) { return t == Tech::smcd ? smcd : smcr; }
	const TechStats &tech(Tech t) const { return t == Tech::smcd ? smcd : smcr; }
};

// Calls f(name, counter) for every counter of a TechStats (const or not),
// in a fixed order with stable names: the keys of "stats json" and of the
// reset snapshot.
template <class T, class F>
void for_each_counter(T &t, F &&f)
{
	static const char *const sizes[] = {"8K", "16K", "32K", "64K", "128K",
					     "256K", "512K", "1024K", "G_1024K"};
	auto hist = [&](const char *prefix, auto &h) {
		for (std::size_t i = 0; i < h.size(); ++i)
			f(std::string(prefix) + sizes[i], h[i]);
	};
	hist("SMC_INT_TX_BUF_", t.tx_buf_size);
	hist("SMC_INT_RX_BUF_", t.rx_buf_size);
	hist("SMC_USR_TX_BUF_", t.tx_req_size);
	hist("SMC_USR_RX_BUF_", t.rx_req_size);
	auto buf = [&](const char *prefix, auto &b) {
		f(std::string(prefix) + "SIZE_SM_PEER_CNT", b.size_small_peer);
		f(std::string(prefix) + "SIZE_SM_CNT", b.size_small);
		f(std::string(prefix) + "FULL_PEER_CNT", b.full_peer);
		f(std::string(prefix) + "FULL_CNT", b.full);
		f(std::string(prefix) + "REUSE_CNT", b.reuse);
		f(std::string(prefix) + "ALLOC_CNT", b.alloc);
		f(std::string(prefix) + "DGRADE_CNT", b.downgrade);
	};
	buf("SMC_INT_TX_BUF_", t.tx_buf);
	buf("SMC_INT_RX_BUF_", t.rx_buf);
	f("SMC_CLNT_V1_SUCC_CNT", t.clnt_v1_succ);
	f("SMC_CLNT_V2_SUCC_CNT", t.clnt_v2_succ);
	f("SMC_SRV_V1_SUCC_CNT", t.srv_v1_succ);
	f("SMC_SRV_V2_SUCC_CNT", t.srv_v2_succ);
	f("SMC_SENDPAGE_CNT", t.sendpage);
	f("SMC_URG_DATA_CNT", t.urg_data);
	f("SMC_SPLICE_CNT", t.splice);
	f("SMC_CORK_CNT", t.cork);
	f("SMC_NDLY_CNT", t.nodelay);
	f("SMC_RX_BYTES", t.rx_bytes);
	f("SMC_TX_BYTES", t.tx_bytes);
	f("SMC_RX_CNT", t.rx_cnt);
	f("SMC_TX_CNT", t.tx_cnt);
}

// Calls f(name, counter) for SMC-R's failover counters: their keys in
// "smcr stats json" and in the SMC-R reset snapshot.
template <class L, class F>
void for_each_link_counter(L &l, F &&f)
{
	f(std::string("SMC_LINK_FAILOVER_CNT"), l.failovers);
	f(std::string("SMC_LINK_RESENT_BYTES"), l.resent);
}

// Calls f(name, counter) for the technology-independent counters.
template <class S, class F>
void for_each_global_counter(S &s, F &&f)
{
	f(std::string("SMC_CLNT_HS_ERR_CNT"), s.clnt_hs_err);
	f(std::string("SMC_SRV_HS_ERR_CNT"), s.srv_hs_err);
	f(std::string("SMC_CLNT_FBACK_CNT"), s.clnt_fallback);
	f(std::string("SMC_SRV_FBACK_CNT"), s.srv_fallback);
}

struct SeidInfo {
	std::optional<std::string> seid;	// nullopt: the system has none
	bool enabled = false;
};

// SMC_NLA_POLICY_*: one rule of the handshake policy (uapi/smc/af_smc.h).
struct PolicyRule {
	std::uint32_t id = 0;		// given by the kernel; 0 in a request
	std::uint8_t action = 0;	// SMC_POLICY_SMC or SMC_POLICY_TCP
	int family = 0;			// AF_INET, AF_INET6; 0: any peer
	std::array<std::uint8_t, 16> addr{};	// network order; 4 bytes for AF_INET
	std::uint8_t prefix_len = 0;
	std::uint16_t port_lo = 0, port_hi = 65535;
};

} // namespace smc
