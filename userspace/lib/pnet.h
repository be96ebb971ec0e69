// SPDX-License-Identifier: GPL-2.0
//
// The PNET table (family SMC_PNETID): which network interfaces and RDMA/ISM
// device ports belong to which physical network.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "genl.h"

namespace smc {

struct PnetEntry {
	std::string pnetid;
	std::string netdev;	// "" when the entry names no interface
	std::string ibdev;	// "" when the entry names no device
	std::uint64_t ibport = 0;
};

// Checks a PNET ID the way the kernel will (1 to 16 letters and digits) and
// returns it in upper case, or a message saying what is wrong.
Result<std::string> normalize_pnetid(const std::string &id);

Result<std::vector<PnetEntry>> decode_pnet_entries(const std::vector<nl::GenlMessage> &msgs);

class PnetTable {
public:
	static Result<PnetTable> open(nl::TransportFactory &factory);

	Result<std::vector<PnetEntry>> list();
	Result<std::vector<PnetEntry>> get(const std::string &pnetid);
	// entry.netdev and/or entry.ibdev (with ibport) must be set.
	Result<void> add(const PnetEntry &entry);
	Result<void> remove(const std::string &pnetid);
	Result<void> flush();

private:
	explicit PnetTable(nl::GenlFamily family) : family_(std::move(family)) {}
	nl::GenlFamily family_;
};

} // namespace smc
