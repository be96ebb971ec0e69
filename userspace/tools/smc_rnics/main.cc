// SPDX-License-Identifier: GPL-2.0
#include "smc_rnics.h"

int main(int argc, char **argv)
{
	return smc::run_tool(smc::smc_rnics_main, argc, argv);
}
