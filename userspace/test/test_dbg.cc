// SPDX-License-Identifier: GPL-2.0
//
// smc_dbg: the tar writer (read back by our reader and by tar(1)), and a
// whole run against a fake system where some sources fail.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <gtest/gtest.h>

#include "fixture.h"
#include "smc_dbg.h"
#include "tar_writer.h"

namespace smc {
namespace {

using namespace smc::test;
namespace fs = std::filesystem;

TEST(Tar, RoundTrip)
{
	TarWriter t(1700000000);
	ASSERT_TRUE(t.add_dir("top"));
	ASSERT_TRUE(t.add_file("top/a.txt", "hello\n"));
	ASSERT_TRUE(t.add_file("top/empty", ""));
	std::string big(1500, 'x');
	big[511] = 'y';
	ASSERT_TRUE(t.add_file("top/big", big));
	std::string long_name = "top/" + std::string(120, 'd') + "/file.txt";
	ASSERT_TRUE(t.add_file(long_name, "deep"));
	EXPECT_FALSE(t.add_file(std::string(300, 'z'), "x"));
	std::string a = t.finish();
	EXPECT_EQ(a.size() % 512, 0u);
	auto m = read_tar(a);
	ASSERT_TRUE(m) << m.error().message;
	ASSERT_EQ(m->size(), 5u);
	EXPECT_EQ((*m)[0].name, "top/");
	EXPECT_EQ((*m)[0].mode, 0755u);
	EXPECT_EQ((*m)[1].name, "top/a.txt");
	EXPECT_EQ((*m)[1].content, "hello\n");
	EXPECT_EQ((*m)[2].content, "");
	EXPECT_EQ((*m)[3].content, big);
	EXPECT_EQ((*m)[4].name, long_name);
	EXPECT_EQ((*m)[4].content, "deep");

	std::string damaged = a;
	damaged[512 + 10] ^= 1;	// in a.txt's header: its checksum no longer fits
	EXPECT_FALSE(read_tar(damaged));
	EXPECT_FALSE(read_tar(a.substr(0, 1024)));
}

// tar(1) must read what we write (it is what users will use).
TEST(Tar, SystemTarReadsIt)
{
	TempDir d;
	TarWriter t(1700000000);
	ASSERT_TRUE(t.add_dir("x"));
	ASSERT_TRUE(t.add_file("x/one.txt", "1\n"));
	ASSERT_TRUE(t.add_file("x/" + std::string(110, 'n') + "/two.txt", "2\n"));
	std::string path = d.path() + "/t.tar";
	std::ofstream(path, std::ios::binary) << t.finish();
	std::string cmd = "tar -tf " + path + " 2>&1";
	FILE *p = popen(cmd.c_str(), "r");
	ASSERT_NE(p, nullptr);
	std::string listing;
	char buf[512];
	while (fgets(buf, sizeof(buf), p))
		listing += buf;
	int rc = pclose(p);
	if (WEXITSTATUS(rc) == 127)
		GTEST_SKIP() << "no tar(1) on this host";
	EXPECT_EQ(rc, 0) << listing;
	EXPECT_EQ(listing, "x/\nx/one.txt\nx/" + std::string(110, 'n') + "/two.txt\n");
}

TEST(SmcDbg, LinesMentioning)
{
	EXPECT_EQ(lines_mentioning("a\nNET: SMC loaded\nb rxe0 up\nc\n", {"smc", "rxe"}),
		  "NET: SMC loaded\nb rxe0 up\n");
	EXPECT_EQ(lines_mentioning("", {"smc"}), "");
}

struct DbgRun {
	int rc = 0;
	std::string out, err;
	std::map<std::string, std::string> members;
	std::vector<std::string> order;
};

DbgRun run_dbg(const std::vector<std::string> &args, const std::string &cwd, bool log_ok)
{
	DbgSystem sys;
	sys.kernel_log = [log_ok]() -> Result<std::string> {
		if (!log_ok)
			return make_error(EPERM, "cannot read kernel messages: Operation not permitted");
		return std::string("[    1.0] Linux version 6.1\n[    2.0] NET: Registered PF_SMC protocol family\n"
				   "[    3.0] rdma_rxe: loaded\n[    4.0] virtio_net up\n");
	};
	sys.run = [](const std::vector<std::string> &argv) -> Result<std::string> {
		if (argv[0] == "ip")
			return std::string("1: lo: <LOOPBACK,UP>\n");
		return make_error(ENOENT, argv[0] + ": command not found");
	};
	sys.now = [] { return std::time_t{1700000000}; };
	sys.hostname = [] { return std::string("vm 0"); };
	sys.cwd = cwd;
	std::ostringstream out, err;
	nl::ReplayFactory f{nl::Recording{}};	// no kernel at all: every tool fails
	ToolEnv env{out, err, f, [](std::uint32_t) { return std::string(); }, cwd + "/state", 0, "9.9"};
	env.sysfs_root = source_dir() + "/data/sysfs";
	env.procfs_root = cwd + "/proc";
	DbgRun r;
	r.rc = smc_dbg_run(args, env, sys);
	r.out = out.str();
	r.err = err.str();
	return r;
}

void read_members(DbgRun &r, const std::string &path)
{
	auto m = read_tar(read_file(path));
	ASSERT_TRUE(m) << m.error().message;
	for (auto &x : *m) {
		r.order.push_back(x.name);
		r.members[x.name] = x.content;
	}
}

TEST(SmcDbg, CollectsEverythingAndRecordsFailures)
{
	TempDir d;
	// A fake /proc with the files smc_dbg reads; no net/smc sysctls.
	fs::create_directories(d.path() + "/proc/net");
	fs::create_directories(d.path() + "/proc/sys/net/core");
	std::ofstream(d.path() + "/proc/version") << "Linux version 6.1.0-test\n";
	std::ofstream(d.path() + "/proc/modules") << "smc 200000 0 - Live 0x0\nvirtio 1 0 - Live 0x0\n"
						     "rdma_rxe 100 0 - Live 0x0\n";
	std::ofstream(d.path() + "/proc/net/protocols") << "protocol  size sockets\nSMC6 1 0\nTCP 2 3\n";
	std::ofstream(d.path() + "/proc/sys/net/core/wmem_max") << "212992\n";

	auto r = run_dbg({"smc_dbg"}, d.path(), false);
	ASSERT_EQ(r.rc, 0) << r.err;
	std::string tarball = d.path() + "/smc_dbg-vm_0-20231114-221320.tar";
	EXPECT_EQ(r.out, "smc_dbg: wrote " + tarball + " (29 files, 20 sources with errors; see index.txt)\n");
	read_members(r, tarball);
	const std::string top = "smc_dbg-vm_0-20231114-221320/";
	ASSERT_FALSE(r.order.empty());
	EXPECT_EQ(r.order[0], top);
	EXPECT_EQ(r.order[1], top + "index.txt");
	for (const char *name : {"version.txt", "modules.txt", "protocols.txt", "sysctl.txt", "dmesg.txt",
				 "smcss-a.txt", "smcss-ad.txt", "smcss-aD.txt", "smcss-aR.txt", "smcss.json",
				 "smc_pnet.txt", "smcd-info.txt", "smcr-device.txt", "smcd-device.txt",
				 "smcr-linkgroup.txt", "smcr-links.txt", "smcd-linkgroup.txt", "smcr-stats.txt",
				 "smcd-stats.txt", "smcd-ueid.txt", "smcd-seid.txt", "smc_rnics.txt",
				 "smc_rnics.json", "ip-addr.txt", "ip-route.txt", "ip6-route.txt",
				 "rdma-dev.txt", "rdma-link.txt"})
		EXPECT_EQ(r.members.count(top + name), 1u) << name;
	EXPECT_EQ(r.order.size(), 30u);

	const auto &m = r.members;
	EXPECT_NE(m.at(top + "version.txt").find("/proc/version: Linux version 6.1.0-test"), std::string::npos);
	EXPECT_EQ(m.at(top + "modules.txt"), "smc 200000 0 - Live 0x0\nrdma_rxe 100 0 - Live 0x0\n");
	EXPECT_EQ(m.at(top + "protocols.txt"), "protocol  size sockets\nSMC6 1 0\n");
	EXPECT_NE(m.at(top + "sysctl.txt").find("net.core.wmem_max = 212992\n"), std::string::npos);
	EXPECT_NE(m.at(top + "sysctl.txt").find("net.ipv4.tcp_rmem = (cannot read"), std::string::npos);
	EXPECT_EQ(m.at(top + "dmesg.txt"), "cannot read kernel messages: Operation not permitted\n");
	EXPECT_EQ(m.at(top + "ip-addr.txt"), "$ ip -d address show\n1: lo: <LOOPBACK,UP>\n");
	EXPECT_EQ(m.at(top + "rdma-dev.txt"), "$ rdma -d dev show\nrdma: command not found\n");
	// The tools ran and their failure is in the member; smc_rnics still
	// listed the devices from sysfs.
	EXPECT_NE(m.at(top + "smcss-a.txt").find("$ smcss -a\n--- stderr ---\nsmcss: replay: no recorded "
						  "session left for sock_diag\n--- exit 1 ---\n"),
		  std::string::npos) << m.at(top + "smcss-a.txt");
	EXPECT_NE(m.at(top + "smc_rnics.txt").find("rxe0"), std::string::npos);
	EXPECT_NE(m.at(top + "smc_rnics.json").find("\"driver\": \"mlx5_core\""), std::string::npos);

	const std::string &index = m.at(top + "index.txt");
	EXPECT_NE(index.find("version.txt: ok\n"), std::string::npos) << index;
	EXPECT_NE(index.find("ip-addr.txt: ok\n"), std::string::npos);
	EXPECT_NE(index.find("smc_rnics.txt: ok\n"), std::string::npos);
	EXPECT_NE(index.find("dmesg.txt: ERROR: cannot read kernel messages: Operation not permitted\n"),
		  std::string::npos);
	EXPECT_NE(index.find("rdma-link.txt: ERROR: rdma: command not found\n"), std::string::npos);
	EXPECT_NE(index.find("sysctl.txt: ERROR: no "), std::string::npos);
	EXPECT_NE(index.find("smcd-stats.txt: ERROR: exit 1: smcd: replay: no recorded session left"),
		  std::string::npos) << index;
}

TEST(SmcDbg, OutputPathAndKernelLog)
{
	TempDir d;
	fs::create_directories(d.path() + "/out");
	auto r = run_dbg({"smc_dbg", "-o", d.path() + "/out"}, d.path(), true);
	ASSERT_EQ(r.rc, 0) << r.err;
	std::string tarball = d.path() + "/out/smc_dbg-vm_0-20231114-221320.tar";
	read_members(r, tarball);
	EXPECT_EQ(r.members.at("smc_dbg-vm_0-20231114-221320/dmesg.txt"),
		  "[    2.0] NET: Registered PF_SMC protocol family\n[    3.0] rdma_rxe: loaded\n");

	auto named = run_dbg({"smc_dbg", "--output=" + d.path() + "/mine.tar"}, d.path(), true);
	ASSERT_EQ(named.rc, 0);
	read_members(named, d.path() + "/mine.tar");
	EXPECT_EQ(named.order[0], "mine/");
	EXPECT_EQ(named.members.count("mine/version.txt"), 1u);

	// Only a tarball that cannot be written fails the run.
	auto bad = run_dbg({"smc_dbg", "-o", d.path() + "/no/such/dir/x.tar"}, d.path(), true);
	EXPECT_EQ(bad.rc, 1);
	EXPECT_EQ(bad.err.rfind("smc_dbg: cannot write " + d.path() + "/no/such/dir/x.tar: ", 0), 0u) << bad.err;

	auto usage = run_dbg({"smc_dbg", "extra"}, d.path(), true);
	EXPECT_EQ(usage.rc, 2);
	EXPECT_EQ(usage.err, "smc_dbg: unexpected argument 'extra' (see smc_dbg --help)\n");
}

} // namespace
} // namespace smc
