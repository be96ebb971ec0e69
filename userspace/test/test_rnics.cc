// SPDX-License-Identifier: GPL-2.0
//
// smc_rnics: sysfs parsing against the fake tree in data/sysfs (a RoCE
// adapter on a PCI bus, rxe, an InfiniBand port, siw), PNET IDs from the SMC
// module and the PNET table, text and JSON output, and a missing module.
#include <gtest/gtest.h>
#include <linux/smc.h>

#include "fixture.h"
#include "smc_rnics.h"

namespace smc {
namespace {

using namespace smc::test;

std::string fake_sysfs() { return source_dir() + "/data/sysfs"; }

TEST(RdmaSysfs, ParsesTheFakeTree)
{
	auto devs = scan_rdma_devices(fake_sysfs());
	ASSERT_EQ(devs.size(), 4u);
	EXPECT_EQ(devs[0].name, "mlx4_0");
	EXPECT_EQ(devs[1].name, "mlx5_0");
	EXPECT_EQ(devs[2].name, "rxe0");
	EXPECT_EQ(devs[3].name, "siw0");

	const auto &ib = devs[0];
	EXPECT_EQ(ib.driver, "mlx4_core");
	EXPECT_EQ(ib.bus_id, "0000:05:00.0");
	ASSERT_EQ(ib.ports.size(), 1u);
	EXPECT_EQ(ib.ports[0].state, "INIT");
	EXPECT_EQ(ib.ports[0].link_layer, "InfiniBand");
	ASSERT_EQ(ib.ports[0].gids.size(), 1u);
	EXPECT_EQ(ib.ports[0].gids[0].type, "");
	EXPECT_TRUE(ib.ports[0].gid_types().empty());
	EXPECT_EQ(ib.ports[0].netdev, "");

	const auto &mlx = devs[1];
	EXPECT_EQ(mlx.driver, "mlx5_core");
	EXPECT_EQ(mlx.node_type, "CA");
	EXPECT_EQ(mlx.fw_ver, "16.35.2000");
	ASSERT_EQ(mlx.ports.size(), 2u);
	const auto &p1 = mlx.ports[0];
	EXPECT_EQ(p1.number, 1u);
	EXPECT_EQ(p1.state, "ACTIVE");
	EXPECT_EQ(p1.phys_state, "LinkUp");
	EXPECT_EQ(p1.netdev, "ens1f0");
	// The zero GID (index 4) is left out; index 10 comes after 3, not after 1.
	ASSERT_EQ(p1.gids.size(), 5u);
	EXPECT_EQ(p1.gids[4].index, 10u);
	EXPECT_EQ(p1.gids[4].gid, "fd43:0000:0000:0001:0000:0000:0000:0001");
	EXPECT_EQ(p1.gid_types(), (std::vector<std::string>{"IB/RoCE v1", "RoCE v2"}));
	EXPECT_EQ(mlx.ports[1].state, "DOWN");
	EXPECT_EQ(mlx.ports[1].phys_state, "Disabled");
	EXPECT_TRUE(mlx.ports[1].gids.empty());

	const auto &rxe = devs[2];
	EXPECT_EQ(rxe.driver, "rdma_rxe");
	EXPECT_EQ(rxe.parent, "eth0");
	EXPECT_EQ(rxe.bus_id, "");
	ASSERT_EQ(rxe.ports.size(), 1u);
	EXPECT_EQ(rxe.ports[0].netdev, "eth0");
	EXPECT_EQ(rxe.ports[0].gids.size(), 4u);

	EXPECT_EQ(devs[3].driver, "siw");
	EXPECT_EQ(devs[3].node_type, "RNIC");
}

TEST(RdmaSysfs, NoRdmaAtAll)
{
	EXPECT_TRUE(scan_rdma_devices("/nonexistent").empty());
	EXPECT_EQ(sysfs_enum_name("4: ACTIVE"), "ACTIVE");
	EXPECT_EQ(sysfs_enum_name("ACTIVE"), "ACTIVE");
	EXPECT_EQ(sysfs_enum_name("x: y"), "x: y");
}

Bytes roce(std::uint32_t seq, const char *ibdev, const char *pnetid, bool by_user)
{
	return genl_msg(gen_family, SMC_NETLINK_GET_DEV_SMCR, seq, [=](nl::AttrWriter &w) {
		nest(w, SMC_GEN_DEV_SMCR, [=](nl::AttrWriter &d) {
			d.put_str(SMC_NLA_DEV_IB_NAME, ibdev);
			nest(d, SMC_NLA_DEV_PORT, [=](nl::AttrWriter &p) {
				p.put_u8(SMC_NLA_DEV_PORT_PNET_USR, by_user);
				p.put_str(SMC_NLA_DEV_PORT_PNETID, pnetid);
				p.put_u8(SMC_NLA_DEV_PORT_STATE, 1);
				p.put_u8(SMC_NLA_DEV_PORT_VALID, 1);
			});
		});
	});
}

Bytes ism(std::uint32_t seq, const char *pci, const char *pnetid)
{
	return genl_msg(gen_family, SMC_NETLINK_GET_DEV_SMCD, seq, [=](nl::AttrWriter &w) {
		nest(w, SMC_GEN_DEV_SMCD, [=](nl::AttrWriter &d) {
			d.put_u32(SMC_NLA_DEV_PCI_FID, 0x17);
			d.put_str(SMC_NLA_DEV_PCI_ID, pci);
			nest(d, SMC_NLA_DEV_PORT, [=](nl::AttrWriter &p) {
				p.put_str(SMC_NLA_DEV_PORT_PNETID, pnetid);
				p.put_u8(SMC_NLA_DEV_PORT_STATE, 1);
			});
		});
	});
}

Bytes pnet_entry(std::uint32_t seq, const char *id, const char *eth, const char *ib, std::uint8_t port)
{
	return genl_msg(pnet_family, SMC_PNETID_GET, seq, [=](nl::AttrWriter &w) {
		w.put_str(SMC_PNETID_NAME, id);
		w.put_str(SMC_PNETID_ETHNAME, eth);
		w.put_str(SMC_PNETID_IBNAME, ib);
		w.put_u8(SMC_PNETID_IBPORT, port);
	});
}

// The module knows mlx5_0 port 1 by a hardware PNET ID, the table gives
// rxe0 port 1 one, and an interface no RDMA port uses (eth1) one, which no
// row shows; plus an ISM device.
std::vector<nl::Session> module_sessions()
{
	return {
		genl_session({{nl::join({roce(1, "mlx5_0", "NETHW           ", false),
					 roce(1, "rxe0", "", false), done_msg(1)})},
			      {nl::join({ism(2, "0000:00:07.0", "NETHW"), done_msg(2)})}}),
		genl_session({{nl::join({pnet_entry(1, "NETRXE", "n/a", "rxe0", 1),
					 pnet_entry(1, "NETSIW", "eth1", "n/a", 0), done_msg(1)})}}),
	};
}

RunOptions with_sysfs()
{
	RunOptions o;
	o.sysfs_root = fake_sysfs();
	return o;
}

TEST(SmcRnics, PnetIdSources)
{
	SmcView v;
	v.smcr = std::vector<Device>{};
	Device d;
	d.ib_name = "mlx5_0";
	d.ports[0] = DevicePort{true, "NETUSER", 2, 1, true, 0};
	v.smcr->push_back(d);
	v.pnet_table = std::vector<PnetEntry>{PnetEntry{"NETTAB", "", "mlx5_0", 2},
					      PnetEntry{"NETIF", "ens1f1", "", 0}};
	std::string src;
	EXPECT_EQ(rdma_port_pnetid("mlx5_0", 1, "ens1f0", v, src), "NETUSER");
	EXPECT_EQ(src, "user");
	EXPECT_EQ(rdma_port_pnetid("mlx5_0", 2, "ens1f1", v, src), "NETTAB");
	EXPECT_EQ(src, "table");
	EXPECT_EQ(rdma_port_pnetid("mlx5_1", 1, "ens1f1", v, src), "NETIF");
	EXPECT_EQ(src, "interface");
	EXPECT_EQ(rdma_port_pnetid("mlx5_1", 1, "eth0", v, src), "");
	EXPECT_EQ(src, "");
	EXPECT_EQ(rdma_port_pnetid("mlx5_0", 3, "", SmcView{}, src), "");
}

TEST(SmcRnics, TextAndJson)
{
	auto text = run({"smc_rnics"}, module_sessions(), with_sysfs());
	EXPECT_EQ(text.rc, 0);
	EXPECT_EQ(text.err, "");
	expect_golden("smc_rnics", text.transcript());
	auto json = run({"smc_rnics", "-j"}, module_sessions(), with_sysfs());
	EXPECT_EQ(json.rc, 0);
	expect_golden("smc_rnics_json", json.transcript());
	auto pretty = run({"smc_rnics", "--pretty", "--ism"}, module_sessions(), with_sysfs());
	expect_golden("smc_rnics_ism_pretty", pretty.transcript());
	auto rdma = run({"smc_rnics", "-r"}, module_sessions(), with_sysfs());
	EXPECT_EQ(rdma.out.find("ISM"), std::string::npos);
	EXPECT_NE(rdma.out.find("rxe0"), std::string::npos);
	// Every row has the values of its device.
	EXPECT_NE(text.out.find("RoCE   rxe0      rdma_rxe   1     ACTIVE  eth0      IB/RoCE v1,RoCE v2  *NETRXE\n"),
		  std::string::npos) << text.out;
}

TEST(SmcRnics, WithoutTheModule)
{
	// No SMC_GEN_NETLINK and no SMC_PNETID: the RDMA devices are still
	// listed, the unknowns are a note on stderr, and the exit status is 0.
	auto r = run({"smc_rnics"}, {genl_session({}, {}), genl_session({}, {})}, with_sysfs());
	EXPECT_EQ(r.rc, 0);
	EXPECT_NE(r.out.find("mlx5_0"), std::string::npos);
	EXPECT_EQ(r.out.find("ISM"), std::string::npos);
	EXPECT_EQ(r.err, "smc_rnics: note: PNET IDs and ISM devices unknown: SMC module not loaded (the "
			 "kernel has no generic netlink family SMC_GEN_NETLINK)\n");
	expect_golden("smc_rnics_no_module", r.transcript());

	auto none = run({"smc_rnics", "-j"}, {genl_session({}, {}), genl_session({}, {})});
	EXPECT_EQ(none.rc, 0);
	EXPECT_EQ(none.out, "[]\n");
}

TEST(SmcRnics, Usage)
{
	auto r = run({"smc_rnics", "-r", "-I"}, std::vector<nl::Session>{});
	EXPECT_EQ(r.rc, 2);
	EXPECT_EQ(r.err, "smc_rnics: --rdma and --ism exclude each other (see smc_rnics --help)\n");
	r = run({"smc_rnics", "x"}, std::vector<nl::Session>{});
	EXPECT_EQ(r.rc, 2);
	r = run({"smc_rnics", "-h"}, std::vector<nl::Session>{});
	EXPECT_EQ(r.rc, 0);
	EXPECT_NE(r.out.find("Usage: smc_rnics"), std::string::npos);
}

} // namespace
} // namespace smc
