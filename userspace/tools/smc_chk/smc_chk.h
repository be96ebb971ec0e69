// SPDX-License-Identifier: GPL-2.0
//
// smc_chk: does a connection to a host use SMC-D, SMC-R or TCP, and why;
// and, when not SMC-R, is the RDMA network to that host at fault.
#pragma once

#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "rdma_path.h"
#include "result.h"
#include "smc_rnics.h"
#include "tool_env.h"

namespace smc {

constexpr unsigned chk_default_port = 37373;
constexpr int chk_default_timeout_s = 5;

struct ChkOptions {
	bool server = false;
	std::string connect;	// -C HOST
	std::string iface;	// -i IFACE
	unsigned port = chk_default_port;
	bool ipv6 = false;
	bool debug = false;
	int timeout_s = chk_default_timeout_s;
	bool rdma = true;	// --no-rdma: skip the RDMA path check / listener
	bool rdma_always = false;	// --rdma-always: check the path even after SMC-R
	bool reject = false;	// --reject: the server rejects RDMA connections
	bool help = false;
	bool version = false;
};

// Errors are usage errors (code EINVAL), fit to print after "smc_chk: ".
Result<ChkOptions> parse_chk_options(const std::vector<std::string> &args);

// What the system offers smc_chk: its RDMA CM (the real one needs
// librdmacm and lives outside the tools' core library).
class RdmaCm {
public:
	virtual ~RdmaCm() = default;
	virtual std::unique_ptr<CmDriver> client() = 0;
	virtual std::unique_ptr<CmListener> listener() = 0;
};

int smc_chk_run(const std::vector<std::string> &args, ToolEnv &env, RdmaCm &cm);

// -i: what SMC can use with an interface.
struct IfaceFacts {
	std::string name;
	unsigned index = 0;			// 0: no such interface
	std::vector<RnicRow> devices;		// smc_rnics' rows
	std::optional<std::vector<PnetEntry>> pnet_table;
	std::vector<std::string> notes;		// what could not be asked
};
void print_iface_report(std::ostream &out, const IfaceFacts &f);

// The client and the server (chk_client.cc, chk_server.cc).
int chk_client(const ChkOptions &opt, ToolEnv &env, RdmaCm &cm);
int chk_server(const ChkOptions &opt, ToolEnv &env, RdmaCm &cm);

// The diag view of the AF_SMC socket with this inode (chk_client.cc).
struct EndView;
EndView query_end_view(nl::TransportFactory &factory, unsigned long inode);

// Exit statuses beyond tool_env.h's.
constexpr int exit_tcp = 3;	// the connection works, but over TCP

} // namespace smc
