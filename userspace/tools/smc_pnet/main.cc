// SPDX-License-Identifier: GPL-2.0
#include "smc_pnet.h"

int main(int argc, char **argv)
{
	return smc::run_tool(smc::smc_pnet_main, argc, argv);
}
