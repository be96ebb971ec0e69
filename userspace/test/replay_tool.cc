// SPDX-License-Identifier: GPL-2.0
//
// smc_tools_replay: one tool run against a recorded kernel conversation
// (data/*.nlrec), as test_replay.cc does in-process, but as a program of its
// own so that valgrind can watch it (valgrind-tools).
//
//   smc_tools_replay RECORDING
//	Runs the command line of the recording's "# PROG ARGS" line with the
//	recording as the kernel, the interface names and version the golden
//	tests use, and a fresh state directory. Prints "$ PROG ARGS" and the
//	transcript in the format of golden/replay_*.txt; exits with the tool's
//	status (125 when the recording cannot be read).
//   smc_tools_replay -o DIR RECORDING...
//	The same for each recording in turn, in one process (valgrind's start
//	costs about a second per process), each transcript written to
//	DIR/NAME.txt; exits 0 when every recording could be run, else 2.
//   smc_tools_replay --defect leak|bad-read
//	Leaks a block, or reads a freed one: valgrind must notice (the check
//	that the valgrind test can fail at all).
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "nl_record.h"
#include "smc_pnet.h"
#include "smc_tool.h"
#include "smcss.h"
#include "tool_env.h"

namespace {

// volatile, so that the compiler cannot drop the defects.
char *volatile defect_block;

int defect(const std::string &kind)
{
	if (kind == "leak") {
		defect_block = new char[64];
		defect_block[0] = 1;
		defect_block = nullptr;
		return 0;
	}
	if (kind == "bad-read") {
		defect_block = new char[64];
		delete[] defect_block;
		return defect_block[7] == 42 ? 3 : 0;
	}
	std::cerr << "smc_tools_replay: unknown defect '" << kind << "'\n";
	return 2;
}

std::vector<std::string> words(const std::string &line)
{
	std::istringstream in(line);
	std::vector<std::string> w;
	for (std::string s; in >> s;)
		w.push_back(s);
	return w;
}

int replay(const std::string &path, std::ostream &transcript)
{
	std::ifstream in(path);
	std::stringstream text;
	text << in.rdbuf();
	if (!in) {
		std::cerr << "smc_tools_replay: cannot read " << path << '\n';
		return -1;
	}
	std::string t = text.str();
	if (t.rfind("# ", 0) != 0) {
		std::cerr << "smc_tools_replay: " << path << " has no '# PROG ARGS' line\n";
		return -1;
	}
	std::vector<std::string> args = words(t.substr(2, t.find('\n') - 2));
	auto rec = smc::nl::Recording::parse(t);
	if (args.empty() || !rec) {
		std::cerr << "smc_tools_replay: " << path << ": "
			  << (rec ? "empty command line" : rec.error().message) << '\n';
		return -1;
	}

	std::string dir_template =
		(std::filesystem::temp_directory_path() / "smc-tools-replay.XXXXXX").string();
	if (!mkdtemp(dir_template.data())) {
		std::cerr << "smc_tools_replay: mkdtemp failed\n";
		return -1;
	}
	int rc;
	std::ostringstream out, err;
	{
		smc::nl::ReplayFactory factory(std::move(*rec));
		smc::ToolEnv env{out,
				 err,
				 factory,
				 [](std::uint32_t i) -> std::string {
					 // The interfaces the golden files were made with.
					 switch (i) {
					 case 1: return "lo";
					 case 2: return "eth0";
					 case 3: return "eth1";
					 default: return {};
					 }
				 },
				 dir_template + "/state",
				 static_cast<unsigned>(getuid()),
				 "9.9"};
		smc::ToolMain tool = smc::smc_main;
		std::string prog = smc::program_name(args[0]);
		if (prog == "smcss")
			tool = smc::smcss_main;
		else if (prog == "smc_pnet")
			tool = smc::smc_pnet_main;
		rc = tool(args, env);
	}
	std::error_code ec;
	std::filesystem::remove_all(dir_template, ec);

	std::string cmd;
	for (const auto &a : args)
		cmd += (cmd.empty() ? "" : " ") + a;
	transcript << "$ " << cmd << '\n' << out.str();
	if (!err.str().empty())
		transcript << "--- stderr ---\n" << err.str();
	transcript << "--- exit " << rc << " ---\n";
	return rc;
}

int replay_all(const std::string &dir, char **paths, int count)
{
	for (int i = 0; i < count; ++i) {
		std::string name = std::filesystem::path(paths[i]).stem().string();
		std::ofstream out(dir + "/" + name + ".txt");
		if (replay(paths[i], out) < 0 || !out.flush()) {
			std::cerr << "smc_tools_replay: " << paths[i] << " could not be replayed\n";
			return 2;
		}
	}
	return 0;
}

} // namespace

int main(int argc, char **argv)
{
	if (argc == 3 && std::string(argv[1]) == "--defect")
		return defect(argv[2]);
	if (argc >= 4 && std::string(argv[1]) == "-o")
		return replay_all(argv[2], argv + 3, argc - 3);
	if (argc != 2 || argv[1][0] == '-') {
		std::cerr << "usage: smc_tools_replay RECORDING | -o DIR RECORDING... | --defect leak|bad-read\n";
		return 2;
	}
	int rc = replay(argv[1], std::cout);
	return rc < 0 ? 125 : rc;
}
