// SPDX-License-Identifier: GPL-2.0
#include "smc_decode.h"

#include <algorithm>
#include <cerrno>

#include <linux/smc.h>
#include <smc/af_smc.h>
#include <sys/socket.h>

namespace smc {

const char *tech_name(Tech t) { return t == Tech::smcd ? "SMC-D" : "SMC-R"; }

Error AttrDecoder::error(const std::string &what) const
{
	return make_error(EBADMSG, "malformed attributes in the kernel's " + what + " reply");
}

namespace {

std::optional<bool> flag(const nl::AttrSet &s, std::uint16_t type)
{
	auto v = s.uint(type);
	return v ? std::optional<bool>(*v != 0) : std::nullopt;
}

std::optional<LinkGroupV2> decode_v2(AttrDecoder &d, const nl::AttrSet &lg, std::uint16_t type)
{
	if (!lg.has(type))
		return std::nullopt;
	auto v = d.nest(lg, type);
	LinkGroupV2 out;
	out.version = v.uint_or(SMC_NLA_LGR_V2_VER, 0);
	out.release = v.uint_or(SMC_NLA_LGR_V2_REL, 0);
	out.os = v.uint_or(SMC_NLA_LGR_V2_OS, 0);
	out.negotiated_eid = v.str_or(SMC_NLA_LGR_V2_NEG_EID, "");
	out.peer_host = v.str_or(SMC_NLA_LGR_V2_PEER_HOST, "");
	return out;
}

DevicePort decode_port(const nl::AttrSet &p)
{
	DevicePort port;
	port.pnetid_by_user = p.uint_or(SMC_NLA_DEV_PORT_PNET_USR, 0) != 0;
	port.pnetid = p.str_or(SMC_NLA_DEV_PORT_PNETID, "");
	port.netdev = static_cast<std::uint32_t>(p.uint_or(SMC_NLA_DEV_PORT_NETDEV, 0));
	port.state = p.uint_or(SMC_NLA_DEV_PORT_STATE, 0);
	port.valid = p.uint_or(SMC_NLA_DEV_PORT_VALID, 0) != 0;
	port.link_cnt = p.uint_or(SMC_NLA_DEV_PORT_LNK_CNT, 0);
	return port;
}

} // namespace

Result<SysInfo> decode_sys_info(const std::vector<GenlMessage> &msgs)
{
	AttrDecoder d;
	SysInfo info;
	for (const auto &m : msgs) {
		auto top = d.top(m);
		if (!top.has(SMC_GEN_SYS_INFO))
			continue;
		auto s = d.nest(top, SMC_GEN_SYS_INFO);
		info.version = s.uint(SMC_NLA_SYS_VER);
		info.release = s.uint(SMC_NLA_SYS_REL);
		info.ism_v2 = flag(s, SMC_NLA_SYS_IS_ISM_V2);
		info.smcr_v2 = flag(s, SMC_NLA_SYS_IS_SMCR_V2);
		info.hostname = s.str(SMC_NLA_SYS_LOCAL_HOST);
		info.seid = s.str(SMC_NLA_SYS_SEID);
	}
	if (d.failed())
		return d.error("system information");
	return info;
}

Result<std::vector<Device>> decode_devices(const std::vector<GenlMessage> &msgs, Tech tech)
{
	AttrDecoder d;
	std::vector<Device> out;
	const std::uint16_t kind = tech == Tech::smcd ? SMC_GEN_DEV_SMCD : SMC_GEN_DEV_SMCR;
	for (const auto &m : msgs) {
		auto top = d.top(m);
		if (!top.has(kind))
			continue;
		auto s = d.nest(top, kind);
		Device dev;
		dev.tech = tech;
		dev.use_cnt = s.uint_or(SMC_NLA_DEV_USE_CNT, 0);
		dev.critical = s.uint_or(SMC_NLA_DEV_IS_CRIT, 0) != 0;
		dev.pci_fid = s.uint_or(SMC_NLA_DEV_PCI_FID, 0);
		dev.pci_chid = s.uint_or(SMC_NLA_DEV_PCI_CHID, 0);
		dev.pci_vendor = s.uint_or(SMC_NLA_DEV_PCI_VENDOR, 0);
		dev.pci_device = s.uint_or(SMC_NLA_DEV_PCI_DEVICE, 0);
		dev.pci_id = s.str_or(SMC_NLA_DEV_PCI_ID, "");
		dev.ib_name = s.str_or(SMC_NLA_DEV_IB_NAME, "");
		if (s.has(SMC_NLA_DEV_PORT))
			dev.ports[0] = decode_port(d.nest(s, SMC_NLA_DEV_PORT));
		if (s.has(SMC_NLA_DEV_PORT2))
			dev.ports[1] = decode_port(d.nest(s, SMC_NLA_DEV_PORT2));
		out.push_back(std::move(dev));
	}
	if (d.failed())
		return d.error(std::string(tech_name(tech)) + " device");
	return out;
}

Result<std::vector<LinkGroupR>> decode_linkgroups_r(const std::vector<GenlMessage> &msgs)
{
	AttrDecoder d;
	std::vector<LinkGroupR> out;
	for (const auto &m : msgs) {
		auto top = d.top(m);
		if (top.has(SMC_GEN_LGR_SMCR)) {
			auto s = d.nest(top, SMC_GEN_LGR_SMCR);
			LinkGroupR lg;
			lg.id = static_cast<std::uint32_t>(s.uint_or(SMC_NLA_LGR_R_ID, 0));
			lg.role = s.uint_or(SMC_NLA_LGR_R_ROLE, 0);
			lg.type = s.uint_or(SMC_NLA_LGR_R_TYPE, 0);
			lg.pnetid = s.str_or(SMC_NLA_LGR_R_PNETID, "");
			lg.vlan = s.uint_or(SMC_NLA_LGR_R_VLAN_ID, 0);
			lg.conns = s.uint_or(SMC_NLA_LGR_R_CONNS_NUM, 0);
			lg.v2 = decode_v2(d, s, SMC_NLA_LGR_R_V2_COMMON);
			if (s.has(SMC_NLA_LGR_R_V2)) {
				auto v = d.nest(s, SMC_NLA_LGR_R_V2);
				lg.v2_direct = flag(v, SMC_NLA_LGR_R_V2_DIRECT);
				lg.max_conns = v.uint(SMC_NLA_LGR_R_V2_MAX_CONNS);
				lg.max_links = v.uint(SMC_NLA_LGR_R_V2_MAX_LINKS);
			}
			lg.net_cookie = s.uint(SMC_NLA_LGR_R_NET_COOKIE);
			lg.sndbuf_alloc = s.uint(SMC_NLA_LGR_R_SNDBUF_ALLOC);
			lg.rmb_alloc = s.uint(SMC_NLA_LGR_R_RMB_ALLOC);
			out.push_back(std::move(lg));
		} else if (top.has(SMC_GEN_LINK_SMCR)) {
			if (out.empty())
				return make_error(EBADMSG, "the kernel sent an SMC-R link before its link group");
			auto s = d.nest(top, SMC_GEN_LINK_SMCR);
			LinkR l;
			l.id = s.uint_or(SMC_NLA_LINK_ID, 0);
			l.ib_dev = s.str_or(SMC_NLA_LINK_IB_DEV, "");
			l.ib_port = s.uint_or(SMC_NLA_LINK_IB_PORT, 0);
			l.gid = s.str_or(SMC_NLA_LINK_GID, "");
			l.peer_gid = s.str_or(SMC_NLA_LINK_PEER_GID, "");
			l.conn_cnt = s.uint_or(SMC_NLA_LINK_CONN_CNT, 0);
			l.netdev = static_cast<std::uint32_t>(s.uint_or(SMC_NLA_LINK_NET_DEV, 0));
			l.uid = static_cast<std::uint32_t>(s.uint_or(SMC_NLA_LINK_UID, 0));
			l.peer_uid = static_cast<std::uint32_t>(s.uint_or(SMC_NLA_LINK_PEER_UID, 0));
			l.state = s.uint_or(SMC_NLA_LINK_STATE, 0);
			out.back().links.push_back(std::move(l));
		}
	}
	if (d.failed())
		return d.error("SMC-R link group");
	return out;
}

Result<std::vector<LinkGroupD>> decode_linkgroups_d(const std::vector<GenlMessage> &msgs)
{
	AttrDecoder d;
	std::vector<LinkGroupD> out;
	for (const auto &m : msgs) {
		auto top = d.top(m);
		if (!top.has(SMC_GEN_LGR_SMCD))
			continue;
		auto s = d.nest(top, SMC_GEN_LGR_SMCD);
		LinkGroupD lg;
		lg.id = static_cast<std::uint32_t>(s.uint_or(SMC_NLA_LGR_D_ID, 0));
		lg.gid = s.uint_or(SMC_NLA_LGR_D_GID, 0);
		lg.peer_gid = s.uint_or(SMC_NLA_LGR_D_PEER_GID, 0);
		lg.gid_ext = s.uint(SMC_NLA_LGR_D_EXT_GID);
		lg.peer_gid_ext = s.uint(SMC_NLA_LGR_D_PEER_EXT_GID);
		lg.vlan = s.uint_or(SMC_NLA_LGR_D_VLAN_ID, 0);
		lg.conns = s.uint_or(SMC_NLA_LGR_D_CONNS_NUM, 0);
		lg.pnetid = s.str_or(SMC_NLA_LGR_D_PNETID, "");
		lg.chid = s.uint_or(SMC_NLA_LGR_D_CHID, 0);
		lg.v2 = decode_v2(d, s, SMC_NLA_LGR_D_V2_COMMON);
		lg.sndbuf_alloc = s.uint(SMC_NLA_LGR_D_SNDBUF_ALLOC);
		lg.dmb_alloc = s.uint(SMC_NLA_LGR_D_DMB_ALLOC);
		out.push_back(std::move(lg));
	}
	if (d.failed())
		return d.error("SMC-D link group");
	return out;
}

Result<std::vector<std::string>> decode_ueids(const std::vector<GenlMessage> &msgs)
{
	AttrDecoder d;
	std::vector<std::string> out;
	for (const auto &m : msgs) {
		auto top = d.top(m);
		if (auto e = top.str(SMC_NLA_EID_TABLE_ENTRY))
			out.push_back(*e);
	}
	if (d.failed())
		return d.error("UEID table");
	return out;
}

Result<SeidInfo> decode_seid(const std::vector<GenlMessage> &msgs)
{
	AttrDecoder d;
	SeidInfo info;
	for (const auto &m : msgs) {
		auto top = d.top(m);
		if (auto e = top.str(SMC_NLA_SEID_ENTRY)) {
			info.seid = *e;
			info.enabled = top.uint_or(SMC_NLA_SEID_ENABLED, 0) != 0;
		}
	}
	if (d.failed())
		return d.error("SEID");
	return info;
}

// A rule the tool could not print faithfully (no id, an address that is not
// as long as its family's) makes the whole reply malformed: showing a
// table with a rule left out would misstate what the kernel enforces.
Result<std::vector<PolicyRule>> decode_policy(const std::vector<GenlMessage> &msgs)
{
	AttrDecoder d;
	std::vector<PolicyRule> out;
	bool bad = false;
	for (const auto &m : msgs) {
		auto top = d.top(m);
		auto id = top.uint(SMC_NLA_POLICY_ID);
		if (!id) {
			bad = true;
			continue;
		}
		PolicyRule r;
		r.id = static_cast<std::uint32_t>(*id);
		r.action = static_cast<std::uint8_t>(top.uint_or(SMC_NLA_POLICY_ACTION, 0));
		r.family = static_cast<int>(top.uint_or(SMC_NLA_POLICY_FAMILY, 0));
		r.port_lo = static_cast<std::uint16_t>(top.uint_or(SMC_NLA_POLICY_PORT_LO, 0));
		r.port_hi = static_cast<std::uint16_t>(top.uint_or(SMC_NLA_POLICY_PORT_HI, 65535));
		if (r.family != 0) {
			std::size_t len = r.family == AF_INET ? 4 : r.family == AF_INET6 ? 16 : 0;
			const nl::Attr *a = top.find(SMC_NLA_POLICY_ADDR);
			auto plen = top.uint(SMC_NLA_POLICY_PREFIXLEN);
			if (!len || !a || a->data.size() != len || !plen || *plen > len * 8) {
				bad = true;
				continue;
			}
			std::copy(a->data.begin(), a->data.end(), r.addr.begin());
			r.prefix_len = static_cast<std::uint8_t>(*plen);
		}
		out.push_back(r);
	}
	if (d.failed() || bad)
		return d.error("handshake policy");
	return out;
}

} // namespace smc
