// SPDX-License-Identifier: GPL-2.0
//
// "device": the ISM (SMC-D) or RoCE (SMC-R) devices the kernel's SMC uses.
#include "smc_tool.h"

namespace smc {

namespace {

// One line of the table: an SMC-D device, or one port of an SMC-R device.
struct DeviceRow {
	Device dev;
	std::size_t port = 0;	// index into dev.ports
	std::string netdev;	// interface name of the port
};

using Col = Column<DeviceRow>;

std::string device_type(std::uint64_t pci_device)
{
	switch (pci_device) {
	case 0x1004: return "RoCE_Express";
	case 0x1016: return "RoCE_Express2";
	case 0x04ed: return "ISM";
	case 0: return "n/a";
	default: return strprintf("0x%04llx", static_cast<unsigned long long>(pci_device));
	}
}

const DevicePort &port_of(const DeviceRow &r)
{
	static const DevicePort none;
	return r.dev.ports[r.port] ? *r.dev.ports[r.port] : none;
}

std::string pnetid_text(const DevicePort &p)
{
	if (p.pnetid.empty())
		return {};
	return (p.pnetid_by_user ? "*" : "") + trim(p.pnetid);
}

Col col(std::string header, std::string key, std::size_t width, Align align, std::size_t gap,
	std::function<Cell(const DeviceRow &)> f, Show show = Show::both)
{
	return Col{std::move(header), std::move(key), width, align, gap,
		   [f](const DeviceRow &r) { return std::optional<Cell>(f(r)); }, show};
}

Cell yes_no(bool b) { return Cell{b ? "Yes" : "No", b}; }

std::vector<Col> pci_columns()
{
	return {
		col("FID", "pci_fid", 4, Align::left, 2, [](const DeviceRow &r) {
			return Cell{hex(r.dev.pci_fid, 4), r.dev.pci_fid};
		}),
		col("PCI-ID", "pci_id", 12, Align::left, 2, [](const DeviceRow &r) {
			return text_cell(r.dev.pci_id);
		}),
		col("PCHID", "pci_chid", 5, Align::left, 2, [](const DeviceRow &r) {
			return Cell{hex(r.dev.pci_chid, 4), r.dev.pci_chid};
		}),
	};
}

Table<DeviceRow> smcr_table(int detail)
{
	std::vector<Col> cols = {
		col("Net-Dev", "netdev", 15, Align::left, 1, [](const DeviceRow &r) { return text_cell(r.netdev); }),
		col("IB-Dev", "ib_device", 8, Align::left, 1, [](const DeviceRow &r) { return text_cell(r.dev.ib_name); }),
		col("IB-P", "ib_port", 4, Align::right, 2, [](const DeviceRow &r) {
			return Cell{std::to_string(r.port + 1), r.port + 1};
		}),
		col("IB-State", "ib_state", 8, Align::right, 2, [](const DeviceRow &r) {
			std::uint64_t s = port_of(r).state;
			return text_cell(s == 1 ? "ACTIVE" : s == 0 ? "INACTIVE" : strprintf("%#llx?", static_cast<unsigned long long>(s)));
		}),
		col("Type", "type", 13, Align::left, 2, [](const DeviceRow &r) { return text_cell(device_type(r.dev.pci_device)); }),
		col("Crit", "critical", 4, Align::left, 2, [](const DeviceRow &r) { return yes_no(r.dev.critical); }),
	};
	if (detail >= 1)
		for (auto &c : pci_columns())
			cols.push_back(std::move(c));
	cols.push_back(col("#Links", "links", 6, Align::right, 2, [](const DeviceRow &r) {
		return Cell{std::to_string(port_of(r).link_cnt), port_of(r).link_cnt};
	}));
	cols.push_back(col("PNET-ID", "pnetid", 0, Align::left, 1, [](const DeviceRow &r) {
		return Cell{pnetid_text(port_of(r)), trim(port_of(r).pnetid)};
	}));
	cols.push_back(col("", "pnetid_by_user", 0, Align::left, 0, [](const DeviceRow &r) {
		return Cell{"", port_of(r).pnetid_by_user};
	}, Show::json_only));
	return Table<DeviceRow>(std::move(cols));
}

Table<DeviceRow> smcd_table()
{
	return Table<DeviceRow>({
		col("FID", "pci_fid", 4, Align::left, 1, [](const DeviceRow &r) {
			return Cell{hex(r.dev.pci_fid, 4), r.dev.pci_fid};
		}),
		col("Type", "type", 4, Align::left, 2, [](const DeviceRow &r) { return text_cell(device_type(r.dev.pci_device)); }),
		col("PCI-ID", "pci_id", 12, Align::left, 2, [](const DeviceRow &r) { return text_cell(r.dev.pci_id); }),
		col("PCHID", "pci_chid", 5, Align::left, 2, [](const DeviceRow &r) {
			return Cell{hex(r.dev.pci_chid, 4), r.dev.pci_chid};
		}),
		col("InUse", "in_use", 5, Align::left, 2, [](const DeviceRow &r) { return yes_no(r.dev.critical); }),
		col("#LGs", "linkgroups", 5, Align::right, 2, [](const DeviceRow &r) {
			return Cell{std::to_string(r.dev.use_cnt), r.dev.use_cnt};
		}),
		col("PNET-ID", "pnetid", 0, Align::left, 1, [](const DeviceRow &r) {
			return Cell{pnetid_text(port_of(r)), trim(port_of(r).pnetid)};
		}),
		col("", "pnetid_by_user", 0, Align::left, 0, [](const DeviceRow &r) {
			return Cell{"", port_of(r).pnetid_by_user};
		}, Show::json_only),
	});
}

} // namespace

std::string device_help(const SmcContext &ctx)
{
	if (ctx.tech == Tech::smcd)
		return "Usage: smcd device [show] [all]\n"
		       "Show the ISM devices: function id, PCI id, channel id, whether link groups\n"
		       "use the device, how many, and its PNET ID ('*': set by the user).\n";
	return "Usage: smcr device [show] [all] [netdev NAME] [ibdev NAME]\n"
	       "Show the ports of the RoCE devices: network interface, device and port, port\n"
	       "state, device type, whether a link group depends on it alone (Crit), number of\n"
	       "links and PNET ID ('*': set by the user). -d adds the PCI function id, PCI id\n"
	       "and channel id. netdev and ibdev show only the ports of one interface or device.\n";
}

int smc_device(SmcContext &ctx, Args args)
{
	bool smcr = ctx.tech == Tech::smcr;
	std::string want_netdev, want_ibdev;
	std::size_t i = 0;
	if (i < args.size() && !is_help_word(args[i]) && is_prefix(args[i], "show"))
		++i;
	for (; i < args.size(); ++i) {
		const std::string &a = args[i];
		if (is_help_word(a)) {
			ctx.env.out << device_help(ctx);
			return exit_ok;
		}
		if (is_prefix(a, "all"))
			continue;
		bool netdev = smcr && is_prefix(a, "netdev");
		bool ibdev = smcr && is_prefix(a, "ibdev");
		if (netdev || ibdev) {
			if (i + 1 >= args.size())
				return ctx.usage("device", "'" + a + "' needs a name");
			(netdev ? want_netdev : want_ibdev) = args[++i];
			continue;
		}
		return ctx.usage("device", "unknown argument '" + a + "'");
	}

	auto g = ctx.genl();
	if (!g)
		return ctx.fail(g.error());
	auto devices = (*g)->devices(ctx.tech);
	if (!devices)
		return ctx.fail(devices.error());

	std::vector<DeviceRow> rows;
	for (const auto &d : *devices) {
		if (!smcr) {
			rows.push_back(DeviceRow{d, 0, {}});
			continue;
		}
		for (std::size_t p = 0; p < d.ports.size(); ++p) {
			if (!d.ports[p] || !d.ports[p]->valid)
				continue;
			DeviceRow r{d, p, ctx.env.ifname(d.ports[p]->netdev)};
			if (!want_netdev.empty() && r.netdev != want_netdev)
				continue;
			if (!want_ibdev.empty() && d.ib_name != want_ibdev)
				continue;
			rows.push_back(std::move(r));
		}
	}
	auto table = smcr ? smcr_table(ctx.json ? 2 : ctx.detail) : smcd_table();
	if (ctx.json)
		ctx.print_json(table.to_json(rows));
	else
		table.print_text(ctx.env.out, rows);
	return exit_ok;
}

} // namespace smc
