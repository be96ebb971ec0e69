// SPDX-License-Identifier: GPL-2.0
#include "chk_report.h"

#include <sstream>

#include <linux/smc_diag.h>

#include "decline_codes.h"
#include "text.h"

namespace smc {

namespace {

constexpr const char *line_magic = "SMC_CHK/1";

std::optional<std::uint32_t> parse_hex32(const std::string &s)
{
	if (s.size() < 3 || s.size() > 10 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
		return std::nullopt;
	std::uint32_t v = 0;
	for (std::size_t i = 2; i < s.size(); ++i) {
		char c = s[i];
		int d = c >= '0' && c <= '9' ? c - '0'
			: c >= 'a' && c <= 'f' ? c - 'a' + 10
			: c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
		if (d < 0)
			return std::nullopt;
		v = v << 4 | static_cast<std::uint32_t>(d);
	}
	return v;
}

void print_end(std::ostream &out, const char *who, const EndView &v)
{
	out << who << ": ";
	if (!v.af_smc) {
		out << "TCP socket (no AF_SMC)";
		if (!v.error.empty())
			out << ": " << v.error;
		out << '\n';
		return;
	}
	if (v.mode == ConnMode::unknown) {
		out << "cannot tell: " << v.error << '\n';
		return;
	}
	out << conn_mode_text(v.mode);
	if (v.mode == ConnMode::tcp) {
		out << ", reasons " << reason_pair(v) << '\n';
		out << "  local reason:   " << decline_code_line(v.reason) << '\n';
		out << "  peer diagnosis: "
		    << (v.peer_diagnosis ? decline_code_line(v.peer_diagnosis) : "none (the peer did not decline)")
		    << '\n';
		return;
	}
	out << '\n';
}

} // namespace

const char *conn_mode_text(ConnMode m)
{
	switch (m) {
	case ConnMode::smcr: return "SMC-R";
	case ConnMode::smcd: return "SMC-D";
	case ConnMode::tcp: return "TCP fallback";
	case ConnMode::unknown: break;
	}
	return "unknown";
}

const char *conn_mode_token(ConnMode m)
{
	switch (m) {
	case ConnMode::smcr: return "SMCR";
	case ConnMode::smcd: return "SMCD";
	case ConnMode::tcp: return "TCP";
	case ConnMode::unknown: break;
	}
	return "?";
}

EndView end_view_of(const SmcSocket &s)
{
	EndView v;
	switch (s.mode) {
	case SMC_DIAG_MODE_SMCR: v.mode = ConnMode::smcr; break;
	case SMC_DIAG_MODE_SMCD: v.mode = ConnMode::smcd; break;
	case SMC_DIAG_MODE_FALLBACK_TCP: v.mode = ConnMode::tcp; break;
	default:
		v.error = "unknown diag mode " + std::to_string(s.mode);
		return v;
	}
	// A socket still in INIT has not finished its handshake: diag calls it
	// SMC-R before it knows better.
	if (s.state == 2 /* SMC_INIT */) {
		v.mode = ConnMode::unknown;
		v.error = "the socket has not finished its handshake";
		return v;
	}
	if (s.fallback) {
		v.reason = s.fallback->reason;
		v.peer_diagnosis = s.fallback->peer_diagnosis;
	}
	return v;
}

std::string encode_server_line(const EndView &v)
{
	std::string s = std::string(line_magic) + " af=" + (v.af_smc ? "AF_SMC" : "TCP");
	if (v.mode == ConnMode::unknown || !v.af_smc) {
		if (!v.af_smc)
			s += " mode=TCP";
		if (!v.error.empty()) {
			std::string e = v.error;
			for (auto &c : e)
				if (c == '\n' || c == '\r')
					c = ' ';
			s += " error=" + e;
		}
		return s + "\n";
	}
	s += std::string(" mode=") + conn_mode_token(v.mode);
	s += " reason=" + hex0x(v.reason, 8) + " peer=" + hex0x(v.peer_diagnosis, 8);
	return s + "\n";
}

std::optional<EndView> decode_server_line(const std::string &line)
{
	std::string l = line;
	while (!l.empty() && (l.back() == '\n' || l.back() == '\r'))
		l.pop_back();
	if (l.rfind(std::string(line_magic) + " ", 0) != 0)
		return std::nullopt;
	EndView v;
	bool have_af = false;
	std::istringstream in(l.substr(std::string(line_magic).size() + 1));
	std::string word;
	while (in >> word) {
		auto eq = word.find('=');
		if (eq == std::string::npos)
			return std::nullopt;
		std::string key = word.substr(0, eq), value = word.substr(eq + 1);
		if (key == "error") {
			std::string rest;
			std::getline(in, rest);
			v.error = printable(value + rest);
			break;
		}
		if (key == "af") {
			if (value != "AF_SMC" && value != "TCP")
				return std::nullopt;
			v.af_smc = value == "AF_SMC";
			have_af = true;
		} else if (key == "mode") {
			if (value == "SMCR") v.mode = ConnMode::smcr;
			else if (value == "SMCD") v.mode = ConnMode::smcd;
			else if (value == "TCP") v.mode = ConnMode::tcp;
			else return std::nullopt;
		} else if (key == "reason" || key == "peer") {
			auto n = parse_hex32(value);
			if (!n)
				return std::nullopt;
			(key == "reason" ? v.reason : v.peer_diagnosis) = *n;
		}
		// Unknown keys are left for later versions.
	}
	if (!have_af)
		return std::nullopt;
	if (v.mode == ConnMode::unknown && v.error.empty())
		v.error = "the server did not say";
	return v;
}

std::string printable(const std::string &text)
{
	std::string out = text;
	for (auto &c : out)
		if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
			c = '?';
	return out;
}

std::string reason_pair(const EndView &v)
{
	return hex0x(v.reason, 8) + "/" + hex0x(v.peer_diagnosis, 8);
}

std::string decline_code_line(std::uint32_t code)
{
	std::string s = hex0x(code, 8);
	if (const char *name = decline_code_name(code))
		s += std::string(" ") + name + ": " + decline_code_text(code);
	else if (code == 0)
		s += " (none recorded)";
	else
		s += " (a code this tool does not know)";
	return s;
}

ConnMode conn_mode(const ConnReport &r)
{
	if (!r.connect_error.empty())
		return ConnMode::unknown;
	if (r.client.mode != ConnMode::unknown)
		return r.client.mode;
	return r.server ? r.server->mode : ConnMode::unknown;
}

void print_conn_report(std::ostream &out, const ConnReport &r)
{
	out << "Connection to " << r.peer;
	if (r.address != r.peer && !r.address.empty())
		out << " (" << r.address << ")";
	out << " port " << r.port << (r.ipv6 ? " over IPv6" : " over IPv4") << '\n';
	if (!r.af_smc_note.empty())
		out << "Note: " << r.af_smc_note << '\n';
	if (!r.connect_error.empty()) {
		out << "Connection: FAILED: " << r.connect_error << '\n';
		return;
	}
	print_end(out, "Client", r.client);
	if (r.server)
		print_end(out, "Server", *r.server);
	else
		out << "Server: cannot tell: " << r.server_error << '\n';
	ConnMode m = conn_mode(r);
	out << "Result: ";
	if (m == ConnMode::tcp && !r.client.af_smc)
		out << "TCP (the client had no AF_SMC)";
	else if (m == ConnMode::tcp && r.client.mode == ConnMode::tcp)
		out << conn_mode_text(m) << " (" << reason_pair(r.client) << ")";
	else
		out << conn_mode_text(m);
	out << '\n';
}

} // namespace smc
