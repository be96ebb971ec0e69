// SPDX-License-Identifier: GPL-2.0
//
// smc_rnics: the RDMA devices (from sysfs) and ISM devices (from the SMC
// module) of this machine, with the PNET IDs that decide which interface
// SMC pairs them with.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "pnet.h"
#include "rdma_sysfs.h"
#include "smc_model.h"
#include "table.h"
#include "tool_env.h"

namespace smc {

// One line: a port of an RDMA device, or an ISM device.
struct RnicRow {
	std::string type;	// "RoCE", "IB", "iWARP", "ISM", or "RDMA" when unknown
	std::string device;
	std::string driver;
	std::string bus_id;
	unsigned port = 0;	// 0 for ISM devices
	std::string state, phys_state, link_layer;
	std::string netdev;
	std::vector<std::string> gid_types;
	std::string pnetid;		// "" when there is none (or it is unknown)
	std::string pnetid_source;	// "hardware", "user", "table", "interface" or ""
};

// What the SMC module told about PNET IDs and ISM devices; nullopt where
// the question could not be asked (module not loaded, no permission).
struct SmcView {
	std::optional<std::vector<Device>> smcr, smcd;
	std::optional<std::vector<PnetEntry>> pnet_table;
};

// Rows for every RDMA port and ISM device (pure: the host tests call it).
std::vector<RnicRow> rnic_rows(const std::vector<RdmaDevice> &rdma, const SmcView &smc);
// The PNET ID of an RDMA port: from the SMC module's device list (set by
// hardware or the user), else from the PNET table by device port, else by
// the port's interface. Sets source as RnicRow::pnetid_source.
std::string rdma_port_pnetid(const std::string &ibdev, unsigned port, const std::string &netdev,
			     const SmcView &smc, std::string &source);
Table<RnicRow> rnics_table();

// Asks the SMC module; failures become notes ("PNET IDs unknown: ...").
SmcView query_smc_view(nl::TransportFactory &factory, std::vector<std::string> &notes);

int smc_rnics_main(const std::vector<std::string> &args, ToolEnv &env);

} // namespace smc
