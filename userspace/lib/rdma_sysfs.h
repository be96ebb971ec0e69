// SPDX-License-Identifier: GPL-2.0
//
// RDMA devices as /sys/class/infiniband shows them: what smc_rnics lists and
// what smc_chk -i matches against an interface. Reading sysfs needs no
// privilege and no SMC module, so this works on any Linux machine.
#pragma once

#include <string>
#include <vector>

#include "result.h"

namespace smc {

struct RdmaGid {
	unsigned index = 0;
	std::string gid;	// "fe80:0000:...", as sysfs writes it
	std::string type;	// "RoCE v2", "IB/RoCE v1"; "" for InfiniBand ports
	std::string netdev;	// "" when the GID belongs to no interface
};

struct RdmaPort {
	unsigned number = 0;
	std::string state;	// "ACTIVE", "DOWN" ... (the name after "4: ")
	std::string phys_state;	// "LinkUp", "Disabled" ...
	std::string link_layer;	// "Ethernet" or "InfiniBand"
	std::string netdev;	// the interface of the port's first GID (RoCE)
	std::vector<RdmaGid> gids;	// valid (non-zero) GIDs only

	// The distinct GID types, in the order of their first GID.
	std::vector<std::string> gid_types() const;
};

struct RdmaDevice {
	std::string name;
	std::string driver;	// kernel driver, or "" when it cannot be told
	std::string node_type;	// "CA", "RNIC" ...
	std::string bus_id;	// "0000:3b:00.0"; "" for software devices
	std::string parent;	// the interface a software device (rxe) runs over
	std::string fw_ver;
	std::vector<RdmaPort> ports;
};

// Every device under ROOT/class/infiniband, sorted by name. A machine without
// RDMA (no such directory) has none; a device whose files cannot be read is
// still listed with what could be read.
std::vector<RdmaDevice> scan_rdma_devices(const std::string &sysfs_root);

// "4: ACTIVE" -> "ACTIVE"; a value without a number is returned trimmed.
std::string sysfs_enum_name(const std::string &value);

} // namespace smc
