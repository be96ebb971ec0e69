// SPDX-License-Identifier: GPL-2.0
// The project's headers as a C++ tool sees them: the same table unit,
// compiled as C++ (the userspace tools are C++).
#include "smc_abi_table.c"
