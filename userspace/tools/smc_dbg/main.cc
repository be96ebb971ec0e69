// SPDX-License-Identifier: GPL-2.0
#include "smc_dbg.h"

int main(int argc, char **argv)
{
	return smc::run_tool(smc::smc_dbg_main, argc, argv);
}
