// SPDX-License-Identifier: GPL-2.0
//
// The columns of smcss: one definition for the text table and for JSON.
#include <linux/smc_diag.h>

#include "decline_codes.h"
#include "smcss.h"

namespace smc {

namespace {

constexpr std::size_t addr_width = 23;

using Col = Column<SmcSocket>;
using Get = std::function<std::optional<Cell>(const SmcSocket &)>;

bool is_tcp(const SmcSocket &s) { return s.mode == SMC_DIAG_MODE_FALLBACK_TCP; }

// How far a row goes: INIT rows stop after the inode, LISTEN rows after the
// local address, CLOSED rows after the interface and TCP rows after the mode.
bool has_local(const SmcSocket &s) { return s.state != smc_init; }
bool has_peer(const SmcSocket &s) { return has_local(s) && s.state != smc_listen; }
bool has_mode(const SmcSocket &s) { return has_peer(s) && s.state != smc_closed; }
bool has_details(const SmcSocket &s) { return has_mode(s) && !is_tcp(s); }

std::string mode_name(std::uint8_t mode)
{
	switch (mode) {
	case SMC_DIAG_MODE_SMCR: return "SMCR";
	case SMC_DIAG_MODE_FALLBACK_TCP: return "TCP";
	case SMC_DIAG_MODE_SMCD: return "SMCD";
	default: return strprintf("%u?", mode);
	}
}

Cell endpoint(const std::string &ip, std::uint16_t port, bool wide)
{
	json::Value j = json::Value::object();
	j.set("address", ip).set("port", port);
	return Cell{smcss_endpoint(ip, port, wide), std::move(j)};
}

Cell cursor(const DiagCursor &c)
{
	json::Value j = json::Value::object();
	j.set("wrap", c.wrap).set("count", c.count);
	return Cell{strprintf("%04x:%08x", c.wrap, c.count), std::move(j)};
}

Cell flags(std::uint8_t prod, std::uint8_t conn_state)
{
	json::Value j = json::Value::object();
	j.set("prod", prod).set("conn_state", conn_state);
	return Cell{strprintf("%02x:%02x", prod, conn_state), std::move(j)};
}

const Cell missing{"-", json::Value()};

// A column of the -d block: shown for SMC sockets past the handshake, "-"
// where the kernel sent no connection information.
Col conn_col(std::string header, std::string key, std::size_t width, std::size_t gap,
	     std::function<Cell(const ConnInfo &)> f)
{
	return Col{std::move(header), std::move(key), width, Align::left, gap,
		   [f](const SmcSocket &s) -> std::optional<Cell> {
			   if (!has_details(s))
				   return std::nullopt;
			   return s.conn ? f(*s.conn) : missing;
		   }};
}

Col lgr_col(std::string header, std::string key, std::size_t width, std::size_t gap,
	    std::function<Cell(const LgrInfo &)> f)
{
	return Col{std::move(header), std::move(key), width, Align::left, gap,
		   [f](const SmcSocket &s) -> std::optional<Cell> {
			   if (!has_details(s) || !s.lgr)
				   return std::nullopt;
			   return f(*s.lgr);
		   }};
}

Col dmb_col(std::string header, std::string key, std::size_t width, std::size_t gap,
	    std::function<Cell(const DmbInfo &)> f)
{
	return Col{std::move(header), std::move(key), width, Align::left, gap,
		   [f](const SmcSocket &s) -> std::optional<Cell> {
			   if (!has_details(s) || !s.dmb)
				   return std::nullopt;
			   return f(*s.dmb);
		   }};
}

Cell hex_cell(std::uint64_t v, int digits)
{
	return Cell{hex(v, digits), hex0x(v, digits)};
}

Cell size_cell(std::uint32_t v)
{
	return Cell{hex(v, 8), v};
}

} // namespace

std::string smc_state_name(std::uint8_t state)
{
	switch (state) {
	case smc_active: return "ACTIVE";
	case smc_init: return "INIT";
	case smc_closed: return "CLOSED";
	case smc_listen: return "LISTEN";
	case smc_peer_close_wait1: return "PEERCLW1";
	case smc_peer_close_wait2: return "PEERCLW2";
	case smc_app_close_wait1: return "APPLCLW1";
	case smc_app_close_wait2: return "APPLCLW2";
	case smc_app_fin_close_wait: return "APPLFINCLW";
	case smc_peer_fin_close_wait: return "PEERFINCLW";
	case smc_peer_abort_wait: return "PEERABORTW";
	case smc_process_abort: return "PROCESSABORT";
	default: return strprintf("%#x?", state);
	}
}

std::string smcss_endpoint(const std::string &ip, std::uint16_t port, bool wide)
{
	std::string p = std::to_string(port);
	std::string full = ip + ":" + p;
	if (wide || full.size() <= addr_width)
		return full;
	// Keep what fits before "..:port".
	std::size_t keep = addr_width - 1 - p.size() - 2;
	return ip.substr(0, keep) + "..:" + p;
}

Table<SmcSocket> smcss_table(const SmcssOptions &opt)
{
	std::vector<Col> cols;
	cols.push_back(Col{"State", "state", 14, Align::left, 1, [](const SmcSocket &s) {
		return std::optional<Cell>(text_cell(smc_state_name(s.state)));
	}});
	cols.push_back(Col{"UID", "uid", 5, Align::left, 1, [](const SmcSocket &s) {
		return std::optional<Cell>(Cell{strprintf("%05u", s.uid), s.uid});
	}});
	cols.push_back(Col{"Inode", "inode", 7, Align::left, 1, [](const SmcSocket &s) {
		return std::optional<Cell>(Cell{strprintf("%07llu", static_cast<unsigned long long>(s.inode)), s.inode});
	}});
	bool wide = opt.wide;
	cols.push_back(Col{"Local Address", "local", addr_width, Align::left, 1,
			   [wide](const SmcSocket &s) -> std::optional<Cell> {
		if (!has_local(s))
			return std::nullopt;
		return endpoint(s.local_ip(), s.local_port, wide);
	}});
	cols.push_back(Col{"Peer Address", "peer", addr_width, Align::left, 1,
			   [wide](const SmcSocket &s) -> std::optional<Cell> {
		if (!has_peer(s))
			return std::nullopt;
		return endpoint(s.peer_ip(), s.peer_port, wide);
	}});
	cols.push_back(Col{"Intf", "interface", 4, Align::left, 1,
			   [](const SmcSocket &s) -> std::optional<Cell> {
		if (!has_peer(s))
			return std::nullopt;
		return Cell{hex(s.ifindex, 4), s.ifindex};
	}});
	cols.push_back(Col{"Mode", "mode", 4, Align::left, 1,
			   [](const SmcSocket &s) -> std::optional<Cell> {
		if (!has_mode(s))
			return std::nullopt;
		std::string text = mode_name(s.mode);
		// A fallback shows why: the local reason and, when the peer
		// sent one, the peer's.
		if (is_tcp(s) && s.fallback) {
			text += " " + hex0x(s.fallback->reason, 8);
			if (s.fallback->peer_diagnosis)
				text += "/" + hex0x(s.fallback->peer_diagnosis, 8);
		}
		return Cell{text, mode_name(s.mode)};
	}});
	cols.push_back(Col{"", "fallback", 0, Align::left, 0,
			   [](const SmcSocket &s) -> std::optional<Cell> {
		if (!has_mode(s) || !is_tcp(s) || !s.fallback)
			return std::nullopt;
		json::Value j = json::Value::object();
		j.set("reason", hex0x(s.fallback->reason, 8));
		if (const char *name = decline_code_name(s.fallback->reason))
			j.set("reason_name", name);
		if (s.fallback->peer_diagnosis) {
			j.set("peer_reason", hex0x(s.fallback->peer_diagnosis, 8));
			if (const char *name = decline_code_name(s.fallback->peer_diagnosis))
				j.set("peer_reason_name", name);
		}
		return Cell{"", std::move(j)};
	}, Show::json_only});

	if (opt.debug) {
		cols.push_back(Col{"Shutd", "shutdown", 4, Align::right, 2,
				   [](const SmcSocket &s) -> std::optional<Cell> {
			if (!has_details(s))
				return std::nullopt;
			std::uint8_t m = s.shutdown_attr.value_or(s.shutdown);
			std::string t = strprintf("%c-%c", m & 1 ? 'R' : '<', m & 2 ? 'W' : '>');
			return text_cell(t);
		}});
		cols.push_back(conn_col("Token", "token", 8, 1, [](const ConnInfo &c) { return hex_cell(c.token, 8); }));
		cols.push_back(conn_col("Sndbuf", "sndbuf", 8, 1, [](const ConnInfo &c) { return size_cell(c.sndbuf_size); }));
		cols.push_back(conn_col("Rcvbuf", "rcvbuf", 8, 1, [](const ConnInfo &c) { return size_cell(c.rmbe_size); }));
		cols.push_back(conn_col("Peerbuf", "peerbuf", 8, 1, [](const ConnInfo &c) { return size_cell(c.peer_rmbe_size); }));
		cols.push_back(conn_col("rxprod-Cursor", "rx_prod", 13, 1, [](const ConnInfo &c) { return cursor(c.rx_prod); }));
		cols.push_back(conn_col("rxcons-Cursor", "rx_cons", 13, 1, [](const ConnInfo &c) { return cursor(c.rx_cons); }));
		cols.push_back(conn_col("rxFlags", "rx_flags", 5, 3, [](const ConnInfo &c) {
			return flags(c.rx_prod_flags, c.rx_conn_state_flags);
		}));
		cols.push_back(conn_col("txprod-Cursor", "tx_prod", 13, 1, [](const ConnInfo &c) { return cursor(c.tx_prod); }));
		cols.push_back(conn_col("txcons-Cursor", "tx_cons", 13, 1, [](const ConnInfo &c) { return cursor(c.tx_cons); }));
		cols.push_back(conn_col("txFlags", "tx_flags", 5, 3, [](const ConnInfo &c) {
			return flags(c.tx_prod_flags, c.tx_conn_state_flags);
		}));
		cols.push_back(conn_col("txprep-Cursor", "tx_prep", 13, 1, [](const ConnInfo &c) { return cursor(c.tx_prep); }));
		cols.push_back(conn_col("txsent-Cursor", "tx_sent", 13, 1, [](const ConnInfo &c) { return cursor(c.tx_sent); }));
		cols.push_back(conn_col("txfin-Cursor", "tx_fin", 13, 1, [](const ConnInfo &c) { return cursor(c.tx_fin); }));
	}
	if (opt.smcr) {
		cols.push_back(lgr_col("Role", "role", 4, 1, [](const LgrInfo &l) {
			return text_cell(l.role ? "SERV" : "CLNT");
		}));
		cols.push_back(lgr_col("IB-device", "ib_device", 15, 1, [](const LgrInfo &l) { return text_cell(l.ib_name); }));
		cols.push_back(lgr_col("Port", "ib_port", 2, 3, [](const LgrInfo &l) { return Cell{hex(l.ib_port, 2), l.ib_port}; }));
		cols.push_back(lgr_col("Linkid", "link_id", 2, 5, [](const LgrInfo &l) { return Cell{hex(l.link_id, 2), l.link_id}; }));
		cols.push_back(lgr_col("GID", "gid", 40, 1, [](const LgrInfo &l) { return text_cell(l.gid); }));
		cols.push_back(lgr_col("Peer-GID", "peer_gid", 0, 1, [](const LgrInfo &l) { return text_cell(l.peer_gid); }));
	}
	if (opt.smcd) {
		cols.push_back(dmb_col("GID", "gid", 16, 1, [](const DmbInfo &d) { return hex_cell(d.my_gid, 16); }));
		cols.push_back(dmb_col("Token", "dmb_token", 16, 1, [](const DmbInfo &d) { return hex_cell(d.token, 16); }));
		cols.push_back(dmb_col("Peer-GID", "peer_gid", 16, 1, [](const DmbInfo &d) { return hex_cell(d.peer_gid, 16); }));
		cols.push_back(dmb_col("Peer-Token", "peer_dmb_token", 16, 1, [](const DmbInfo &d) { return hex_cell(d.peer_token, 16); }));
		cols.push_back(dmb_col("Linkid", "link_id", 8, 1, [](const DmbInfo &d) { return Cell{hex(d.link_id, 8), d.link_id}; }));
		// 128-bit GIDs (Linux 6.8 and later) in JSON only.
		cols.push_back(Col{"", "gid_ext", 0, Align::left, 0, [](const SmcSocket &s) -> std::optional<Cell> {
			if (!has_details(s) || !s.dmb || !s.dmb->my_gid_ext)
				return std::nullopt;
			return hex_cell(s.dmb->my_gid_ext, 16);
		}, Show::json_only});
		cols.push_back(Col{"", "peer_gid_ext", 0, Align::left, 0, [](const SmcSocket &s) -> std::optional<Cell> {
			if (!has_details(s) || !s.dmb || !s.dmb->peer_gid_ext)
				return std::nullopt;
			return hex_cell(s.dmb->peer_gid_ext, 16);
		}, Show::json_only});
	}
	return Table<SmcSocket>(std::move(cols));
}

bool smcss_wanted(const SmcssOptions &opt, const SmcSocket &s)
{
	if (opt.listening) {
		if (s.state != smc_listen)
			return false;
	} else if (!opt.all && (s.state == smc_listen || s.state == smc_init)) {
		return false;
	}
	if (opt.smcr && s.mode != SMC_DIAG_MODE_SMCR)
		return false;
	if (opt.smcd && s.mode != SMC_DIAG_MODE_SMCD)
		return false;
	return true;
}

} // namespace smc
