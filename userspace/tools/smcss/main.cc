// SPDX-License-Identifier: GPL-2.0
#include "smcss.h"

int main(int argc, char **argv)
{
	return smc::run_tool(smc::smcss_main, argc, argv);
}
