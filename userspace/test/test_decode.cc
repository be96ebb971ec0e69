// SPDX-License-Identifier: GPL-2.0
//
// Decoding of sock_diag and SMC_GEN_NETLINK replies built by hand: unknown
// attributes, odd integer widths, short and long structs, malformed input.
#include <cerrno>
#include <cstddef>

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <linux/netlink.h>
#include <linux/smc.h>
#include <linux/smc_diag.h>
#include <linux/sock_diag.h>
#include <smc/af_smc.h>
#include <sys/socket.h>

#include "diag_builders.h"
#include "fixture.h"
#include "pnet.h"
#include "smc_decode.h"
#include "smc_diag.h"

// Our uapi headers must be the ones in use, not the system's 6.1 copies:
// these names and members exist only in ours.
static_assert(SMC_NLA_STATS_T_TX_RMB_USAGE == 21);
static_assert(SMC_NLA_LGR_D_DMB_ALLOC == 13);
static_assert(offsetof(smcd_diag_dmbinfo, my_gid_ext) == 48);

namespace smc {
namespace {

using namespace smc::test;

nl::Message as_message(const Bytes &b)
{
	auto m = nl::split_datagram(b);
	EXPECT_TRUE(m);
	return m->at(0);
}

TEST(SmcDiag, RequestAsksForWhatTheOptionsNeed)
{
	auto b = smc_diag_request(DiagRequest{true, false, true}).finish(1);
	ASSERT_EQ(b.size(), sizeof(nlmsghdr) + sizeof(smc_diag_req));
	auto req = load<smc_diag_req>(ByteView(b).subspan(sizeof(nlmsghdr)));
	EXPECT_EQ(req.diag_family, 43);
	EXPECT_EQ(req.diag_ext, (1 << (SMC_DIAG_SHUTDOWN - 1)) | (1 << (SMC_DIAG_CONNINFO - 1)) |
				       (1 << (SMC_DIAG_DMBINFO - 1)));
	EXPECT_EQ(load<nlmsghdr>(b).nlmsg_type, SOCK_DIAG_BY_FAMILY);
}

TEST(SmcDiag, DecodesIpv4Ipv6AndAttributes)
{
	DiagSock s4;
	s4.local = "10.0.0.1";
	s4.peer = "10.0.0.2";
	s4.sport = 443;
	s4.dport = 50000;
	s4.fallback = FallbackInfo{0x03030000, 0x03030002};
	s4.conninfo = true;
	s4.extra = [](nl::AttrWriter &w) { w.put_u32(200, 1); };	// unknown
	auto a = decode_smc_socket(as_message(diag_msg(s4, 1)));
	ASSERT_TRUE(a) << a.error().message;
	EXPECT_FALSE(a->ipv6);
	EXPECT_EQ(a->local_ip(), "10.0.0.1");
	EXPECT_EQ(a->peer_ip(), "10.0.0.2");
	EXPECT_EQ(a->local_port, 443);
	EXPECT_EQ(a->peer_port, 50000);
	ASSERT_TRUE(a->fallback);
	EXPECT_EQ(a->fallback->peer_diagnosis, 0x03030002u);
	ASSERT_TRUE(a->conn);
	EXPECT_EQ(a->conn->token, 0x1234u);
	EXPECT_EQ(a->conn->tx_fin.count, 0x7000u);

	DiagSock s6;
	s6.local = "fd43::1";
	s6.peer = "fd43::2";
	auto b = decode_smc_socket(as_message(diag_msg(s6, 1)));
	ASSERT_TRUE(b);
	EXPECT_TRUE(b->ipv6);
	EXPECT_EQ(b->local_ip(), "fd43::1");
}

TEST(SmcDiag, ShortAttributesAreIgnoredLongOnesAccepted)
{
	DiagSock s;
	s.extra = [](nl::AttrWriter &w) {
		w.put(SMC_DIAG_CONNINFO, Bytes(10, 1));			// too short: ignored
		Bytes dmb(offsetof(smcd_diag_dmbinfo, peer_gid_ext), 0);	// a 6.1 kernel's size
		dmb[0] = 7;
		w.put(SMC_DIAG_DMBINFO, dmb);
		w.put(SMC_DIAG_FALLBACK, Bytes(sizeof(smc_diag_fallback) + 8, 0));	// a future kernel's
	};
	auto r = decode_smc_socket(as_message(diag_msg(s, 1)));
	ASSERT_TRUE(r);
	EXPECT_FALSE(r->conn);
	ASSERT_TRUE(r->dmb);
	EXPECT_EQ(r->dmb->link_id, 7u);
	EXPECT_EQ(r->dmb->my_gid_ext, 0u);
	EXPECT_TRUE(r->fallback);
}

TEST(SmcDiag, TruncatedAndMalformedMessages)
{
	Bytes full = diag_msg(DiagSock{}, 1);
	nl::Message m = as_message(full);
	m.payload.resize(sizeof(smc_diag_msg) - 1);
	auto r = decode_smc_socket(m);
	ASSERT_FALSE(r);
	EXPECT_EQ(r.error().code, EBADMSG);

	m = as_message(full);
	m.payload.insert(m.payload.end(), {0x40, 0, 1, 0});	// attribute longer than the message
	EXPECT_FALSE(decode_smc_socket(m));
}

TEST(SmcGen, SysInfoToleratesWidthsAndUnknowns)
{
	auto msg = genl_msg(gen_family, SMC_NETLINK_GET_SYS_INFO, 1, [](nl::AttrWriter &w) {
		nest(w, SMC_GEN_SYS_INFO, [](nl::AttrWriter &s) {
			s.put_u32(SMC_NLA_SYS_VER, 2);		// u8 in the kernel
			s.put_u64(SMC_NLA_SYS_REL, 1);
			s.put_u8(SMC_NLA_SYS_IS_ISM_V2, 1);
			s.put_str(SMC_NLA_SYS_LOCAL_HOST, "host");
			s.put_u8(99, 1);			// unknown
		});
		w.put_u32(77, 1);				// unknown top level
	});
	auto info = decode_sys_info({nl::GenlMessage{SMC_NETLINK_GET_SYS_INFO, Bytes(msg.begin() + 20, msg.end())}});
	ASSERT_TRUE(info);
	EXPECT_EQ(info->version, 2u);
	EXPECT_EQ(info->release, 1u);
	EXPECT_EQ(info->ism_v2, true);
	EXPECT_EQ(info->smcr_v2, std::nullopt);
	EXPECT_EQ(info->hostname, "host");
	EXPECT_EQ(info->seid, std::nullopt);
}

nl::GenlMessage gm(std::uint8_t cmd, const Fill &fill)
{
	Bytes b;
	nl::AttrWriter w(b);
	fill(w);
	return nl::GenlMessage{cmd, b};
}

TEST(SmcGen, LinksBelongToTheGroupBeforeThem)
{
	std::vector<nl::GenlMessage> msgs = {
		gm(SMC_NETLINK_GET_LGR_SMCR, [](nl::AttrWriter &w) {
			nest(w, SMC_GEN_LGR_SMCR, [](nl::AttrWriter &g) { g.put_u32(SMC_NLA_LGR_R_ID, 0x100); });
		}),
		gm(SMC_NETLINK_GET_LINK_SMCR, [](nl::AttrWriter &w) {
			nest(w, SMC_GEN_LINK_SMCR, [](nl::AttrWriter &l) { l.put_u8(SMC_NLA_LINK_ID, 1); });
		}),
		gm(SMC_NETLINK_GET_LINK_SMCR, [](nl::AttrWriter &w) {
			nest(w, SMC_GEN_LINK_SMCR, [](nl::AttrWriter &l) { l.put_u8(SMC_NLA_LINK_ID, 2); });
		}),
		gm(SMC_NETLINK_GET_LGR_SMCR, [](nl::AttrWriter &w) {
			nest(w, SMC_GEN_LGR_SMCR, [](nl::AttrWriter &g) { g.put_u32(SMC_NLA_LGR_R_ID, 0x200); });
		}),
	};
	auto lgs = decode_linkgroups_r(msgs);
	ASSERT_TRUE(lgs);
	ASSERT_EQ(lgs->size(), 2u);
	EXPECT_EQ((*lgs)[0].links.size(), 2u);
	EXPECT_EQ((*lgs)[0].links[1].id, 2u);
	EXPECT_TRUE((*lgs)[1].links.empty());

	auto orphan = decode_linkgroups_r({msgs[1]});
	ASSERT_FALSE(orphan);
	EXPECT_EQ(orphan.error().code, EBADMSG);
}

TEST(SmcGen, MalformedNestIsAnError)
{
	auto bad = gm(SMC_NETLINK_GET_DEV_SMCR, [](nl::AttrWriter &w) {
		nest(w, SMC_GEN_DEV_SMCR, [](nl::AttrWriter &d) { d.put(SMC_NLA_DEV_PORT, Bytes{0x30, 0, 1, 0}); });
	});
	auto r = decode_devices({bad}, Tech::smcr);
	ASSERT_FALSE(r);
	EXPECT_EQ(r.error().message, "malformed attributes in the kernel's SMC-R device reply");
}

TEST(SmcGen, StatsAndFallbackReasons)
{
	std::vector<nl::GenlMessage> stats = {gm(SMC_NETLINK_GET_STATS, [](nl::AttrWriter &w) {
		nest(w, SMC_GEN_STATS, [](nl::AttrWriter &s) {
			nest(s, SMC_NLA_STATS_SMCD_TECH, [](nl::AttrWriter &t) {
				nest(t, SMC_NLA_STATS_T_TXPLOAD_SIZE, [](nl::AttrWriter &h) {
					h.put_u64(SMC_NLA_STATS_PLOAD_8K, 11);
					h.put_u64(SMC_NLA_STATS_PLOAD_G_1024K, 19);
				});
				nest(t, SMC_NLA_STATS_T_RX_RMB_STATS, [](nl::AttrWriter &b) {
					b.put_u64(SMC_NLA_STATS_RMB_DGRADE_CNT, 4);
				});
				t.put_u64(SMC_NLA_STATS_T_SRV_V2_SUCC, 3);
				t.put_u64(SMC_NLA_STATS_T_TX_RMB_USAGE, 5);	// 6.12, 8-byte form
			});
			s.put_u64(SMC_NLA_STATS_CLNT_HS_ERR_CNT, 2);
		});
	})};
	auto reason = [](bool srv, std::uint32_t code, std::uint16_t n, bool totals) {
		return gm(SMC_NETLINK_GET_FBACK_STATS, [=](nl::AttrWriter &w) {
			nest(w, SMC_GEN_FBACK_STATS, [=](nl::AttrWriter &f) {
				f.put_u8(SMC_NLA_FBACK_STATS_TYPE, srv);
				if (totals) {
					f.put_u64(SMC_NLA_FBACK_STATS_SRV_CNT, 8);
					f.put_u64(SMC_NLA_FBACK_STATS_CLNT_CNT, 9);
				}
				f.put_u32(SMC_NLA_FBACK_STATS_RSN_CODE, code);
				f.put_u16(SMC_NLA_FBACK_STATS_RSN_CNT, n);
			});
		});
	};
	auto s = decode_stats(stats, {reason(true, 0x05000000, 8, true), reason(false, 0x03030000, 9, false)});
	ASSERT_TRUE(s);
	EXPECT_EQ(s->smcd.tx_req_size[0], 11u);
	EXPECT_EQ(s->smcd.tx_req_size[8], 19u);
	EXPECT_EQ(s->smcd.rx_buf.downgrade, 4u);
	EXPECT_EQ(s->smcd.srv_v2_succ, 3u);
	EXPECT_EQ(s->smcd.tx_buf_use, 5u);
	EXPECT_FALSE(s->smcd.rx_buf_use);	// absent: not reported, not 0
	EXPECT_EQ(s->smcr.srv_v2_succ, 0u);
	EXPECT_EQ(s->clnt_hs_err, 2u);
	EXPECT_EQ(s->srv_fallback, 8u);
	EXPECT_EQ(s->clnt_fallback, 9u);
	ASSERT_EQ(s->srv_reasons.size(), 1u);
	EXPECT_EQ(s->srv_reasons[0].code, 0x05000000u);
	ASSERT_EQ(s->clnt_reasons.size(), 1u);
	EXPECT_EQ(s->clnt_reasons[0].count, 9u);
}

TEST(SmcGen, PolicyRules)
{
	auto any = [](nl::AttrWriter &w) {
		w.put_u32(SMC_NLA_POLICY_ID, 7);
		w.put_u8(SMC_NLA_POLICY_ACTION, SMC_POLICY_TCP);
		w.put_u16(SMC_NLA_POLICY_PORT_LO, 80);
		w.put_u16(SMC_NLA_POLICY_PORT_HI, 80);
	};
	auto v4 = [](nl::AttrWriter &w) {
		w.put_u32(SMC_NLA_POLICY_ID, 9);
		w.put_u8(SMC_NLA_POLICY_ACTION, SMC_POLICY_SMC);
		w.put_u16(SMC_NLA_POLICY_PORT_LO, 0);
		w.put_u16(SMC_NLA_POLICY_PORT_HI, 65535);
		w.put_u8(SMC_NLA_POLICY_FAMILY, AF_INET);
		w.put_u8(SMC_NLA_POLICY_PREFIXLEN, 8);
		w.put(SMC_NLA_POLICY_ADDR, Bytes{10, 0, 0, 0});
	};
	auto r = decode_policy({gm(SMC_NETLINK_DUMP_POLICY, any), gm(SMC_NETLINK_DUMP_POLICY, v4)});
	ASSERT_TRUE(r);
	ASSERT_EQ(r->size(), 2u);
	EXPECT_EQ((*r)[0].id, 7u);
	EXPECT_EQ((*r)[0].action, SMC_POLICY_TCP);
	EXPECT_EQ((*r)[0].family, 0);
	EXPECT_EQ((*r)[0].port_lo, 80);
	EXPECT_EQ((*r)[0].port_hi, 80);
	EXPECT_EQ((*r)[1].family, AF_INET);
	EXPECT_EQ((*r)[1].prefix_len, 8);
	EXPECT_EQ((*r)[1].addr[0], 10);
	// A rule the table could not show as the kernel applies it fails the
	// whole reply: an IPv4 rule with 16 address bytes, a prefix longer
	// than its address, a message without an id.
	EXPECT_FALSE(decode_policy({gm(SMC_NETLINK_DUMP_POLICY, [](nl::AttrWriter &w) {
		w.put_u32(SMC_NLA_POLICY_ID, 1);
		w.put_u8(SMC_NLA_POLICY_FAMILY, AF_INET);
		w.put_u8(SMC_NLA_POLICY_PREFIXLEN, 8);
		w.put(SMC_NLA_POLICY_ADDR, Bytes(16, 0));
	})}));
	EXPECT_FALSE(decode_policy({gm(SMC_NETLINK_DUMP_POLICY, [](nl::AttrWriter &w) {
		w.put_u32(SMC_NLA_POLICY_ID, 1);
		w.put_u8(SMC_NLA_POLICY_FAMILY, AF_INET);
		w.put_u8(SMC_NLA_POLICY_PREFIXLEN, 33);
		w.put(SMC_NLA_POLICY_ADDR, Bytes{10, 0, 0, 0});
	})}));
	auto no_id = decode_policy({gm(SMC_NETLINK_DUMP_POLICY, [](nl::AttrWriter &w) {
		w.put_u8(SMC_NLA_POLICY_ACTION, SMC_POLICY_TCP);
	})});
	ASSERT_FALSE(no_id);
	EXPECT_EQ(no_id.error().message, "malformed attributes in the kernel's handshake policy reply");
}

TEST(SmcGen, EidTables)
{
	auto u = decode_ueids({gm(SMC_NETLINK_DUMP_UEID, [](nl::AttrWriter &w) {
		w.put_str(SMC_NLA_EID_TABLE_ENTRY, "A");
	}), gm(SMC_NETLINK_DUMP_UEID, [](nl::AttrWriter &w) { w.put_u8(9, 1); })});
	ASSERT_TRUE(u);
	EXPECT_EQ(*u, std::vector<std::string>{"A"});
	auto s = decode_seid({gm(SMC_NETLINK_DUMP_SEID, [](nl::AttrWriter &w) {
		w.put_str(SMC_NLA_SEID_ENTRY, "SEID");
		w.put_u8(SMC_NLA_SEID_ENABLED, 1);
	})});
	ASSERT_TRUE(s);
	EXPECT_EQ(s->seid, "SEID");
	EXPECT_TRUE(s->enabled);
	EXPECT_FALSE(decode_seid({})->seid);
}

TEST(Pnet, IdRulesAndEntries)
{
	EXPECT_EQ(*normalize_pnetid("net1"), "NET1");
	EXPECT_FALSE(normalize_pnetid(""));
	EXPECT_FALSE(normalize_pnetid("ABCDEFGHIJKLMNOPQ"));
	EXPECT_TRUE(normalize_pnetid("ABCDEFGHIJKLMNOP"));
	EXPECT_FALSE(normalize_pnetid("NET_1"));
	auto e = decode_pnet_entries({gm(SMC_PNETID_GET, [](nl::AttrWriter &w) {
		w.put_str(SMC_PNETID_NAME, "NET1");
		w.put_str(SMC_PNETID_ETHNAME, "eth0");
		w.put_str(SMC_PNETID_IBNAME, "n/a");
		w.put_u8(SMC_PNETID_IBPORT, 255);
	})});
	ASSERT_TRUE(e);
	ASSERT_EQ(e->size(), 1u);
	EXPECT_EQ((*e)[0].netdev, "eth0");
	EXPECT_EQ((*e)[0].ibdev, "");
}

} // namespace
} // namespace smc
