// SPDX-License-Identifier: GPL-2.0
//
// smc_chk: command line, the server's report line, the connection report
// and the interface report.
#include <sstream>

#include <gtest/gtest.h>
#include <linux/smc_diag.h>

#include "chk_report.h"
#include "fixture.h"
#include "smc_chk.h"

namespace smc {
namespace {

using namespace smc::test;

Result<ChkOptions> parse(std::vector<std::string> args)
{
	args.insert(args.begin(), "smc_chk");
	return parse_chk_options(args);
}

std::string parse_error(std::vector<std::string> args)
{
	auto r = parse(std::move(args));
	if (r)
		return "(parsed)";
	EXPECT_EQ(r.error().code, EINVAL);
	return r.error().message;
}

TEST(ChkOptions, Valid)
{
	auto s = parse({"-S"});
	ASSERT_TRUE(s);
	EXPECT_TRUE(s->server);
	EXPECT_EQ(s->port, 37373u);
	EXPECT_EQ(s->timeout_s, 5);
	EXPECT_TRUE(s->rdma);
	EXPECT_FALSE(s->reject);

	auto c = parse({"-C", "peer.example", "-p", "4000", "-6", "-d", "-t", "2", "--no-rdma"});
	ASSERT_TRUE(c);
	EXPECT_FALSE(c->server);
	EXPECT_EQ(c->connect, "peer.example");
	EXPECT_EQ(c->port, 4000u);
	EXPECT_TRUE(c->ipv6);
	EXPECT_TRUE(c->debug);
	EXPECT_EQ(c->timeout_s, 2);
	EXPECT_FALSE(c->rdma);
	EXPECT_FALSE(c->rdma_always);
	auto always = parse({"-C", "h", "--rdma-always"});
	ASSERT_TRUE(always);
	EXPECT_TRUE(always->rdma_always);
	EXPECT_TRUE(always->rdma);

	auto bundled = parse({"-6SCx"});	// -6 -S -C x: -S and -C clash
	EXPECT_FALSE(bundled);

	auto i = parse({"-i", "eth0"});
	ASSERT_TRUE(i);
	EXPECT_EQ(i->iface, "eth0");
	auto ic = parse({"--interface=eth0", "--connect=10.0.0.1"});
	ASSERT_TRUE(ic);
	EXPECT_EQ(ic->connect, "10.0.0.1");

	auto r = parse({"-S", "--reject", "-p65535"});
	ASSERT_TRUE(r);
	EXPECT_TRUE(r->reject);
	EXPECT_EQ(r->port, 65535u);

	ASSERT_TRUE(parse({"-h"}));
	EXPECT_TRUE(parse({"-h"})->help);
	EXPECT_TRUE(parse({"--version"})->version);
}

TEST(ChkOptions, Invalid)
{
	EXPECT_EQ(parse_error({}), "say -S, -C HOST or -i IFACE");
	EXPECT_EQ(parse_error({"-S", "-C", "x"}), "-S and -C exclude each other");
	EXPECT_EQ(parse_error({"-S", "-i", "eth0"}), "-i cannot be combined with -S");
	EXPECT_EQ(parse_error({"-C"}), "option '-C' needs an argument");
	EXPECT_EQ(parse_error({"-C", ""}), "-C needs a host name or address");
	EXPECT_EQ(parse_error({"-S", "-p", "0"}), "invalid port '0' (1 to 65535)");
	EXPECT_EQ(parse_error({"-S", "-p", "65536"}), "invalid port '65536' (1 to 65535)");
	EXPECT_EQ(parse_error({"-S", "-p", "12x"}), "invalid port '12x' (1 to 65535)");
	EXPECT_EQ(parse_error({"-S", "-p", "-1"}), "invalid port '-1' (1 to 65535)");
	EXPECT_EQ(parse_error({"-C", "h", "-t", "0"}), "invalid timeout '0' (1 to 600 seconds)");
	EXPECT_EQ(parse_error({"-C", "h", "-t", "601"}), "invalid timeout '601' (1 to 600 seconds)");
	EXPECT_EQ(parse_error({"-C", "h", "--reject"}), "--reject is an option of the server (-S)");
	EXPECT_EQ(parse_error({"-S", "--reject", "--no-rdma"}), "--reject and --no-rdma exclude each other");
	EXPECT_EQ(parse_error({"-C", "h", "--rdma-always", "--no-rdma"}),
		  "--rdma-always and --no-rdma exclude each other");
	EXPECT_EQ(parse_error({"-S", "--rdma-always"}), "--rdma-always is an option of the client (-C)");
	EXPECT_EQ(parse_error({"-i", "eth0", "-p", "1"}), "-p and -6 need -S or -C");
	EXPECT_EQ(parse_error({"-i", "an-interface-name-too-long"}),
		  "invalid interface name 'an-interface-name-too-long'");
	EXPECT_EQ(parse_error({"-S", "extra"}), "unexpected argument 'extra'");
	EXPECT_EQ(parse_error({"-x"}), "unknown option '-x'");
}

class NoCm : public RdmaCm {
public:
	std::unique_ptr<CmDriver> client() override { return nullptr; }
	std::unique_ptr<CmListener> listener() override { return nullptr; }
};

TEST(ChkOptions, UsageErrorsExitTwoWithOneLine)
{
	std::ostringstream out, err;
	nl::ReplayFactory f{nl::Recording{}};
	ToolEnv env{out, err, f, [](std::uint32_t) { return std::string(); }, "/tmp", 0, "9.9"};
	NoCm cm;
	EXPECT_EQ(smc_chk_run({"smc_chk", "-S", "-C", "h"}, env, cm), exit_usage);
	EXPECT_EQ(err.str(), "smc_chk: -S and -C exclude each other (see smc_chk --help)\n");
	EXPECT_EQ(out.str(), "");
	std::ostringstream out2, err2;
	ToolEnv env2{out2, err2, f, [](std::uint32_t) { return std::string(); }, "/tmp", 0, "9.9"};
	EXPECT_EQ(smc_chk_run({"smc_chk", "--help"}, env2, cm), exit_ok);
	EXPECT_NE(out2.str().find("Usage: smc_chk -S"), std::string::npos);
	EXPECT_EQ(smc_chk_run({"smc_chk", "-v"}, env2, cm), exit_ok);
	EXPECT_NE(out2.str().find("smc_chk (smc-linux) 9.9\n"), std::string::npos);
}

TEST(ChkServerLine, RoundTrip)
{
	EndView v;
	v.mode = ConnMode::tcp;
	v.reason = 0x05000000;
	v.peer_diagnosis = 0x03030000;
	std::string line = encode_server_line(v);
	EXPECT_EQ(line, "SMC_CHK/1 af=AF_SMC mode=TCP reason=0x05000000 peer=0x03030000\n");
	auto back = decode_server_line(line);
	ASSERT_TRUE(back);
	EXPECT_TRUE(back->af_smc);
	EXPECT_EQ(back->mode, ConnMode::tcp);
	EXPECT_EQ(back->reason, 0x05000000u);
	EXPECT_EQ(back->peer_diagnosis, 0x03030000u);

	EndView r;
	r.mode = ConnMode::smcr;
	EXPECT_EQ(encode_server_line(r), "SMC_CHK/1 af=AF_SMC mode=SMCR reason=0x00000000 peer=0x00000000\n");
	EXPECT_EQ(decode_server_line(encode_server_line(r))->mode, ConnMode::smcr);

	EndView unknown;
	unknown.error = "SMC module not loaded (no\nsock_diag)";
	line = encode_server_line(unknown);
	EXPECT_EQ(line, "SMC_CHK/1 af=AF_SMC error=SMC module not loaded (no sock_diag)\n");
	back = decode_server_line(line);
	ASSERT_TRUE(back);
	EXPECT_EQ(back->mode, ConnMode::unknown);
	EXPECT_EQ(back->error, "SMC module not loaded (no sock_diag)");

	EndView tcp;
	tcp.af_smc = false;
	tcp.mode = ConnMode::tcp;
	line = encode_server_line(tcp);
	EXPECT_EQ(line, "SMC_CHK/1 af=TCP mode=TCP\n");
	back = decode_server_line(line);
	ASSERT_TRUE(back);
	EXPECT_FALSE(back->af_smc);
	EXPECT_EQ(back->mode, ConnMode::tcp);
}

TEST(ChkServerLine, Malformed)
{
	for (const char *bad : {"", "HTTP/1.1 200 OK", "SMC_CHK/1", "SMC_CHK/1 mode=TCP",
				"SMC_CHK/1 af=UDP", "SMC_CHK/1 af=AF_SMC mode=FAST",
				"SMC_CHK/1 af=AF_SMC reason=12", "SMC_CHK/1 af=AF_SMC reason=0x123456789",
				"SMC_CHK/1 af=AF_SMC reason=0xzz", "SMC_CHK/1 af=AF_SMC junk",
				"SMC_CHK/2 af=AF_SMC mode=TCP"})
		EXPECT_FALSE(decode_server_line(bad)) << bad;
	// Later versions may add keys.
	auto v = decode_server_line("SMC_CHK/1 af=AF_SMC mode=SMCD extra=1\r\n");
	ASSERT_TRUE(v);
	EXPECT_EQ(v->mode, ConnMode::smcd);
	// A peer's text cannot drive the terminal.
	v = decode_server_line("SMC_CHK/1 af=AF_SMC error=bad\x1b[2J\x07 text");
	ASSERT_TRUE(v);
	EXPECT_EQ(v->error, "bad?[2J? text");
}

TEST(ChkEndView, FromDiag)
{
	SmcSocket s;
	s.state = 1;
	s.mode = SMC_DIAG_MODE_FALLBACK_TCP;
	s.fallback = FallbackInfo{0x03030000, 0};
	auto v = end_view_of(s);
	EXPECT_EQ(v.mode, ConnMode::tcp);
	EXPECT_EQ(v.reason, 0x03030000u);
	s.mode = SMC_DIAG_MODE_SMCD;
	EXPECT_EQ(end_view_of(s).mode, ConnMode::smcd);
	s.mode = SMC_DIAG_MODE_SMCR;
	EXPECT_EQ(end_view_of(s).mode, ConnMode::smcr);
	s.state = 2;	// INIT: diag says SMC-R before it knows
	EXPECT_EQ(end_view_of(s).mode, ConnMode::unknown);
	s.state = 1;
	s.mode = 7;
	EXPECT_EQ(end_view_of(s).mode, ConnMode::unknown);
	EXPECT_EQ(end_view_of(s).error, "unknown diag mode 7");
}

ConnReport fallback_report()
{
	ConnReport r;
	r.peer = "vm1";
	r.address = "10.43.0.2";
	r.port = 37373;
	r.client.mode = ConnMode::tcp;
	r.client.reason = 0x03030000;
	EndView s;
	s.mode = ConnMode::tcp;
	s.reason = 0x05000000;
	s.peer_diagnosis = 0x03030000;
	r.server = s;
	return r;
}

std::string printed(const ConnReport &r)
{
	std::ostringstream out;
	print_conn_report(out, r);
	return out.str();
}

TEST(ChkReport, Golden)
{
	ConnReport fb = fallback_report();
	EXPECT_EQ(conn_mode(fb), ConnMode::tcp);
	expect_golden("chk_conn_fallback", printed(fb));

	ConnReport smcr = fallback_report();
	smcr.peer = smcr.address;
	smcr.client = EndView{};
	smcr.client.mode = ConnMode::smcr;
	smcr.server->mode = ConnMode::smcr;
	smcr.server->reason = smcr.server->peer_diagnosis = 0;
	EXPECT_EQ(conn_mode(smcr), ConnMode::smcr);
	expect_golden("chk_conn_smcr", printed(smcr));

	ConnReport nodiag = fallback_report();
	nodiag.client = EndView{};
	nodiag.client.error = "SMC module not loaded (the kernel has no sock_diag handler for AF_SMC; "
			      "is smc_diag loaded?)";
	nodiag.server = EndView{};
	nodiag.server->error = nodiag.client.error;
	EXPECT_EQ(conn_mode(nodiag), ConnMode::unknown);
	expect_golden("chk_conn_no_diag", printed(nodiag));

	ConnReport noaf = fallback_report();
	noaf.ipv6 = true;
	noaf.af_smc_note = "AF_SMC is not available (Address family not supported by protocol): the "
			   "SMC module is not loaded; checking over TCP";
	noaf.client = EndView{};
	noaf.client.af_smc = false;
	noaf.client.mode = ConnMode::tcp;
	noaf.server.reset();
	noaf.server_error = "no answer within 5 s";
	EXPECT_EQ(conn_mode(noaf), ConnMode::tcp);
	expect_golden("chk_conn_no_af_smc", printed(noaf));

	ConnReport refused = fallback_report();
	refused.connect_error = "Connection refused (is 'smc_chk -S -p 37373' running there?)";
	EXPECT_EQ(conn_mode(refused), ConnMode::unknown);
	expect_golden("chk_conn_refused", printed(refused));
}

TEST(ChkReport, DeclineCodeLines)
{
	EXPECT_EQ(decline_code_line(0x03010000), "0x03010000 PEER_NO_SMC: Peer does not support SMC");
	EXPECT_EQ(decline_code_line(0), "0x00000000 (none recorded)");
	EXPECT_EQ(decline_code_line(0x12345678), "0x12345678 (a code this tool does not know)");
}

RnicRow rdma_row(std::string dev, unsigned port, std::string state, std::string netdev,
		 std::string pnetid)
{
	RnicRow r;
	r.type = "RoCE";
	r.device = std::move(dev);
	r.port = port;
	r.state = std::move(state);
	r.netdev = std::move(netdev);
	r.pnetid = std::move(pnetid);
	return r;
}

std::string iface_text(const IfaceFacts &f)
{
	std::ostringstream out;
	print_iface_report(out, f);
	return out.str();
}

TEST(ChkIface, Golden)
{
	IfaceFacts f;
	f.name = "eth0";
	f.index = 2;
	f.pnet_table = std::vector<PnetEntry>{};
	f.devices = {rdma_row("rxe0", 1, "ACTIVE", "eth0", ""), rdma_row("rxe1", 1, "ACTIVE", "eth1", ""),
		     rdma_row("mlx5_0", 1, "ACTIVE", "ens1", "NET1")};
	std::string t = iface_text(f);
	EXPECT_NE(t.find("SMC-R: possible over rxe0 port 1\n"), std::string::npos) << t;
	expect_golden("chk_iface_no_pnetid", t);

	// With a PNET ID on the interface only ports of that PNET ID count.
	IfaceFacts p = f;
	p.pnet_table = std::vector<PnetEntry>{PnetEntry{"NET1", "eth0", "", 0}};
	p.devices.push_back(rdma_row("mlx5_0", 2, "DOWN", "ens2", "NET1"));
	RnicRow ism;
	ism.type = "ISM";
	ism.device = "0000:00:00.0";
	ism.pnetid = "NET1";
	p.devices.push_back(ism);
	t = iface_text(p);
	EXPECT_NE(t.find("SMC-R: possible over mlx5_0 port 1\n"), std::string::npos) << t;
	EXPECT_NE(t.find("SMC-D: possible over 0000:00:00.0\n"), std::string::npos) << t;
	expect_golden("chk_iface_pnetid", t);

	IfaceFacts none;
	none.name = "eth9";
	none.index = 5;
	none.notes = {"PNET IDs and ISM devices unknown: SMC module not loaded"};
	t = iface_text(none);
	EXPECT_NE(t.find("PNET ID: unknown"), std::string::npos);
	EXPECT_NE(t.find("SMC-R: not possible over eth9 (no RDMA device)"), std::string::npos) << t;
	expect_golden("chk_iface_nothing", t);

	IfaceFacts missing;
	missing.name = "nope0";
	EXPECT_EQ(iface_text(missing), "Interface nope0: no such interface\n");
}

} // namespace
} // namespace smc
