// SPDX-License-Identifier: GPL-2.0
//
// Names of the SMC decline/fallback reason codes (CLC DECLINE peer
// diagnosis codes and the kernel's local fallback reasons).
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace smc {

struct DeclineCode {
	std::uint32_t code;
	const char *name;	// as smcss(8) names the code
	const char *text;	// as smcss(8) explains the code
};

// Every code the tools name: the ones Linux 6.1 defines, by code.
std::span<const DeclineCode> decline_codes();

// A short upper-case name ("PEER_NO_SMC"), or nullptr for a code this
// table does not know.
const char *decline_code_name(std::uint32_t code);
// What the code means in a few words ("Peer does not support SMC"), or
// nullptr for a code this table does not know.
const char *decline_code_text(std::uint32_t code);
// The name, or "0x%08x" for unknown codes.
std::string decline_code_label(std::uint32_t code);

} // namespace smc
