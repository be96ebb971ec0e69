// SPDX-License-Identifier: GPL-2.0
//
// smcd and smcr: the technology from the program name, global options,
// abbreviations, help, and every object's text and JSON.
#include <algorithm>

#include <gtest/gtest.h>
#include <linux/netlink.h>
#include <linux/smc.h>

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
		     {"smcd", "seid", "enable", "help"}, {"smcr", "linkgroup", "link-show", "help"}}) {
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

} // namespace
} // namespace smc
