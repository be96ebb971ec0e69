// SPDX-License-Identifier: GPL-2.0
//
// Canned AF_SMC sock_diag replies.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "bytes.h"
#include "fixture.h"
#include "smc_diag.h"

namespace smc::test {

struct DiagSock {
	std::uint8_t state = 1;		// ACTIVE
	std::uint8_t mode = 0;		// SMCR
	std::uint8_t shutdown = 0;
	std::string local = "192.168.0.1", peer = "192.168.0.2";
	std::uint16_t sport = 1234, dport = 5678;
	std::uint32_t ifindex = 0;
	std::uint32_t uid = 0;
	std::uint64_t inode = 4711;
	std::optional<FallbackInfo> fallback;
	bool conninfo = false;		// SMC_DIAG_CONNINFO with made-up cursors
	std::optional<LgrInfo> lgr;
	std::optional<DmbInfo> dmb;
	Fill extra;			// more attributes
};

// One SOCK_DIAG_BY_FAMILY reply message.
Bytes diag_msg(const DiagSock &s, std::uint32_t seq);

} // namespace smc::test
