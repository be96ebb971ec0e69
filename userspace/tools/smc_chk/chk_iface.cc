// SPDX-License-Identifier: GPL-2.0
//
// smc_chk -i IFACE: the interface's PNET ID and the devices SMC would pair
// with it. The rules are the kernel's: with a PNET ID on the interface, the
// devices (ports) of the same PNET ID; without one, the RDMA ports whose own
// interface it is (and that have no PNET ID either). Only ACTIVE ports count.
#include "smc_chk.h"

namespace smc {

namespace {

struct Match {
	bool matches = false;
	std::string why;
};

Match rdma_match(const RnicRow &r, const std::string &iface, const std::string &pnetid)
{
	if (!pnetid.empty()) {
		if (r.pnetid == pnetid)
			return {true, "same PNET ID"};
		if (r.pnetid.empty())
			return {false, "the port has no PNET ID, the interface has " + pnetid};
		return {false, "PNET ID " + r.pnetid + " differs"};
	}
	if (!r.pnetid.empty())
		return {false, "the port has PNET ID " + r.pnetid + ", the interface none"};
	if (r.netdev == iface)
		return {true, "the port belongs to " + iface + ", neither has a PNET ID"};
	return {false, "the port belongs to " + (r.netdev.empty() ? std::string("no interface") : r.netdev)};
}

Match ism_match(const RnicRow &r, const std::string &pnetid)
{
	if (r.pnetid.empty())
		return {true, "no PNET ID: usable with SMC-Dv2 only"};
	if (r.pnetid == pnetid)
		return {true, "same PNET ID"};
	return {false, pnetid.empty() ? "PNET ID " + r.pnetid + ", the interface has none"
				      : "PNET ID " + r.pnetid + " differs"};
}

std::string row_name(const RnicRow &r)
{
	return r.port ? r.device + " port " + std::to_string(r.port) : r.device;
}

} // namespace

void print_iface_report(std::ostream &out, const IfaceFacts &f)
{
	if (!f.index) {
		out << "Interface " << f.name << ": no such interface\n";
		return;
	}
	out << "Interface " << f.name << " (index " << f.index << ")\n";
	std::string pnetid;
	if (!f.pnet_table) {
		out << "  PNET ID: unknown (the PNET table could not be read)\n";
	} else {
		for (const auto &e : *f.pnet_table)
			if (e.netdev == f.name)
				pnetid = e.pnetid;
		out << "  PNET ID: " << (pnetid.empty() ? "none" : pnetid + " (from the PNET table)") << '\n';
	}
	std::vector<std::string> smcr, smcd;
	bool any_rdma = false, any_ism = false;
	out << "RDMA devices:\n";
	for (const auto &r : f.devices) {
		if (r.type == "ISM")
			continue;
		any_rdma = true;
		Match m = rdma_match(r, f.name, pnetid);
		bool active = r.state == "ACTIVE";
		out << "  " << row_name(r) << ": " << (r.state.empty() ? "-" : r.state) << ", "
		    << (r.netdev.empty() ? "no interface" : "interface " + r.netdev) << ", PNET ID "
		    << (r.pnetid.empty() ? "-" : r.pnetid) << ": ";
		if (m.matches && active)
			smcr.push_back(row_name(r));
		out << (m.matches ? (active ? "usable (" : "matches but is not ACTIVE (") : "not usable (")
		    << m.why << ")\n";
	}
	if (!any_rdma)
		out << "  none\n";
	out << "ISM devices:\n";
	for (const auto &r : f.devices) {
		if (r.type != "ISM")
			continue;
		any_ism = true;
		Match m = ism_match(r, pnetid);
		out << "  " << row_name(r) << ": PNET ID " << (r.pnetid.empty() ? "-" : r.pnetid) << ": "
		    << (m.matches ? "usable (" : "not usable (") << m.why << ")\n";
		if (m.matches)
			smcd.push_back(row_name(r));
	}
	if (!any_ism)
		out << "  none\n";
	auto verdict = [&](const char *tech, const std::vector<std::string> &usable, const char *none) {
		out << tech << ": ";
		if (usable.empty()) {
			out << "not possible over " << f.name << " (" << none << ")\n";
			return;
		}
		out << "possible over";
		for (std::size_t i = 0; i < usable.size(); ++i)
			out << (i ? ", " : " ") << usable[i];
		out << '\n';
	};
	verdict("SMC-R", smcr, any_rdma ? "no ACTIVE RDMA port matches" : "no RDMA device");
	verdict("SMC-D", smcd, any_ism ? "no ISM device matches" : "no ISM device known");
	for (const auto &n : f.notes)
		out << "Note: " << n << '\n';
}

} // namespace smc
