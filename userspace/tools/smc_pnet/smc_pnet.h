// SPDX-License-Identifier: GPL-2.0
//
// smc_pnet: show and change the PNET table.
#pragma once

#include <string>
#include <vector>

#include "pnet.h"
#include "table.h"
#include "tool_env.h"

namespace smc {

int smc_pnet_main(const std::vector<std::string> &args, ToolEnv &env);

// The table "smc_pnet" shows (no heading line).
Table<PnetEntry> pnet_table();

} // namespace smc
