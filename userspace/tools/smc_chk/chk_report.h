// SPDX-License-Identifier: GPL-2.0
//
// What smc_chk found out about one connection, and how it says so. The
// server tells the client its side of the story in one line (ServerLine)
// right after accepting; everything here is pure and host-tested.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

#include "smc_diag.h"

namespace smc {

enum class ConnMode { smcr, smcd, tcp, unknown };

const char *conn_mode_text(ConnMode m);	// "SMC-R", "SMC-D", "TCP fallback", "unknown"
const char *conn_mode_token(ConnMode m);	// "SMCR", "SMCD", "TCP", "?" (ServerLine)

// One end of the connection as its own sock_diag shows it.
struct EndView {
	bool af_smc = true;	// false: the end used a TCP socket (no AF_SMC)
	ConnMode mode = ConnMode::unknown;
	std::uint32_t reason = 0;		// local fallback reason
	std::uint32_t peer_diagnosis = 0;	// what the peer's decline said
	std::string error;	// why mode is unknown
};

// From the socket's diag record.
EndView end_view_of(const SmcSocket &s);

// The server's line: "SMC_CHK/1 af=AF_SMC mode=TCP reason=0x... peer=0x..."
// or "... error=TEXT" (TEXT to the end of the line).
std::string encode_server_line(const EndView &v);
std::optional<EndView> decode_server_line(const std::string &line);
// The text with control characters replaced by '?': what a peer sends must
// not drive the user's terminal.
std::string printable(const std::string &text);

struct ConnReport {
	std::string peer;	// as given on the command line
	std::string address;	// the address connected to
	unsigned port = 0;
	bool ipv6 = false;
	std::string af_smc_note;	// why the client used TCP, when it did
	std::string connect_error;	// "" when connected
	EndView client;
	std::optional<EndView> server;
	std::string server_error;	// why the server's view is missing
};

// Local and peer codes "0x03030000/0x00000000" as smcss shows them.
std::string reason_pair(const EndView &v);
// "0x03030000 NO_SMC_DEVICE: No SMC devices found (R and D)"
std::string decline_code_line(std::uint32_t code);
// The overall mode: the client's, else the server's.
ConnMode conn_mode(const ConnReport &r);
void print_conn_report(std::ostream &out, const ConnReport &r);

} // namespace smc
