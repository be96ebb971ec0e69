// SPDX-License-Identifier: GPL-2.0
//
// Names of the SMC decline/fallback reason codes (CLC DECLINE peer
// diagnosis codes and the kernel's local fallback reasons).
#pragma once

#include <cstdint>
#include <string>

namespace smc {

// A short upper-case name ("PEER_NO_SMC"), or nullptr for a code this
// table does not know.
const char *decline_code_name(std::uint32_t code);
// What the code means in a few words ("Peer does not support SMC"), or
// nullptr for a code this table does not know.
const char *decline_code_text(std::uint32_t code);
// The name, or "0x%08x" for unknown codes.
std::string decline_code_label(std::uint32_t code);

} // namespace smc
