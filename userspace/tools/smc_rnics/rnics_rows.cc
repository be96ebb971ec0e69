// SPDX-License-Identifier: GPL-2.0
//
// smc_rnics: from sysfs and the SMC module's answers to table rows.
#include "smc_rnics.h"

#include "smc_genl.h"

namespace smc {

namespace {

std::string rdma_type(const RdmaDevice &d, const RdmaPort &p)
{
	if (d.node_type == "RNIC")
		return "iWARP";
	if (p.link_layer == "Ethernet")
		return "RoCE";
	if (p.link_layer == "InfiniBand")
		return "IB";
	return "RDMA";
}

const Device *find_smcr_device(const SmcView &smc, const std::string &ibdev)
{
	if (!smc.smcr)
		return nullptr;
	for (const auto &d : *smc.smcr)
		if (d.ib_name == ibdev)
			return &d;
	return nullptr;
}

std::string ism_name(const Device &d)
{
	if (!d.pci_id.empty())
		return d.pci_id;
	return "ism-fid" + hex(d.pci_fid, 4);
}

using Col = Column<RnicRow>;

Col col(std::string header, std::string key, std::size_t width,
	std::function<Cell(const RnicRow &)> f, Show show = Show::both)
{
	return Col{std::move(header), std::move(key), width, Align::left, 2,
		   [f](const RnicRow &r) { return std::optional<Cell>(f(r)); }, show};
}

// Text shows "-" for an empty value; JSON leaves the member out.
Cell text_or_dash(const std::string &s)
{
	if (s.empty())
		return Cell{"-", json::Value()};
	return text_cell(s);
}

} // namespace

std::string rdma_port_pnetid(const std::string &ibdev, unsigned port, const std::string &netdev,
			     const SmcView &smc, std::string &source)
{
	source.clear();
	if (const Device *d = find_smcr_device(smc, ibdev); d && port >= 1 && port <= d->ports.size()) {
		const auto &p = d->ports[port - 1];
		if (p && !trim(p->pnetid).empty()) {
			source = p->pnetid_by_user ? "user" : "hardware";
			return trim(p->pnetid);
		}
	}
	if (!smc.pnet_table)
		return {};
	for (const auto &e : *smc.pnet_table)
		if (!e.ibdev.empty() && e.ibdev == ibdev && e.ibport == port) {
			source = "table";
			return e.pnetid;
		}
	if (!netdev.empty())
		for (const auto &e : *smc.pnet_table)
			if (e.netdev == netdev) {
				source = "interface";
				return e.pnetid;
			}
	return {};
}

std::vector<RnicRow> rnic_rows(const std::vector<RdmaDevice> &rdma, const SmcView &smc)
{
	std::vector<RnicRow> rows;
	for (const auto &d : rdma) {
		for (const auto &p : d.ports) {
			RnicRow r;
			r.type = rdma_type(d, p);
			r.device = d.name;
			r.driver = d.driver;
			r.bus_id = d.bus_id;
			r.port = p.number;
			r.state = p.state;
			r.phys_state = p.phys_state;
			r.link_layer = p.link_layer;
			r.netdev = p.netdev.empty() ? d.parent : p.netdev;
			r.gid_types = p.gid_types();
			r.pnetid = rdma_port_pnetid(d.name, p.number, r.netdev, smc, r.pnetid_source);
			rows.push_back(std::move(r));
		}
	}
	if (smc.smcd) {
		for (const auto &d : *smc.smcd) {
			RnicRow r;
			r.type = "ISM";
			r.device = ism_name(d);
			r.driver = "ism";
			r.bus_id = d.pci_id;
			if (const auto &p = d.ports[0]) {
				r.state = p->state ? "ACTIVE" : "INACTIVE";
				r.pnetid = trim(p->pnetid);
				if (!r.pnetid.empty())
					r.pnetid_source = p->pnetid_by_user ? "user" : "hardware";
			}
			rows.push_back(std::move(r));
		}
	}
	return rows;
}

Table<RnicRow> rnics_table()
{
	return Table<RnicRow>({
		col("Type", "type", 5, [](const RnicRow &r) { return text_cell(r.type); }),
		col("Device", "device", 8, [](const RnicRow &r) { return text_cell(r.device); }),
		col("Driver", "driver", 9, [](const RnicRow &r) { return text_or_dash(r.driver); }),
		col("", "bus_id", 0, [](const RnicRow &r) { return text_or_dash(r.bus_id); },
		    Show::json_only),
		col("Port", "port", 4, [](const RnicRow &r) {
			if (!r.port)
				return Cell{"-", json::Value()};
			return Cell{std::to_string(r.port), r.port};
		}),
		col("State", "state", 6, [](const RnicRow &r) { return text_or_dash(r.state); }),
		col("", "phys_state", 0, [](const RnicRow &r) { return text_or_dash(r.phys_state); },
		    Show::json_only),
		col("", "link_layer", 0, [](const RnicRow &r) { return text_or_dash(r.link_layer); },
		    Show::json_only),
		col("Netdev", "netdev", 8, [](const RnicRow &r) { return text_or_dash(r.netdev); }),
		col("GID types", "gid_types", 18, [](const RnicRow &r) {
			std::string text;
			json::Value arr = json::Value::array();
			for (const auto &t : r.gid_types) {
				text += (text.empty() ? "" : ",") + t;
				arr.push(t);
			}
			if (r.type == "ISM")
				return Cell{"-", json::Value()};
			return Cell{text.empty() ? "-" : text, std::move(arr)};
		}),
		col("PNET ID", "pnetid", 0, [](const RnicRow &r) {
			// A user-defined PNET ID is starred, as smcr device shows it.
			if (r.pnetid.empty())
				return Cell{"-", json::Value()};
			bool user = r.pnetid_source != "hardware";
			return Cell{(user ? "*" : "") + r.pnetid, r.pnetid};
		}),
		col("", "pnetid_source", 0, [](const RnicRow &r) { return text_or_dash(r.pnetid_source); },
		    Show::json_only),
	});
}

SmcView query_smc_view(nl::TransportFactory &factory, std::vector<std::string> &notes)
{
	SmcView v;
	auto genl = SmcGenl::open(factory);
	if (genl) {
		if (auto r = genl->devices(Tech::smcr))
			v.smcr = std::move(*r);
		else
			notes.push_back("RDMA devices' PNET IDs unknown: " + r.error().message);
		if (auto d = genl->devices(Tech::smcd))
			v.smcd = std::move(*d);
		else
			notes.push_back("ISM devices unknown: " + d.error().message);
	} else {
		notes.push_back("PNET IDs and ISM devices unknown: " + genl.error().message);
	}
	// The PNET table adds the IDs given to interfaces; with the module
	// missing it fails the same way, which the note above already says.
	if (auto t = PnetTable::open(factory)) {
		if (auto l = t->list())
			v.pnet_table = std::move(*l);
		else
			notes.push_back("PNET table unknown: " + l.error().message);
	} else if (genl) {
		notes.push_back("PNET table unknown: " + t.error().message);
	}
	return v;
}

} // namespace smc
