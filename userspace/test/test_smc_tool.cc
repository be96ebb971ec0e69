// SPDX-License-Identifier: GPL-2.0
//
// smcd and smcr: the technology from the program name, global options,
// abbreviations, help, and every object's text and JSON.
#include <algorithm>

#include <gtest/gtest.h>
#include <linux/netlink.h>
#include <linux/smc.h>
#include <smc/af_smc.h>
#include <sys/socket.h>

#include "fixture.h"
#include "smc_tool.h"

namespace smc {
namespace {

using namespace smc::test;

Bytes roce_dev(std::uint32_t seq, const char *name, std::uint16_t pci_device, bool crit,
	       std::uint32_t port1_netdev, bool port2, const char *pnetid, bool by_user)
{
	return genl_msg(gen_family, SMC_NETLINK_GET_DEV_SMCR, seq, [=](nl::AttrWriter &w) {
		nest(w, SMC_GEN_DEV_SMCR, [=](nl::AttrWriter &d) {
			d.put_u8(SMC_NLA_DEV_IS_CRIT, crit);
			d.put_u32(SMC_NLA_DEV_PCI_FID, 0x1a2b);
			d.put_u16(SMC_NLA_DEV_PCI_CHID, 0x0300);
			d.put_u16(SMC_NLA_DEV_PCI_VENDOR, 0x15b3);
			d.put_u16(SMC_NLA_DEV_PCI_DEVICE, pci_device);
			d.put_str(SMC_NLA_DEV_PCI_ID, "0000:00:05.0");
			d.put_str(SMC_NLA_DEV_IB_NAME, name);
			nest(d, SMC_NLA_DEV_PORT, [=](nl::AttrWriter &p) {
				p.put_u8(SMC_NLA_DEV_PORT_PNET_USR, by_user);
				p.put_str(SMC_NLA_DEV_PORT_PNETID, pnetid);
				p.put_u32(SMC_NLA_DEV_PORT_NETDEV, port1_netdev);
				p.put_u8(SMC_NLA_DEV_PORT_STATE, 1);
				p.put_u8(SMC_NLA_DEV_PORT_VALID, 1);
				p.put_u32(SMC_NLA_DEV_PORT_LNK_CNT, 2);
			});
			nest(d, SMC_NLA_DEV_PORT2, [=](nl::AttrWriter &p) {
				p.put_u32(SMC_NLA_DEV_PORT_NETDEV, 3);
				p.put_u8(SMC_NLA_DEV_PORT_STATE, 0);
				p.put_u8(SMC_NLA_DEV_PORT_VALID, port2);
			});
		});
	});
}

Bytes ism_dev(std::uint32_t seq, std::uint32_t fid, bool in_use, std::uint32_t lgs, const char *pnetid)
{
	return genl_msg(gen_family, SMC_NETLINK_GET_DEV_SMCD, seq, [=](nl::AttrWriter &w) {
		nest(w, SMC_GEN_DEV_SMCD, [=](nl::AttrWriter &d) {
			d.put_u32(SMC_NLA_DEV_USE_CNT, lgs);
			d.put_u8(SMC_NLA_DEV_IS_CRIT, in_use);
			d.put_u32(SMC_NLA_DEV_PCI_FID, fid);
			d.put_u16(SMC_NLA_DEV_PCI_CHID, 0x07c0);
			d.put_u16(SMC_NLA_DEV_PCI_DEVICE, 0x04ed);
			d.put_str(SMC_NLA_DEV_PCI_ID, "0000:00:00.0");
			nest(d, SMC_NLA_DEV_PORT, [=](nl::AttrWriter &p) {
				p.put_str(SMC_NLA_DEV_PORT_PNETID, pnetid);
				p.put_u8(SMC_NLA_DEV_PORT_PNET_USR, 0);
			});
		});
	});
}

std::vector<Bytes> roce_devices(std::uint32_t seq)
{
	return {nl::join({roce_dev(seq, "mlx5_0", 0x1016, true, 2, true, "NET1            ", false),
			  roce_dev(seq, "rxe0", 0, false, 0, false, "", false),
			  roce_dev(seq, "mlx4_0", 0x1004, false, 1, false, "NET2", true), done_msg(seq)})};
}

Bytes lgr(std::uint32_t seq, std::uint32_t id, std::uint8_t role, std::uint8_t type, std::uint8_t vlan,
	  std::uint32_t conns, const char *pnetid)
{
	return genl_msg(gen_family, SMC_NETLINK_GET_LGR_SMCR, seq, [=](nl::AttrWriter &w) {
		nest(w, SMC_GEN_LGR_SMCR, [=](nl::AttrWriter &g) {
			g.put_u32(SMC_NLA_LGR_R_ID, id);
			g.put_u8(SMC_NLA_LGR_R_ROLE, role);
			g.put_u8(SMC_NLA_LGR_R_TYPE, type);
			g.put_str(SMC_NLA_LGR_R_PNETID, pnetid);
			g.put_u8(SMC_NLA_LGR_R_VLAN_ID, vlan);
			g.put_u32(SMC_NLA_LGR_R_CONNS_NUM, conns);
			nest(g, SMC_NLA_LGR_R_V2_COMMON, [](nl::AttrWriter &v) {
				v.put_u8(SMC_NLA_LGR_V2_VER, 2);
				v.put_u8(SMC_NLA_LGR_V2_REL, 1);
				v.put_str(SMC_NLA_LGR_V2_PEER_HOST, "peer");
				v.put_str(SMC_NLA_LGR_V2_NEG_EID, "SMC-EID                         ");
			});
			g.put_u64(SMC_NLA_LGR_R_NET_COOKIE, 1);
			// Linux 6.12's "uint" byte counts, on the second group only
			// (the first is as a 6.1 kernel sends it): one 4-byte, one 8.
			if (id == 0x00000200) {
				g.put_u32(SMC_NLA_LGR_R_SNDBUF_ALLOC, 10 * 65536);
				g.put_u64(SMC_NLA_LGR_R_RMB_ALLOC, 6ULL << 32);
				// and SMC v2.1's limits (Linux 6.8 on)
				nest(g, SMC_NLA_LGR_R_V2, [](nl::AttrWriter &v) {
					v.put_u8(SMC_NLA_LGR_R_V2_DIRECT, 1);
					v.put_u8(SMC_NLA_LGR_R_V2_MAX_CONNS, 16);
					v.put_u8(SMC_NLA_LGR_R_V2_MAX_LINKS, 2);
				});
			}
		});
	});
}

Bytes link(std::uint32_t seq, std::uint8_t id, const char *ibdev, std::uint32_t netdev, std::uint32_t state)
{
	return genl_msg(gen_family, SMC_NETLINK_GET_LINK_SMCR, seq, [=](nl::AttrWriter &w) {
		nest(w, SMC_GEN_LINK_SMCR, [=](nl::AttrWriter &l) {
			l.put_u8(SMC_NLA_LINK_ID, id);
			l.put_str(SMC_NLA_LINK_IB_DEV, ibdev);
			l.put_u8(SMC_NLA_LINK_IB_PORT, 1);
			l.put_str(SMC_NLA_LINK_GID, "fe80:0000:0000:0000:0000:0000:0a2b:0001");
			l.put_str(SMC_NLA_LINK_PEER_GID, "fe80:0000:0000:0000:0000:0000:0a2b:0002");
			l.put_u32(SMC_NLA_LINK_CONN_CNT, 3);
			l.put_u32(SMC_NLA_LINK_NET_DEV, netdev);
			l.put(SMC_NLA_LINK_UID, Bytes{0xde, 0xad, 0xbe, 0xef});
			l.put(SMC_NLA_LINK_PEER_UID, Bytes{0x01, 0x02, 0x03, 0x04});
			l.put_u32(SMC_NLA_LINK_STATE, state);
		});
	});
}

// Three rules as af_smc dumps them: any peer, an IPv4 prefix, an IPv6 one.
std::vector<Bytes> policy_dump(std::uint32_t seq)
{
	auto rule = [seq](std::uint32_t id, std::uint8_t action, std::uint16_t lo, std::uint16_t hi, int family,
			  Bytes addr, std::uint8_t plen) {
		return genl_msg(gen_family, SMC_NETLINK_DUMP_POLICY, seq, [=](nl::AttrWriter &w) {
			w.put_u32(SMC_NLA_POLICY_ID, id);
			w.put_u8(SMC_NLA_POLICY_ACTION, action);
			w.put_u16(SMC_NLA_POLICY_PORT_LO, lo);
			w.put_u16(SMC_NLA_POLICY_PORT_HI, hi);
			if (!family)
				return;
			w.put_u8(SMC_NLA_POLICY_FAMILY, static_cast<std::uint8_t>(family));
			w.put_u8(SMC_NLA_POLICY_PREFIXLEN, plen);
			w.put(SMC_NLA_POLICY_ADDR, addr);
		});
	};
	Bytes v6(16, 0);
	v6[0] = 0xfd;
	v6[1] = 0x00;
	v6[7] = 0x01;
	return {nl::join({rule(1, SMC_POLICY_SMC, 0, 65535, AF_INET, Bytes{192, 168, 10, 0}, 24),
			  rule(2, SMC_POLICY_TCP, 80, 80, 0, {}, 0),
			  rule(5, SMC_POLICY_TCP, 8000, 8099, AF_INET6, v6, 64), done_msg(seq)})};
}

std::vector<Bytes> linkgroups(std::uint32_t seq, bool links)
{
	std::vector<Bytes> m = {lgr(seq, 0x00000100, 0, 1, 0, 3, "NET1")};
	if (links)
		m.push_back(link(seq, 1, "mlx5_0", 2, 3));
	m.push_back(lgr(seq, 0x00000200, 1, 2, 5, 10, ""));
	if (links) {
		m.push_back(link(seq, 1, "mlx5_0", 2, 3));
		m.push_back(link(seq, 2, "mlx4_0", 1, 2));
	}
	m.push_back(done_msg(seq));
	return {nl::join(m)};
}

Bytes lgr_d(std::uint32_t seq, std::uint32_t id, std::uint8_t vlan, std::uint32_t conns)
{
	return genl_msg(gen_family, SMC_NETLINK_GET_LGR_SMCD, seq, [=](nl::AttrWriter &w) {
		nest(w, SMC_GEN_LGR_SMCD, [=](nl::AttrWriter &g) {
			g.put_u32(SMC_NLA_LGR_D_ID, id);
			g.put_u64(SMC_NLA_LGR_D_GID, 0x1122334455667788ULL);
			g.put_u64(SMC_NLA_LGR_D_PEER_GID, 0x8877665544332211ULL);
			g.put_u8(SMC_NLA_LGR_D_VLAN_ID, vlan);
			g.put_u32(SMC_NLA_LGR_D_CONNS_NUM, conns);
			g.put_str(SMC_NLA_LGR_D_PNETID, "NETD");
			g.put_u16(SMC_NLA_LGR_D_CHID, 0x7c0);
			if (id == 0x200) {
				g.put_u32(SMC_NLA_LGR_D_SNDBUF_ALLOC, 0);
				g.put_u64(SMC_NLA_LGR_D_DMB_ALLOC, 250ULL * 65536);
			}
		});
	});
}

Bytes sys_info(std::uint32_t seq, bool smcr_v2, const char *seid)
{
	return genl_msg(gen_family, SMC_NETLINK_GET_SYS_INFO, seq, [=](nl::AttrWriter &w) {
		nest(w, SMC_GEN_SYS_INFO, [=](nl::AttrWriter &s) {
			s.put_u8(SMC_NLA_SYS_VER, 2);
			s.put_u8(SMC_NLA_SYS_REL, 1);
			s.put_u8(SMC_NLA_SYS_IS_ISM_V2, 1);
			s.put_str(SMC_NLA_SYS_LOCAL_HOST, "host1                           ");
			if (seid)
				s.put_str(SMC_NLA_SYS_SEID, seid);
			s.put_u8(SMC_NLA_SYS_IS_SMCR_V2, smcr_v2);
		});
	});
}

struct Case {
	const char *name;
	std::vector<std::string> args;
	std::vector<std::vector<Bytes>> replies;
};

class SmcGolden : public ::testing::TestWithParam<Case> {};

TEST_P(SmcGolden, Output)
{
	auto r = run(GetParam().args, {genl_session(GetParam().replies)});
	expect_golden(GetParam().name, r.transcript());
}

std::vector<std::vector<Bytes>> ism_devices(std::uint32_t seq = 1)
{
	return {{nl::join({ism_dev(seq, 0x12, true, 2, "NETD"), ism_dev(seq, 0x13, false, 0, ""), done_msg(seq)})}};
}

INSTANTIATE_TEST_SUITE_P(
	Objects, SmcGolden,
	::testing::Values(
		Case{"smcr_device", {"smcr", "device"}, {roce_devices(1)}},
		Case{"smcr_device_details", {"smcr", "-d", "dev", "show", "all"}, {roce_devices(1)}},
		Case{"smcr_device_json", {"smcr", "-j", "d"}, {roce_devices(1)}},
		Case{"smcr_device_netdev", {"smcr", "device", "netdev", "eth0"}, {roce_devices(1)}},
		Case{"smcr_device_ibdev", {"smcr", "device", "ibdev", "mlx4_0"}, {roce_devices(1)}},
		Case{"smcd_device", {"smcd", "device"}, ism_devices()},
		Case{"smcd_device_json", {"smcd", "--json", "device"}, ism_devices()},
		Case{"smcr_linkgroup", {"smcr", "linkgroup"}, {linkgroups(1, false)}},
		Case{"smcr_linkgroup_json", {"smcr", "-j", "l"}, {linkgroups(1, false)}},
		Case{"smcr_linkgroup_d", {"smcr", "-d", "linkgroup"}, {linkgroups(1, false)}},
		Case{"smcd_linkgroup_json", {"smcd", "-j", "linkgroup"},
		     {{nl::join({lgr_d(1, 0x100, 0, 1), lgr_d(1, 0x200, 3, 250), done_msg(1)})}}},
		Case{"smcr_linkgroup_id", {"smcr", "linkgroup", "show", "00000202"}, {linkgroups(1, false)}},
		Case{"smcr_linkgroup_netdev", {"smcr", "linkgroup", "netdev", "lo"}, {linkgroups(1, true)}},
		Case{"smcr_link_show", {"smcr", "linkgroup", "link-show"}, {linkgroups(1, true)}},
		Case{"smcr_link_show_d", {"smcr", "-d", "linkgroup", "link"}, {linkgroups(1, true)}},
		Case{"smcr_link_show_dd", {"smcr", "-dd", "linkgroup", "link-show", "200"}, {linkgroups(1, true)}},
		Case{"smcr_link_show_ibdev", {"smcr", "lin", "link-show", "ibdev", "mlx4_0"}, {linkgroups(1, true)}},
		Case{"smcr_link_show_json", {"smcr", "-p", "linkgroup", "link-show"}, {linkgroups(1, true)}},
		Case{"smcd_linkgroup", {"smcd", "linkgroup"},
		     {{nl::join({lgr_d(1, 0x100, 0, 1), lgr_d(1, 0x200, 3, 250), done_msg(1)})}}},
		Case{"smcd_linkgroup_d_id", {"smcd", "-d", "linkgroup", "all"},
		     {{nl::join({lgr_d(1, 0x100, 0, 1), lgr_d(1, 0x200, 3, 250), done_msg(1)})}}},
		Case{"smcd_linkgroup_id", {"smcd", "linkgroup", "0x200"},
		     {{nl::join({lgr_d(1, 0x100, 0, 1), lgr_d(1, 0x200, 3, 250), done_msg(1)})}}},
		Case{"smcd_info", {"smcd", "info"},
		     {{nl::join({sys_info(1, true, "SEID-1"), done_msg(1)})}, ism_devices(2)[0],
		      {done_msg(3)}}},
		Case{"smcr_info_json", {"smcr", "-j", "i"},
		     {{nl::join({sys_info(1, false, nullptr), done_msg(1)})}, {done_msg(2)},
		      [] {
			      auto d = roce_devices(3);
			      return d;
		      }()}},
		Case{"smcd_ueid", {"smcd", "ueid"},
		     {{nl::join({genl_msg(gen_family, SMC_NETLINK_DUMP_UEID, 1, [](nl::AttrWriter &w) {
				 w.put_str(SMC_NLA_EID_TABLE_ENTRY, "EID.ONE                         ");
			 }),
			 genl_msg(gen_family, SMC_NETLINK_DUMP_UEID, 1, [](nl::AttrWriter &w) {
				 w.put_str(SMC_NLA_EID_TABLE_ENTRY, "EID-2");
			 }),
			 done_msg(1)})}}},
		Case{"smcd_seid", {"smcd", "seid"},
		     {{nl::join({genl_msg(gen_family, SMC_NETLINK_DUMP_SEID, 1, [](nl::AttrWriter &w) {
				 w.put_str(SMC_NLA_SEID_ENTRY, "IBM-SYSZ-ISMSEID00000000000000C0");
				 w.put_u8(SMC_NLA_SEID_ENABLED, 0);
			 }),
			 done_msg(1)})}}},
		Case{"smcd_policy", {"smcd", "policy"}, {policy_dump(1)}},
		Case{"smcr_policy_json", {"smcr", "-j", "pol", "show"}, {policy_dump(1)}},
		Case{"smcd_seid_json", {"smcd", "-j", "se"},
		     {{nl::join({genl_msg(gen_family, SMC_NETLINK_DUMP_SEID, 1, [](nl::AttrWriter &w) {
				 w.put_str(SMC_NLA_SEID_ENTRY, "IBM-SYSZ-ISMSEID00000000000000C0");
				 w.put_u8(SMC_NLA_SEID_ENABLED, 1);
			 }),
			 done_msg(1)})}}}),
	[](const auto &info) { return std::string(info.param.name); });

std::vector<nl::Session> none() { return {}; }

TEST(Smc, TechnologyFromNameOrOption)
{
	auto r = run({"/usr/sbin/smcr", "device", "help"}, none());
	EXPECT_EQ(r.out.rfind("Usage: smcr device", 0), 0u);
	r = run({"smcd", "device", "help"}, none());
	EXPECT_EQ(r.out.rfind("Usage: smcd device", 0), 0u);
	r = run({"smc-tool", "--type", "smcr", "device", "help"}, none());
	EXPECT_EQ(r.out.rfind("Usage: smcr device", 0), 0u);
	r = run({"smcd", "-t", "smcr", "h"}, none());
	EXPECT_EQ(r.out.rfind("Usage: smcr ", 0), 0u);
	r = run({"smc-tool", "device"}, none());
	EXPECT_EQ(r.rc, 2);
	EXPECT_EQ(r.err, "smc-tool: cannot tell SMC-D from SMC-R: run as smcd or smcr, or use --type "
			 "(see 'smc-tool help')\n");
}

TEST(Smc, HelpEverywhere)
{
	for (auto args : std::vector<std::vector<std::string>>{
		     {"smcd", "help"}, {"smcd", "-h"}, {"smcd", "--help"}, {"smcd", "-help"},
		     {"smcd", "info", "help"}, {"smcd", "device", "help"}, {"smcd", "device", "show", "help"},
		     {"smcd", "linkgroup", "help"}, {"smcd", "linkgroup", "show", "h"},
		     {"smcd", "stats", "help"}, {"smcd", "stats", "reset", "help"},
		     {"smcd", "ueid", "help"}, {"smcd", "ueid", "show", "help"}, {"smcd", "seid", "help"},
		     {"smcd", "seid", "enable", "help"}, {"smcr", "linkgroup", "link-show", "help"},
		     {"smcd", "policy", "help"}, {"smcr", "policy", "add", "tcp", "help"}}) {
		auto r = run(args, none());
		EXPECT_EQ(r.rc, 0) << args[1] << " " << r.err;
		EXPECT_EQ(r.out.rfind("Usage: ", 0), 0u) << args[1];
		EXPECT_TRUE(r.err.empty());
	}
	auto v = run({"smcr", "-v"}, none());
	EXPECT_EQ(v.out, "smcr (smc-linux) 9.9\n");
}

TEST(Smc, UsageErrorsAreOneLine)
{
	std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
		{{"smcd"}, "smcd: no object given (see 'smcd help')"},
		{{"smcd", "bogus"}, "smcd: unknown object 'bogus' (see 'smcd help')"},
		{{"smcr", "seid"}, "smcr: unknown object 'seid' (see 'smcr help')"},
		{{"smcd", "-x", "info"}, "smcd: unknown option '-x' (see 'smcd help')"},
		{{"smcd", "--details=2", "info"}, "smcd: option '--details=2' takes no value (see 'smcd help')"},
		{{"smcd", "--type"}, "smcd: option '--type' needs smcd or smcr (see 'smcd help')"},
		{{"smcd", "-t", "x", "info"}, "smcd: unknown type 'x': use smcd or smcr (see 'smcd help')"},
		{{"smcd", "info", "x"}, "smcd: unknown command 'x' (see 'smcd info help')"},
		{{"smcd", "info", "show", "x"}, "smcd: unexpected argument 'x' (see 'smcd info help')"},
		{{"smcd", "device", "netdev", "eth0"}, "smcd: unknown argument 'netdev' (see 'smcd device help')"},
		{{"smcr", "device", "netdev"}, "smcr: 'netdev' needs a name (see 'smcr device help')"},
		{{"smcd", "linkgroup", "link-show"},
		 "smcd: link-show is for SMC-R link groups only (see 'smcd linkgroup help')"},
		{{"smcr", "linkgroup", "zz"}, "smcr: unknown argument 'zz' (see 'smcr linkgroup help')"},
		{{"smcr", "linkgroup", "100", "200"}, "smcr: unknown argument '200' (see 'smcr linkgroup help')"},
		{{"smcr", "linkgroup", "-5"}, "smcr: unknown argument '-5' (see 'smcr linkgroup help')"},
		{{"smcd", "stats", "x"}, "smcd: unknown command 'x' (see 'smcd stats help')"},
		{{"smcd", "stats", "show", "x"}, "smcd: unexpected argument 'x' (see 'smcd stats help')"},
		{{"smcd", "ueid", "add"}, "smcd: 'add' needs an EID (see 'smcd ueid help')"},
		{{"smcd", "ueid", "add", "A", "B"}, "smcd: unexpected argument 'B' (see 'smcd ueid help')"},
		{{"smcd", "ueid", "flush", "B"}, "smcd: unexpected argument 'B' (see 'smcd ueid help')"},
		{{"smcd", "ueid", "add", "lower"},
		 "smcd: invalid User EID 'lower': the character 'l' is not allowed (only A-Z, 0-9, '.' and '-') "
		 "(see 'smcd ueid help')"},
		{{"smcd", "ueid", "add", ".A"},
		 "smcd: invalid User EID '.A': it must start with a letter or a digit (see 'smcd ueid help')"},
		{{"smcd", "ueid", "add", "A..B"},
		 "smcd: invalid User EID 'A..B': it may not hold two dots in a row (see 'smcd ueid help')"},
		{{"smcd", "ueid", "del", "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456"},
		 "smcd: invalid User EID 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456': it is longer than 32 characters "
		 "(see 'smcd ueid help')"},
		{{"smcd", "seid", "on"}, "smcd: unknown command 'on' (see 'smcd seid help')"},
		{{"smcd", "policy", "x"}, "smcd: unknown command 'x' (see 'smcd policy help')"},
		{{"smcd", "policy", "show", "x"}, "smcd: unexpected argument 'x' (see 'smcd policy help')"},
		{{"smcd", "policy", "add"}, "smcd: 'add' needs an action: smc or tcp (see 'smcd policy help')"},
		{{"smcd", "policy", "add", "udp"}, "smcd: unknown action 'udp': use smc or tcp (see 'smcd policy help')"},
		{{"smcd", "policy", "add", "tcp", "peer"}, "smcd: 'peer' needs a prefix (see 'smcd policy help')"},
		{{"smcd", "policy", "add", "tcp", "port"},
		 "smcd: 'port' needs a port or a range (see 'smcd policy help')"},
		{{"smcd", "policy", "add", "tcp", "port", "80", "port", "81"},
		 "smcd: 'port' given twice (see 'smcd policy help')"},
		{{"smcd", "policy", "add", "tcp", "via", "x"}, "smcd: unexpected argument 'via' (see 'smcd policy help')"},
		{{"smcd", "policy", "add", "tcp", "peer", "10.0.0.1/8"},
		 "smcd: invalid peer prefix '10.0.0.1/8': bits are set past the prefix length "
		 "(see 'smcd policy help')"},
		{{"smcd", "policy", "add", "tcp", "peer", "10.0.0.0/33"},
		 "smcd: invalid peer prefix '10.0.0.0/33': an IPv4 prefix is at most 32 bits long "
		 "(see 'smcd policy help')"},
		{{"smcd", "policy", "add", "tcp", "peer", "fd00::/x"},
		 "smcd: invalid peer prefix 'fd00::/x': the prefix length is not a number from 0 to 128 "
		 "(see 'smcd policy help')"},
		{{"smcd", "policy", "add", "tcp", "peer", "host.example"},
		 "smcd: invalid peer prefix 'host.example': 'host.example' is neither an IPv4 nor an IPv6 "
		 "address (see 'smcd policy help')"},
		{{"smcd", "policy", "add", "tcp", "port", "90-80"},
		 "smcd: invalid port '90-80': give PORT or LOW-HIGH, from 1 to 65535, LOW <= HIGH "
		 "(see 'smcd policy help')"},
		{{"smcd", "policy", "add", "tcp", "port", "0"},
		 "smcd: invalid port '0': give PORT or LOW-HIGH, from 1 to 65535, LOW <= HIGH "
		 "(see 'smcd policy help')"},
		{{"smcd", "policy", "add", "tcp", "port", "65536"},
		 "smcd: invalid port '65536': give PORT or LOW-HIGH, from 1 to 65535, LOW <= HIGH "
		 "(see 'smcd policy help')"},
		{{"smcd", "policy", "del"}, "smcd: 'del' needs a rule id (see 'smcd policy help')"},
		{{"smcd", "policy", "del", "0"}, "smcd: invalid rule id '0' (see 'smcd policy help')"},
		{{"smcd", "policy", "del", "-1"}, "smcd: invalid rule id '-1' (see 'smcd policy help')"},
		{{"smcd", "policy", "del", "1", "2"}, "smcd: unexpected argument '2' (see 'smcd policy help')"},
		{{"smcd", "policy", "flush", "1"}, "smcd: unexpected argument '1' (see 'smcd policy help')"},
	};
	for (const auto &[args, msg] : cases) {
		auto r = run(args, none());
		EXPECT_EQ(r.rc, 2) << msg;
		EXPECT_EQ(r.err, msg + "\n");
		EXPECT_TRUE(r.out.empty()) << msg;
	}
}

TEST(Smc, KernelErrors)
{
	auto r = run({"smcd", "info"}, {genl_session({}, {})});
	EXPECT_EQ(r.transcript(), "--- stderr ---\nsmcd: SMC module not loaded (the kernel has no generic "
				  "netlink family SMC_GEN_NETLINK)\n--- exit 1 ---\n");
	r = run({"smcd", "ueid", "add", "A"}, {genl_session({{error_msg(1, EPERM)}})});
	EXPECT_EQ(r.err, "smcd: permission denied: needs CAP_NET_ADMIN\n");
	r = run({"smcd", "ueid", "add", "A"}, {genl_session({{error_msg(1, ERANGE)}})});
	EXPECT_EQ(r.err, "smcd: the User EID table is full (at most 4 entries)\n");
	r = run({"smcd", "ueid", "del", "A"}, {genl_session({{error_msg(1, EAGAIN)}})});
	EXPECT_EQ(r.rc, 0);
	EXPECT_EQ(r.err, "smcd: note: that was the last User EID; the System EID is offered again\n");
	r = run({"smcr", "device"}, {genl_session({{error_msg(1, EOPNOTSUPP)}})});
	EXPECT_EQ(r.err, "smcr: operation not supported by this kernel's SMC_GEN_NETLINK\n");
	// seid enable/disable look at the SEID first.
	auto seid = nl::join({genl_msg(gen_family, SMC_NETLINK_DUMP_SEID, 1, [](nl::AttrWriter &w) {
		w.put_str(SMC_NLA_SEID_ENTRY, "S");
		w.put_u8(SMC_NLA_SEID_ENABLED, 1);
	}), done_msg(1)});
	r = run({"smcd", "seid", "disable"}, {genl_session({{seid}, {error_msg(2, ENOENT)}})});
	EXPECT_EQ(r.err, "smcd: the System EID cannot be disabled while no User EID is defined\n");
	r = run({"smcd", "seid", "enable"}, {genl_session({{seid}, {error_msg(2, 0)}})});
	EXPECT_EQ(r.transcript(), "--- exit 0 ---\n");
	r = run({"smcd", "seid", "enable"}, {genl_session({{done_msg(1)}})});
	EXPECT_EQ(r.err, "smcd: this system has no System EID\n");
	// Garbage in a reply: one line, exit 1.
	Bytes bad = genl_msg(gen_family, SMC_NETLINK_GET_LGR_SMCD, 1, [](nl::AttrWriter &w) {
		w.put(SMC_GEN_LGR_SMCD, Bytes{0x50, 0, 1, 0, 1, 2, 3, 4});
	});
	r = run({"smcd", "linkgroup"}, {genl_session({{nl::join({bad, done_msg(1)})}})});
	EXPECT_EQ(r.err, "smcd: malformed attributes in the kernel's SMC-D link group reply\n");
	EXPECT_EQ(r.rc, 1);
}

TEST(Smc, UeidRequestsArePadded)
{
	auto req = nl::genl_message(gen_family, SMC_NETLINK_ADD_UEID, SMC_GENL_FAMILY_VERSION,
				    NLM_F_REQUEST | NLM_F_ACK);
	req.attrs().put_str(SMC_NLA_EID_TABLE_ENTRY, "SMC-EID.1" + std::string(23, ' '));
	auto s = genl_session({{error_msg(1, 0)}});
	s.exchanges[0].request = req.finish(1);
	auto r = run({"smcd", "ueid", "add", "SMC-EID.1"}, {s});
	EXPECT_EQ(r.transcript(), "--- exit 0 ---\n");
}

// What "policy add" sends: the action, then only the parts given (absent
// ports mean 0 and 65535 to the kernel), the address as long as its family.
TEST(Smc, PolicyRequests)
{
	auto expect_request = [](std::vector<std::string> args, const nl::AttrFiller &fill) {
		auto req = nl::genl_message(gen_family, SMC_NETLINK_ADD_POLICY, SMC_GENL_FAMILY_VERSION,
					    NLM_F_REQUEST | NLM_F_ACK);
		auto w = req.attrs();
		fill(w);
		auto s = genl_session({{error_msg(1, 0)}});
		s.exchanges[0].request = req.finish(1);
		auto r = run(args, {s});
		EXPECT_EQ(r.transcript(), "--- exit 0 ---\n") << args.back();
	};
	expect_request({"smcd", "policy", "add", "tcp", "port", "80"}, [](nl::AttrWriter &w) {
		w.put_u8(SMC_NLA_POLICY_ACTION, SMC_POLICY_TCP);
		w.put_u16(SMC_NLA_POLICY_PORT_LO, 80);
		w.put_u16(SMC_NLA_POLICY_PORT_HI, 80);
	});
	expect_request({"smcd", "policy", "add", "smc", "port", "1-65535", "peer", "10.1.0.0/16"},
		       [](nl::AttrWriter &w) {
			       w.put_u8(SMC_NLA_POLICY_ACTION, SMC_POLICY_SMC);
			       w.put_u16(SMC_NLA_POLICY_PORT_LO, 1);
			       w.put_u8(SMC_NLA_POLICY_FAMILY, AF_INET);
			       w.put(SMC_NLA_POLICY_ADDR, Bytes{10, 1, 0, 0});
			       w.put_u8(SMC_NLA_POLICY_PREFIXLEN, 16);
		       });
	expect_request({"smcr", "policy", "a", "t", "peer", "fd00::1"}, [](nl::AttrWriter &w) {
		w.put_u8(SMC_NLA_POLICY_ACTION, SMC_POLICY_TCP);
		w.put_u8(SMC_NLA_POLICY_FAMILY, AF_INET6);
		Bytes a(16, 0);
		a[0] = 0xfd;
		a[15] = 1;
		w.put(SMC_NLA_POLICY_ADDR, a);
		w.put_u8(SMC_NLA_POLICY_PREFIXLEN, 128);
	});
	auto del = nl::genl_message(gen_family, SMC_NETLINK_DEL_POLICY, SMC_GENL_FAMILY_VERSION,
				    NLM_F_REQUEST | NLM_F_ACK);
	del.attrs().put_u32(SMC_NLA_POLICY_ID, 12);
	auto s = genl_session({{error_msg(1, 0)}});
	s.exchanges[0].request = del.finish(1);
	EXPECT_EQ(run({"smcd", "policy", "del", "12"}, {s}).transcript(), "--- exit 0 ---\n");
}

TEST(Smc, PolicyKernelErrors)
{
	std::vector<std::pair<std::vector<std::string>, std::pair<int, std::string>>> cases = {
		{{"smcd", "policy", "add", "tcp"}, {EPERM, "smcd: permission denied: needs CAP_NET_ADMIN"}},
		{{"smcd", "policy", "add", "tcp"}, {ENOSPC, "smcd: the handshake policy is full (at most 64 rules)"}},
		{{"smcd", "policy", "add", "tcp"}, {EEXIST, "smcd: a rule for these peers and ports exists already"}},
		{{"smcd", "policy", "del", "3"}, {ENOENT, "smcd: no rule has id 3"}},
		{{"smcd", "policy", "flush"}, {EPERM, "smcd: permission denied: needs CAP_NET_ADMIN"}},
		{{"smcd", "policy"},
		 {EOPNOTSUPP, "smcd: this kernel's SMC module has no handshake policy (af_smc's own commands)"}},
	};
	for (const auto &[args, err] : cases) {
		auto r = run(args, {genl_session({{error_msg(1, err.first)}})});
		EXPECT_EQ(r.rc, 1) << err.second;
		EXPECT_EQ(r.err, err.second + "\n");
	}
}

} // namespace
} // namespace smc
