// SPDX-License-Identifier: GPL-2.0
#include "smc_tool.h"

int main(int argc, char **argv)
{
	return smc::run_tool(smc::smc_main, argc, argv);
}
