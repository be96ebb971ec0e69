// SPDX-License-Identifier: GPL-2.0
//
// "linkgroup": SMC-R link groups and their links, or SMC-D link groups.
#include <cerrno>
#include <cstdlib>

#include <arpa/inet.h>

#include "smc_tool.h"

namespace smc {

namespace {

// A link's id is its link group's id plus a number in the low byte, so an
// id taken from a link finds its group too.
constexpr std::uint32_t lgr_id_mask = 0xffffff00;

// An SMC-R link group row, or (link-show) one link with its group.
struct LgrRow {
	const LinkGroupR *lg = nullptr;
	const LinkR *link = nullptr;
	std::string netdev;
};

using RCol = Column<LgrRow>;
using DCol = Column<LinkGroupD>;

std::string lgr_type(std::uint64_t t)
{
	static const char *const names[] = {"NONE", "SINGLE", "SYM", "ASYMP", "ASYML"};
	return t < 5 ? names[t] : strprintf("%#llx?", static_cast<unsigned long long>(t));
}

std::string link_state(std::uint64_t s)
{
	static const char *const names[] = {"LINK_UNUSED", "LINK_INACTIVE", "LINK_ACTIVATING", "LINK_ACTIVE"};
	return s < 4 ? names[s] : strprintf("%#llx?", static_cast<unsigned long long>(s));
}

// VLAN ids the way they were always printed: 0, or 0x5.
Cell vlan_cell(std::uint64_t v)
{
	return Cell{v ? strprintf("%#llx", static_cast<unsigned long long>(v)) : "0", v};
}

template <class Row>
Column<Row> col(std::string header, std::string key, std::size_t width, Align align, std::size_t gap,
		std::function<Cell(const Row &)> f, Show show = Show::both)
{
	return Column<Row>{std::move(header), std::move(key), width, align, gap,
			   [f](const Row &r) { return std::optional<Cell>(f(r)); }, show};
}

// Bytes of buffers a group holds (Linux 6.12 on); "-" when not reported.
Cell bytes_cell(const std::optional<std::uint64_t> &v)
{
	if (!v)
		return Cell{"-", json::Value()};
	return Cell{std::to_string(*v), *v};
}

std::optional<Cell> opt_uint(const std::optional<std::uint64_t> &v)
{
	if (!v)
		return std::nullopt;
	return Cell{std::to_string(*v), *v};
}

std::optional<Cell> opt_text(const std::string &s)
{
	if (s.empty())
		return std::nullopt;
	return text_cell(s);
}

Table<LgrRow> smcr_table(bool links, int detail)
{
	std::vector<RCol> cols = {
		col<LgrRow>("LG-ID", "lg_id", 8, Align::left, 1, [](const LgrRow &r) {
			return Cell{hex(r.lg->id, 8), hex0x(r.lg->id, 8)};
		}),
		col<LgrRow>("LG-Role", "role", 8, Align::left, 1, [](const LgrRow &r) {
			return text_cell(r.lg->role ? "SERV" : "CLNT");
		}),
		col<LgrRow>("LG-Type", "type", 8, Align::left, 1, [](const LgrRow &r) { return text_cell(lgr_type(r.lg->type)); }),
	};
	if (!links) {
		cols.push_back(col<LgrRow>("VLAN", "vlan", 4, Align::right, 2, [](const LgrRow &r) { return vlan_cell(r.lg->vlan); }));
		cols.push_back(col<LgrRow>("#Conns", "conns", 6, Align::right, 2, [](const LgrRow &r) {
			return Cell{std::to_string(r.lg->conns), r.lg->conns};
		}));
		if (detail >= 1) {
			cols.push_back(col<LgrRow>("Sndbufs", "sndbuf_alloc", 10, Align::right, 2, [](const LgrRow &r) {
				return bytes_cell(r.lg->sndbuf_alloc);
			}));
			cols.push_back(col<LgrRow>("RMBs", "rmb_alloc", 10, Align::right, 2, [](const LgrRow &r) {
				return bytes_cell(r.lg->rmb_alloc);
			}));
		}
		cols.push_back(col<LgrRow>("PNET-ID", "pnetid", 0, Align::left, 1, [](const LgrRow &r) {
			return text_cell(trim(r.lg->pnetid));
		}));
		cols.push_back(RCol{"", "smc_version", 0, Align::left, 0, [](const LgrRow &r) -> std::optional<Cell> {
			if (!r.lg->v2)
				return std::nullopt;
			return text_cell(std::to_string(r.lg->v2->version) + "." + std::to_string(r.lg->v2->release));
		}, Show::json_only});
		cols.push_back(RCol{"", "peer_host", 0, Align::left, 0, [](const LgrRow &r) {
			return r.lg->v2 ? opt_text(r.lg->v2->peer_host) : std::nullopt;
		}, Show::json_only});
		cols.push_back(RCol{"", "negotiated_eid", 0, Align::left, 0, [](const LgrRow &r) {
			return r.lg->v2 ? opt_text(trim(r.lg->v2->negotiated_eid)) : std::nullopt;
		}, Show::json_only});
		// SMC v2.1's limits of an SMC-Rv2 group (Linux 6.8 on).
		cols.push_back(RCol{"", "max_conns", 0, Align::left, 0, [](const LgrRow &r) {
			return opt_uint(r.lg->max_conns);
		}, Show::json_only});
		cols.push_back(RCol{"", "max_links", 0, Align::left, 0, [](const LgrRow &r) {
			return opt_uint(r.lg->max_links);
		}, Show::json_only});
		return Table<LgrRow>(std::move(cols));
	}
	cols.push_back(col<LgrRow>("Net-Dev", "netdev", 15, Align::left, 1, [](const LgrRow &r) { return text_cell(r.netdev); }));
	cols.push_back(col<LgrRow>("Link-State", "state", 15, Align::left, 1, [](const LgrRow &r) {
		return text_cell(link_state(r.link->state));
	}));
	cols.push_back(col<LgrRow>("#Conns", "conns", 6, Align::right, 2, [](const LgrRow &r) {
		return Cell{std::to_string(r.link->conn_cnt), r.link->conn_cnt};
	}));
	if (detail >= 1) {
		// The link UIDs are 4 bytes; show them in the order the kernel keeps them.
		cols.push_back(col<LgrRow>("Link-UID", "link_uid", 8, Align::left, 2, [](const LgrRow &r) {
			return text_cell(hex(ntohl(r.link->uid), 8));
		}));
		cols.push_back(col<LgrRow>("Peer-UID", "peer_uid", 8, Align::left, 2, [](const LgrRow &r) {
			return text_cell(hex(ntohl(r.link->peer_uid), 8));
		}));
		cols.push_back(col<LgrRow>("IB-Dev", "ib_device", 8, Align::left, 2, [](const LgrRow &r) {
			return text_cell(r.link->ib_dev);
		}));
		cols.push_back(col<LgrRow>("IB-P", "ib_port", 4, Align::right, 2, [](const LgrRow &r) {
			return Cell{std::to_string(r.link->ib_port), r.link->ib_port};
		}));
	}
	if (detail >= 2) {
		cols.push_back(col<LgrRow>("Local-GID", "gid", 40, Align::left, 2, [](const LgrRow &r) { return text_cell(r.link->gid); }));
		cols.push_back(col<LgrRow>("Peer-GID", "peer_gid", 0, Align::left, 1, [](const LgrRow &r) { return text_cell(r.link->peer_gid); }));
	}
	cols.push_back(col<LgrRow>("", "link_id", 0, Align::left, 0, [](const LgrRow &r) {
		return Cell{"", r.link->id};
	}, Show::json_only));
	return Table<LgrRow>(std::move(cols));
}

Table<LinkGroupD> smcd_table(int detail)
{
	std::vector<DCol> cols = {
		col<LinkGroupD>("LG-ID", "lg_id", 8, Align::left, 1, [](const LinkGroupD &g) {
			return Cell{hex(g.id, 8), hex0x(g.id, 8)};
		}),
		col<LinkGroupD>("VLAN", "vlan", 4, Align::right, 2, [](const LinkGroupD &g) { return vlan_cell(g.vlan); }),
		col<LinkGroupD>("#Conns", "conns", 6, Align::right, 2, [](const LinkGroupD &g) {
			return Cell{std::to_string(g.conns), g.conns};
		}),
	};
	if (detail >= 1) {
		cols.push_back(col<LinkGroupD>("GID", "gid", 16, Align::left, 1, [](const LinkGroupD &g) {
			return Cell{hex(g.gid, 16), hex0x(g.gid, 16)};
		}));
		cols.push_back(col<LinkGroupD>("Peer-GID", "peer_gid", 16, Align::left, 1, [](const LinkGroupD &g) {
			return Cell{hex(g.peer_gid, 16), hex0x(g.peer_gid, 16)};
		}));
		cols.push_back(col<LinkGroupD>("CHID", "chid", 4, Align::left, 2, [](const LinkGroupD &g) {
			return Cell{hex(g.chid, 4), g.chid};
		}));
		cols.push_back(col<LinkGroupD>("Sndbufs", "sndbuf_alloc", 10, Align::right, 2, [](const LinkGroupD &g) {
			return bytes_cell(g.sndbuf_alloc);
		}));
		cols.push_back(col<LinkGroupD>("DMBs", "dmb_alloc", 10, Align::right, 2, [](const LinkGroupD &g) {
			return bytes_cell(g.dmb_alloc);
		}));
	}
	cols.push_back(col<LinkGroupD>("PNET-ID", "pnetid", 0, Align::left, 1, [](const LinkGroupD &g) {
		return text_cell(trim(g.pnetid));
	}));
	cols.push_back(DCol{"", "smc_version", 0, Align::left, 0, [](const LinkGroupD &g) -> std::optional<Cell> {
		if (!g.v2)
			return std::nullopt;
		return text_cell(std::to_string(g.v2->version) + "." + std::to_string(g.v2->release));
	}, Show::json_only});
	cols.push_back(DCol{"", "peer_host", 0, Align::left, 0, [](const LinkGroupD &g) {
		return g.v2 ? opt_text(g.v2->peer_host) : std::nullopt;
	}, Show::json_only});
	return Table<LinkGroupD>(std::move(cols));
}

struct LgrArgs {
	bool links = false;
	std::optional<std::uint32_t> id;
	std::string netdev, ibdev;
};

} // namespace

std::string linkgroup_help(const SmcContext &ctx)
{
	if (ctx.tech == Tech::smcd)
		return "Usage: smcd linkgroup [show] [all | LG-ID]\n"
		       "Show the SMC-D link groups: id, VLAN, number of connections and PNET ID;\n"
		       "-d adds the local and peer GID, the channel id, and the bytes of send\n"
		       "buffers and DMBs the group holds (\"-\" when the kernel does not say).\n"
		       "LG-ID (hex, as shown) picks one link group.\n";
	return "Usage: smcr linkgroup [show | link-show] [all | LG-ID] [netdev NAME] [ibdev NAME]\n"
	       "show lists the SMC-R link groups: id, role, type, VLAN, number of connections\n"
	       "and PNET ID; -d adds the bytes of send buffers and RMBs the group holds (\"-\"\n"
	       "when the kernel does not say). link-show lists their links: interface, state\n"
	       "and connections; -d adds the link UIDs, RDMA device and port, -dd the GIDs.\n"
	       "LG-ID (hex, as shown, or a link's id) picks one link group; netdev and ibdev\n"
	       "keep the links (or link groups with links) on one interface or RDMA device.\n";
}

int smc_linkgroup(SmcContext &ctx, Args args)
{
	bool smcr = ctx.tech == Tech::smcr;
	LgrArgs a;
	std::size_t i = 0;
	if (i < args.size() && !is_help_word(args[i])) {
		if (is_prefix(args[i], "show"))
			++i;
		else if (is_prefix(args[i], "link-show"))
			a.links = true, ++i;
	}
	if (a.links && !smcr)
		return ctx.usage("linkgroup", "link-show is for SMC-R link groups only");
	bool all = false;
	for (; i < args.size(); ++i) {
		const std::string &w = args[i];
		if (is_help_word(w)) {
			ctx.env.out << linkgroup_help(ctx);
			return exit_ok;
		}
		if (is_prefix(w, "all") && !a.id) {
			all = true;
			continue;
		}
		bool netdev = smcr && is_prefix(w, "netdev");
		bool ibdev = smcr && is_prefix(w, "ibdev");
		if (netdev || ibdev) {
			if (i + 1 >= args.size())
				return ctx.usage("linkgroup", "'" + w + "' needs a name");
			(netdev ? a.netdev : a.ibdev) = args[++i];
			continue;
		}
		if (!a.id && !all) {
			std::string digits = w.rfind("0x", 0) == 0 || w.rfind("0X", 0) == 0 ? w.substr(2) : w;
			char *end = nullptr;
			errno = 0;
			unsigned long v = digits.empty() ? 0 : std::strtoul(digits.c_str(), &end, 16);
			if (!digits.empty() && end && *end == '\0' && errno == 0 && v <= 0xffffffffUL &&
			    digits[0] != '-' && digits[0] != '+') {
				a.id = static_cast<std::uint32_t>(v);
				continue;
			}
		}
		return ctx.usage("linkgroup", "unknown argument '" + w + "'");
	}

	auto g = ctx.genl();
	if (!g)
		return ctx.fail(g.error());
	if (!smcr) {
		auto groups = (*g)->linkgroups_d();
		if (!groups)
			return ctx.fail(groups.error());
		std::vector<LinkGroupD> rows;
		for (auto &lg : *groups)
			if (!a.id || lg.id == *a.id)
				rows.push_back(std::move(lg));
		auto table = smcd_table(ctx.json ? 2 : ctx.detail);
		if (ctx.json)
			ctx.print_json(table.to_json(rows));
		else
			table.print_text(ctx.env.out, rows);
		return exit_ok;
	}

	bool filter_links = !a.netdev.empty() || !a.ibdev.empty();
	auto groups = (*g)->linkgroups_r(a.links || filter_links);
	if (!groups)
		return ctx.fail(groups.error());
	auto link_matches = [&](const LinkR &l, const std::string &netdev) {
		return (a.netdev.empty() || netdev == a.netdev) && (a.ibdev.empty() || l.ib_dev == a.ibdev);
	};
	std::vector<LgrRow> rows;
	for (const auto &lg : *groups) {
		if (a.id && lg.id != (*a.id & lgr_id_mask))
			continue;
		if (!a.links) {
			bool keep = !filter_links;
			for (const auto &l : lg.links)
				keep = keep || link_matches(l, ctx.env.ifname(l.netdev));
			if (keep)
				rows.push_back(LgrRow{&lg, nullptr, {}});
			continue;
		}
		for (const auto &l : lg.links) {
			std::string netdev = ctx.env.ifname(l.netdev);
			if (link_matches(l, netdev))
				rows.push_back(LgrRow{&lg, &l, netdev});
		}
	}
	auto table = smcr_table(a.links, ctx.json ? 2 : ctx.detail);
	if (ctx.json)
		ctx.print_json(table.to_json(rows));
	else
		table.print_text(ctx.env.out, rows);
	return exit_ok;
}

} // namespace smc
