// SPDX-License-Identifier: GPL-2.0
#include "rdma_cm_lib.h"

namespace {

int chk_main(const std::vector<std::string> &args, smc::ToolEnv &env)
{
	smc::LibRdmaCm cm;
	return smc::smc_chk_run(args, env, cm);
}

} // namespace

int main(int argc, char **argv)
{
	return smc::run_tool(chk_main, argc, argv);
}
