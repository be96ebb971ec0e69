// SPDX-License-Identifier: GPL-2.0
//
// Host tests of libsmc-preload.so and smc_run.
//
// The library is tested in child processes (smc-preload-probe under
// LD_PRELOAD). Whether this host has AF_SMC is decided at run time. The
// conversion itself is tested everywhere with libsmc-fake-af.so preloaded
// after the library: it records the socket(AF_SMC, ...) call the library makes
// and answers it with a TCP socket (or with EAFNOSUPPORT).
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <smc/af_smc.h>

#include "smc_env.h"

extern char **environ;

namespace fs = std::filesystem;

namespace {

struct Result {
	int status = -1;	// exit status, or 128 + signal
	std::string out, err;
};

// Environment for a child: ours without LD_PRELOAD and SMC_*, plus `set`.
// A value of std::nullopt removes the variable.
using Env = std::map<std::string, std::optional<std::string>>;

std::vector<std::string> child_env(const Env &set)
{
	std::vector<std::string> env;
	for (char **e = environ; *e; e++) {
		std::string kv = *e;
		std::string name = kv.substr(0, kv.find('='));
		if (name == "LD_PRELOAD" || name.rfind("SMC_", 0) == 0 || set.count(name))
			continue;
		env.push_back(kv);
	}
	for (const auto &[name, value] : set)
		if (value)
			env.push_back(name + "=" + *value);
	return env;
}

// Runs argv[0] (searched in the child's PATH when it has no slash) and
// collects its output; kills it after `timeout_s` seconds.
Result run(const std::vector<std::string> &argv, const Env &set = {}, int timeout_s = 60)
{
	std::vector<std::string> env = child_env(set);
	std::vector<char *> cargv, cenv;
	for (const auto &a : argv)
		cargv.push_back(const_cast<char *>(a.c_str()));
	cargv.push_back(nullptr);
	for (const auto &e : env)
		cenv.push_back(const_cast<char *>(e.c_str()));
	cenv.push_back(nullptr);

	int out[2], err[2];
	if (pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC))
		abort();
	pid_t pid = fork();
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDONLY);
		dup2(devnull, 0);
		dup2(out[1], 1);
		dup2(err[1], 2);
		// execvpe() searches the caller's PATH, not the one in envp.
		if (auto it = set.find("PATH"); it != set.end() && it->second)
			setenv("PATH", it->second->c_str(), 1);
		execvpe(cargv[0], cargv.data(), cenv.data());
		_exit(127);
	}
	close(out[1]);
	close(err[1]);
	Result r;
	struct pollfd pfd[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
	int open_fds = 2;
	auto deadline = time(nullptr) + timeout_s;
	while (open_fds > 0) {
		int left = (int)(deadline - time(nullptr));
		if (left <= 0 || poll(pfd, 2, left * 1000) == 0) {
			kill(pid, SIGKILL);
			ADD_FAILURE() << "timeout running " << argv[0];
			break;
		}
		for (int i = 0; i < 2; i++) {
			if (pfd[i].fd < 0 || !(pfd[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			char buf[4096];
			ssize_t n = read(pfd[i].fd, buf, sizeof(buf));
			if (n > 0) {
				(i ? r.err : r.out).append(buf, (size_t)n);
			} else if (n == 0 || errno != EINTR) {
				close(pfd[i].fd);
				pfd[i].fd = -1;
				open_fds--;
			}
		}
	}
	for (auto &p : pfd)
		if (p.fd >= 0)
			close(p.fd);
	int status;
	waitpid(pid, &status, 0);
	r.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	return r;
}

std::vector<std::string> lines(const std::string &text)
{
	std::vector<std::string> v;
	std::istringstream in(text);
	for (std::string l; std::getline(in, l);)
		v.push_back(l);
	return v;
}

bool contains(const std::string &hay, const std::string &needle)
{
	return hay.find(needle) != std::string::npos;
}

// The value of "key=N" in a probe output line, or LONG_MIN.
long field(const std::string &line, const std::string &key)
{
	std::string pat = " " + key + "=";
	std::string padded = " " + line;
	auto pos = padded.find(pat);
	if (pos == std::string::npos)
		return LONG_MIN;
	return strtol(padded.c_str() + pos + pat.size(), nullptr, 10);
}

// The first line of `text` that starts with `prefix`.
std::string line_with(const std::string &text, const std::string &prefix)
{
	for (const auto &l : lines(text))
		if (l.rfind(prefix, 0) == 0)
			return l;
	return "";
}

std::string read_file(const std::string &path)
{
	std::ifstream in(path);
	std::stringstream ss;
	ss << in.rdbuf();
	return ss.str();
}

long sysctl_long(const char *path)
{
	return strtol(read_file(path).c_str(), nullptr, 10);
}

bool host_has_af_smc()
{
	int fd = socket(AF_SMC, SOCK_STREAM, SMCPROTO_SMC);
	if (fd < 0)
		return false;
	close(fd);
	return true;
}

bool host_has_ipv6_loopback()
{
	int fd = socket(AF_INET6, SOCK_STREAM, 0);
	if (fd < 0)
		return false;
	struct sockaddr_in6 a = {};
	a.sin6_family = AF_INET6;
	a.sin6_addr = in6addr_loopback;
	bool ok = bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0;
	close(fd);
	return ok;
}

class TempDir {
public:
	TempDir()
	{
		char tmpl[] = "/tmp/smc-preload-test.XXXXXX";
		if (!mkdtemp(tmpl))
			abort();
		path_ = tmpl;
	}
	~TempDir() { fs::remove_all(path_); }
	const std::string &path() const { return path_; }

private:
	std::string path_;
};

std::string canonical(const std::string &p)
{
	return fs::canonical(p).string();
}

// ---------------------------------------------------------------------------
// The environment parser, called directly.

TEST(SmcEnv, ParsesSizes)
{
	const std::pair<const char *, int> good[] = {
		{"1", 1}, {"65536", 65536}, {"64k", 65536}, {"64K", 65536},
		{"1m", 1048576}, {"2M", 2097152}, {"007", 7}, {"0010k", 10240},
		{"2147483647", INT_MAX}, {"2047m", 2047 * 1048576},
		{"2097151k", 2097151 * 1024},
	};
	for (const auto &[text, want] : good) {
		int v = -1;
		EXPECT_EQ(smc_parse_size(text, &v), nullptr) << text;
		EXPECT_EQ(v, want) << text;
	}
}

TEST(SmcEnv, RejectsInvalidSizes)
{
	const char *bad[] = {
		"", "0", "0k", "000", "-1", "+1", " 1", "1 ", "1\n", "1.5k", "0x10",
		"1kk", "1km", "k", "M", "1g", "1G", "1kb", "1KiB", "2147483648",
		"2048m", "2097152k", "99999999999999999999999999", "1e3", "abc",
	};
	for (const char *text : bad) {
		int v = 4242;
		const char *why = smc_parse_size(text, &v);
		EXPECT_NE(why, nullptr) << "'" << text << "'";
		EXPECT_EQ(v, 4242) << "'" << text << "'";
	}
	int v = 1;
	EXPECT_NE(smc_parse_size(nullptr, &v), nullptr);
}

TEST(SmcEnv, DebugFlag)
{
	EXPECT_FALSE(smc_parse_flag(nullptr));
	EXPECT_FALSE(smc_parse_flag(""));
	EXPECT_FALSE(smc_parse_flag("0"));
	EXPECT_TRUE(smc_parse_flag("1"));
	EXPECT_TRUE(smc_parse_flag("yes"));
	EXPECT_TRUE(smc_parse_flag("00"));
}

TEST(SmcEnv, Modes)
{
	const std::pair<const char *, smc_mode> good[] = {
		{"smc", SMC_MODE_SMC}, {"inet", SMC_MODE_INET}, {"auto", SMC_MODE_AUTO},
		{"", SMC_MODE_SMC},
	};
	for (const auto &[text, want] : good) {
		smc_mode m = SMC_MODE_AUTO;
		EXPECT_EQ(smc_parse_mode(text, &m), nullptr) << text;
		EXPECT_EQ(m, want) << text;
	}
	smc_mode m = SMC_MODE_AUTO;
	EXPECT_EQ(smc_parse_mode(nullptr, &m), nullptr);
	EXPECT_EQ(m, SMC_MODE_SMC);
	for (const char *text : {"SMC", "inet6", "tcp", " smc", "auto ", "1"}) {
		m = SMC_MODE_INET;
		EXPECT_NE(smc_parse_mode(text, &m), nullptr) << "'" << text << "'";
		EXPECT_EQ(m, SMC_MODE_INET) << "'" << text << "'";
	}
}

TEST(SmcEnv, Ports)
{
	smc_port_ranges p{};
	ASSERT_EQ(smc_parse_ports("80,443,8000-8099", &p), nullptr);
	ASSERT_EQ(p.count, 3u);
	EXPECT_EQ(p.range[0].low, 80);
	EXPECT_EQ(p.range[0].high, 80);
	EXPECT_EQ(p.range[2].low, 8000);
	EXPECT_EQ(p.range[2].high, 8099);
	for (unsigned port : {80u, 443u, 8000u, 8050u, 8099u})
		EXPECT_TRUE(smc_port_listed(&p, port)) << port;
	for (unsigned port : {0u, 79u, 81u, 442u, 7999u, 8100u, 65535u})
		EXPECT_FALSE(smc_port_listed(&p, port)) << port;
	ASSERT_EQ(smc_parse_ports("1-65535", &p), nullptr);
	EXPECT_TRUE(smc_port_listed(&p, 65535));
	ASSERT_EQ(smc_parse_ports("0080,7-7", &p), nullptr);
	EXPECT_TRUE(smc_port_listed(&p, 80));
	EXPECT_TRUE(smc_port_listed(&p, 7));
	ASSERT_EQ(smc_parse_ports("1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16", &p), nullptr);
	EXPECT_EQ(p.count, 16u);

	for (const char *text : {"", "0", "65536", "80,", ",80", "80,,81", "80-", "-80", "81-80",
				 "80-90-100", " 80", "80 ", "8a", "0x50", "+80", "1-0",
				 "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17", "99999999999"}) {
		smc_port_ranges q{};
		q.count = 42;
		EXPECT_NE(smc_parse_ports(text, &q), nullptr) << "'" << text << "'";
		EXPECT_EQ(q.count, 42u) << "'" << text << "'";
	}
	EXPECT_NE(smc_parse_ports(nullptr, &p), nullptr);
}

TEST(SmcEnv, Programs)
{
	EXPECT_EQ(smc_check_programs("nginx"), nullptr);
	EXPECT_EQ(smc_check_programs("nginx,redis-server,a.out"), nullptr);
	for (const char *text : {"", ",", "a,", ",a", "a,,b", "/usr/sbin/nginx", "a b", "a\tb"})
		EXPECT_NE(smc_check_programs(text), nullptr) << "'" << text << "'";
	EXPECT_EQ(smc_check_programs(std::string(255, 'x').c_str()), nullptr);
	EXPECT_NE(smc_check_programs(std::string(256, 'x').c_str()), nullptr);

	EXPECT_TRUE(smc_program_listed("nginx,redis-server", "nginx"));
	EXPECT_TRUE(smc_program_listed("nginx,redis-server", "redis-server"));
	EXPECT_FALSE(smc_program_listed("nginx,redis-server", "redis"));
	EXPECT_FALSE(smc_program_listed("nginx,redis-server", "nginx,redis-server"));
	EXPECT_FALSE(smc_program_listed("nginx", "ngin"));
	EXPECT_FALSE(smc_program_listed("nginx", "nginxx"));
	EXPECT_FALSE(smc_program_listed("nginx", ""));
}

// ---------------------------------------------------------------------------
// smc_run, under every POSIX shell this host has, and run directly (#!/bin/sh).

struct Shell {
	const char *name;
	std::vector<std::string> prefix;	// empty: exec the script itself
};

const Shell shells[] = {
	{"direct", {}},
	{"sh", {"/bin/sh"}},
	{"dash", {"/usr/bin/dash"}},
	{"bash", {"/usr/bin/bash", "--posix"}},
	{"busybox_ash", {"/usr/bin/busybox", "sh"}},
};

class SmcRun : public ::testing::TestWithParam<Shell> {
protected:
	void SetUp() override
	{
		const auto &prefix = GetParam().prefix;
		if (!prefix.empty() && access(prefix[0].c_str(), X_OK) != 0)
			GTEST_SKIP() << prefix[0] << " is not installed";
	}

	Result smc_run(const std::vector<std::string> &args, const Env &env = {},
		       const std::string &script = SMC_RUN)
	{
		std::vector<std::string> argv = GetParam().prefix;
		argv.push_back(script);
		argv.insert(argv.end(), args.begin(), args.end());
		return run(argv, env);
	}

	// The arguments and environment smc-argv-dump saw.
	struct Dump {
		std::vector<std::string> args;
		std::map<std::string, std::string> env;	// missing: unset
	};

	static Dump parse_dump(const std::string &out)
	{
		Dump d;
		std::vector<std::string> fields;
		size_t start = 0;
		for (size_t i = 0; i < out.size(); i++) {
			if (out[i] == '\0') {
				fields.push_back(out.substr(start, i - start));
				start = i + 1;
			}
		}
		bool in_env = false;
		for (const auto &f : fields) {
			if (f == "--env--") {
				in_env = true;
			} else if (!in_env) {
				d.args.push_back(f);
			} else if (auto eq = f.find('='); eq != std::string::npos) {
				d.env[f.substr(0, eq)] = f.substr(eq + 1);
			}
		}
		return d;
	}
};

TEST_P(SmcRun, PassesArgumentsUnchanged)
{
	const std::vector<std::string> args = {
		"plain", "with space", "", "  two  leading", "'single'", "\"double\"",
		"*", "?", "[ab]", "*.c", "$HOME", "${X:-y}", "`id`", "$(id)",
		"back\\slash", "tab\there", "new\nline", "-d", "-r", "--", "-h", "a;b|c&d",
		"~", "é ü", "",
	};
	std::vector<std::string> argv = {SMC_ARGV_DUMP};
	argv.insert(argv.end(), args.begin(), args.end());
	Result r = smc_run(argv);
	ASSERT_EQ(r.status, 0) << r.err;
	EXPECT_EQ(parse_dump(r.out).args, args);
}

TEST_P(SmcRun, NoArgumentsForTheProgram)
{
	Result r = smc_run({SMC_ARGV_DUMP});
	ASSERT_EQ(r.status, 0) << r.err;
	EXPECT_TRUE(parse_dump(r.out).args.empty());
}

TEST_P(SmcRun, DoubleDashEndsOptions)
{
	Result r = smc_run({"-d", "--", SMC_ARGV_DUMP, "--", "-t", "x"});
	ASSERT_EQ(r.status, 0) << r.err;
	Dump d = parse_dump(r.out);
	EXPECT_EQ(d.args, (std::vector<std::string>{"--", "-t", "x"}));
	EXPECT_EQ(d.env["SMC_DEBUG"], "1");
}

TEST_P(SmcRun, SetsLdPreloadWhenUnset)
{
	Result r = smc_run({SMC_ARGV_DUMP});
	ASSERT_EQ(r.status, 0) << r.err;
	Dump d = parse_dump(r.out);
	EXPECT_EQ(d.env["LD_PRELOAD"], canonical(SMC_PRELOAD_LIB));
	EXPECT_EQ(d.env.count("SMC_DEBUG"), 0u);
	EXPECT_EQ(d.env.count("SMC_SNDBUF"), 0u);
	EXPECT_EQ(d.env.count("SMC_RCVBUF"), 0u);
}

TEST_P(SmcRun, AppendsToExistingLdPreload)
{
	// Existing libraries that do exist, so ld.so stays quiet.
	std::string other = canonical(SMC_FAKE_LIB);
	Result r = smc_run({SMC_ARGV_DUMP}, {{"LD_PRELOAD", other}});
	ASSERT_EQ(r.status, 0) << r.err;
	EXPECT_EQ(parse_dump(r.out).env["LD_PRELOAD"], other + ":" + canonical(SMC_PRELOAD_LIB));

	std::string two = other + " " + other;
	r = smc_run({SMC_ARGV_DUMP}, {{"LD_PRELOAD", two}});
	ASSERT_EQ(r.status, 0) << r.err;
	EXPECT_EQ(parse_dump(r.out).env["LD_PRELOAD"], two + ":" + canonical(SMC_PRELOAD_LIB));
}

TEST_P(SmcRun, EmptyLdPreloadIsLikeUnset)
{
	Result r = smc_run({SMC_ARGV_DUMP}, {{"LD_PRELOAD", ""}});
	ASSERT_EQ(r.status, 0) << r.err;
	EXPECT_EQ(parse_dump(r.out).env["LD_PRELOAD"], canonical(SMC_PRELOAD_LIB));
}

TEST_P(SmcRun, DoesNotAddTheLibraryTwice)
{
	std::string lib = canonical(SMC_PRELOAD_LIB), other = canonical(SMC_FAKE_LIB);
	Result r = smc_run({SMC_ARGV_DUMP}, {{"LD_PRELOAD", lib + ":" + other}});
	ASSERT_EQ(r.status, 0) << r.err;
	EXPECT_EQ(parse_dump(r.out).env["LD_PRELOAD"], lib + ":" + other);
	// Nested smc_run.
	std::vector<std::string> inner = GetParam().prefix;
	inner.push_back(SMC_RUN);
	inner.push_back(SMC_ARGV_DUMP);
	r = smc_run(inner);
	ASSERT_EQ(r.status, 0) << r.err;
	EXPECT_EQ(parse_dump(r.out).env["LD_PRELOAD"], lib);
}

TEST_P(SmcRun, OptionsSetEnvironment)
{
	Result r = smc_run({"-d", "-r", "64k", "-t1M", SMC_ARGV_DUMP, "x"});
	ASSERT_EQ(r.status, 0) << r.err;
	Dump d = parse_dump(r.out);
	EXPECT_EQ(d.env["SMC_DEBUG"], "1");
	EXPECT_EQ(d.env["SMC_RCVBUF"], "64k");
	EXPECT_EQ(d.env["SMC_SNDBUF"], "1M");
	EXPECT_EQ(d.args, std::vector<std::string>{"x"});
}

TEST_P(SmcRun, ModeOption)
{
	for (const char *mode : {"smc", "inet", "auto"}) {
		Result r = smc_run({"-f", mode, SMC_ARGV_DUMP});
		ASSERT_EQ(r.status, 0) << mode << ": " << r.err;
		EXPECT_EQ(parse_dump(r.out).env["SMC_MODE"], mode);
	}
	for (const char *mode : {"", "tcp", "INET", "auto6"}) {
		Result r = smc_run({"-f", mode, SMC_ARGV_DUMP});
		EXPECT_EQ(r.status, 2) << "'" << mode << "'";
		EXPECT_TRUE(contains(r.err, "invalid mode")) << r.err;
		EXPECT_EQ(r.out, "");
	}
	Result r = smc_run({"-f"});
	EXPECT_EQ(r.status, 2);
}

TEST_P(SmcRun, FilterOptions)
{
	Result r = smc_run({"-p", "80,443,8000-8099", "-P", "nginx,redis-server", SMC_ARGV_DUMP});
	ASSERT_EQ(r.status, 0) << r.err;
	Dump d = parse_dump(r.out);
	EXPECT_EQ(d.env["SMC_PORTS"], "80,443,8000-8099");
	EXPECT_EQ(d.env["SMC_PROGRAMS"], "nginx,redis-server");
	EXPECT_EQ(r.err, "");
	// The same rules as the library's parser (SmcEnv.Ports, SmcEnv.Programs).
	for (const char *ports : {"", "0", "65536", "80,", ",80", "80,,81", "80-", "81-80",
				  "80-90-100", " 80", "8a", "0x50",
				  "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17", "999999"}) {
		r = smc_run({"-p", ports, SMC_ARGV_DUMP});
		EXPECT_EQ(r.status, 2) << "'" << ports << "'";
		EXPECT_TRUE(contains(r.err, "for -p")) << r.err;
		EXPECT_EQ(r.out, "");
	}
	for (const char *names : {"", "a,", ",a", "a,,b", "/usr/sbin/nginx", "a b"}) {
		r = smc_run({"-P", names, SMC_ARGV_DUMP});
		EXPECT_EQ(r.status, 2) << "'" << names << "'";
		EXPECT_TRUE(contains(r.err, "for -P")) << r.err;
	}
	r = smc_run({"-P", std::string(256, 'x'), SMC_ARGV_DUMP});
	EXPECT_EQ(r.status, 2);
	EXPECT_EQ(smc_run({"-p"}).status, 2);
	EXPECT_EQ(smc_run({"-P"}).status, 2);
	r = smc_run({"-p", "0080,1-65535", SMC_ARGV_DUMP});
	EXPECT_EQ(r.status, 0) << r.err;
}

// A program out of LD_PRELOAD's reach runs, with a warning that says why.
TEST_P(SmcRun, WarnsAboutStaticPrograms)
{
	const char *static_busybox = "/bin/busybox";
	Result r = run({"/usr/bin/file", "-L", static_busybox});
	if (r.status != 0 || !contains(r.out, "statically linked"))
		GTEST_SKIP() << "no statically linked busybox here (busybox-static)";
	r = smc_run({static_busybox, "true"});
	EXPECT_EQ(r.status, 0) << r.err;
	EXPECT_EQ(r.err, std::string("smc_run: warning: ") + static_busybox +
				 " is statically linked: LD_PRELOAD cannot reach its sockets, which stay TCP\n");
	// Found in PATH, the same.
	r = smc_run({"busybox", "true"}, {{"PATH", "/bin"}});
	EXPECT_TRUE(contains(r.err, "/bin/busybox is statically linked")) << r.err;
	// Dynamic programs, scripts and shell builtins: no word.
	for (const std::vector<std::string> &args :
	     {std::vector<std::string>{SMC_ARGV_DUMP}, {"/bin/sh", "-c", "true"}, {"true"}}) {
		r = smc_run(args);
		EXPECT_EQ(r.status, 0) << args[0];
		EXPECT_EQ(r.err, "") << args[0];
	}
}

TEST_P(SmcRun, WarnsAboutSetuidPrograms)
{
	if (geteuid() != 0)
		GTEST_SKIP() << "needs root to make a file of another user";
	TempDir tmp;
	std::string prog = tmp.path() + "/setuid-dump";
	fs::copy_file(SMC_ARGV_DUMP, prog);
	ASSERT_EQ(chown(prog.c_str(), 65534, 65534), 0);
	ASSERT_EQ(chmod(prog.c_str(), 04755), 0);
	chmod(tmp.path().c_str(), 0755);
	Result r = smc_run({prog});
	EXPECT_EQ(r.status, 0) << r.err;
	EXPECT_EQ(r.err, "smc_run: warning: " + prog +
				 " is set-user-ID: the dynamic loader ignores LD_PRELOAD for it, so its sockets stay TCP\n");
	ASSERT_EQ(chmod(prog.c_str(), 02755), 0);
	r = smc_run({prog});
	EXPECT_TRUE(contains(r.err, " is set-group-ID: ")) << r.err;
	// Owned by the caller: no change of identity, no warning.
	ASSERT_EQ(chown(prog.c_str(), 0, 0), 0);
	ASSERT_EQ(chmod(prog.c_str(), 06755), 0);
	r = smc_run({prog});
	EXPECT_EQ(r.err, "");
}

TEST_P(SmcRun, InheritedSettingsPassThrough)
{
	// Without options, what the caller set reaches the library unchanged;
	// shell variables named like smc_run's own do not leak in.
	Result r = smc_run({SMC_ARGV_DUMP}, {{"SMC_DEBUG", "1"}, {"SMC_SNDBUF", "8k"},
					      {"rcvbuf", "bogus"}, {"debug", "1"}});
	ASSERT_EQ(r.status, 0) << r.err;
	Dump d = parse_dump(r.out);
	EXPECT_EQ(d.env["SMC_DEBUG"], "1");
	EXPECT_EQ(d.env["SMC_SNDBUF"], "8k");
	EXPECT_EQ(d.env.count("SMC_RCVBUF"), 0u);
}

TEST_P(SmcRun, OptionsOverrideInheritedSettings)
{
	Result r = smc_run({"-t", "4k", SMC_ARGV_DUMP}, {{"SMC_SNDBUF", "8k"}});
	ASSERT_EQ(r.status, 0) << r.err;
	EXPECT_EQ(parse_dump(r.out).env["SMC_SNDBUF"], "4k");
}

TEST_P(SmcRun, Help)
{
	Result r = smc_run({"-h"});
	EXPECT_EQ(r.status, 0);
	EXPECT_TRUE(contains(r.out, "usage: smc_run")) << r.out;
	EXPECT_EQ(r.err, "");
	// -h wins even with a program after it.
	r = smc_run({"-h", SMC_ARGV_DUMP, "x"});
	EXPECT_EQ(r.status, 0);
	EXPECT_TRUE(contains(r.out, "usage: smc_run"));
}

TEST_P(SmcRun, Version)
{
	Result r = smc_run({"-v"});
	EXPECT_EQ(r.status, 0);
	EXPECT_EQ(r.out, std::string("smc_run (smc-linux) ") + SMC_VERSION + "\n");
	EXPECT_EQ(r.err, "");
}

TEST_P(SmcRun, UsageErrorsExit2)
{
	const std::vector<std::vector<std::string>> cases = {
		{"-x", SMC_ARGV_DUMP},	// unknown option
		{"--long", SMC_ARGV_DUMP},
		{"-r"},			// missing SIZE
		{"-t"},
		{"-p"},			// missing PORTS
		{"-P"},			// missing NAMES
		{},			// no program
		{"-d"},
		{"-d", "--"},
	};
	for (const auto &args : cases) {
		Result r = smc_run(args);
		std::string what = args.empty() ? "(none)" : args[0];
		EXPECT_EQ(r.status, 2) << what;
		EXPECT_EQ(r.out, "") << what;
		EXPECT_TRUE(contains(r.err, "smc_run: ")) << what << ": " << r.err;
	}
}

TEST_P(SmcRun, InvalidSizesExit2)
{
	for (const char *size : {"", "0", "0k", "-1", "12x", "1kk", "1.5M", "0x10", " 8",
				 "k", "2147483648", "2048m", "2097152k", "99999999999",
				 "0000000000000000000000"}) {
		for (const char *opt : {"-r", "-t"}) {
			Result r = smc_run({opt, size, SMC_ARGV_DUMP});
			EXPECT_EQ(r.status, 2) << opt << " '" << size << "'";
			EXPECT_TRUE(contains(r.err, "invalid size")) << r.err;
			EXPECT_EQ(r.out, "");
		}
	}
}

TEST_P(SmcRun, ValidSizesAccepted)
{
	for (const char *size : {"1", "4096", "64k", "64K", "2m", "2M", "007", "2147483647",
				 "2047m", "00000000000000000001k"}) {
		Result r = smc_run({"-r", size, "-t", size, SMC_ARGV_DUMP});
		EXPECT_EQ(r.status, 0) << size << ": " << r.err;
		EXPECT_EQ(parse_dump(r.out).env["SMC_RCVBUF"], size);
	}
}

TEST_P(SmcRun, ExitStatusOfTheProgram)
{
	EXPECT_EQ(smc_run({"/bin/sh", "-c", "exit 7"}).status, 7);
	EXPECT_EQ(smc_run({"/bin/sh", "-c", "kill -TERM $$"}).status, 128 + SIGTERM);
	Result r = smc_run({"/nonexistent/program"});
	EXPECT_EQ(r.status, 127) << r.err;
}

TEST_P(SmcRun, RelocatedInstallTree)
{
	TempDir tmp;
	std::string tree = tmp.path() + "/tree";
	fs::create_directories(tree + "/bin");
	fs::create_directories(tree + "/lib");
	fs::copy_file(SMC_RUN, tree + "/bin/smc_run");
	fs::copy_file(SMC_PRELOAD_LIB, tree + "/lib/libsmc-preload.so");
	Result r = smc_run({SMC_ARGV_DUMP}, {}, tree + "/bin/smc_run");
	ASSERT_EQ(r.status, 0) << r.err;
	EXPECT_EQ(parse_dump(r.out).env["LD_PRELOAD"], tree + "/lib/libsmc-preload.so");

	// A relative path to the script gives an absolute library path.
	std::string cwd = fs::current_path();
	fs::current_path(tree);
	r = smc_run({SMC_ARGV_DUMP}, {}, "bin/smc_run");
	fs::current_path(cwd);
	ASSERT_EQ(r.status, 0) << r.err;
	EXPECT_EQ(parse_dump(r.out).env["LD_PRELOAD"], tree + "/lib/libsmc-preload.so");

	// Through a symbolic link somewhere else.
	fs::create_directories(tmp.path() + "/elsewhere");
	fs::create_symlink(tree + "/bin/smc_run", tmp.path() + "/elsewhere/smc_run");
	r = smc_run({SMC_ARGV_DUMP}, {}, tmp.path() + "/elsewhere/smc_run");
	ASSERT_EQ(r.status, 0) << r.err;
	EXPECT_EQ(parse_dump(r.out).env["LD_PRELOAD"], tree + "/lib/libsmc-preload.so");

	// Found in PATH (only meaningful when the kernel runs the script).
	if (GetParam().prefix.empty()) {
		std::string path = tree + "/bin:" + std::string(getenv("PATH") ?: "/usr/bin:/bin");
		r = run({"smc_run", SMC_ARGV_DUMP, "a b"}, {{"PATH", path}});
		ASSERT_EQ(r.status, 0) << r.err;
		Dump d = parse_dump(r.out);
		EXPECT_EQ(d.env["LD_PRELOAD"], tree + "/lib/libsmc-preload.so");
		EXPECT_EQ(d.args, std::vector<std::string>{"a b"});
	}
}

TEST_P(SmcRun, FallsBackToConfiguredLibdir)
{
	TempDir tmp;
	fs::create_directories(tmp.path() + "/bin");
	fs::copy_file(SMC_RUN_FALLBACK, tmp.path() + "/bin/smc_run");
	Result r = smc_run({SMC_ARGV_DUMP}, {}, tmp.path() + "/bin/smc_run");
	ASSERT_EQ(r.status, 0) << r.err;
	EXPECT_EQ(parse_dump(r.out).env["LD_PRELOAD"], canonical(SMC_PRELOAD_LIB));
}

TEST_P(SmcRun, MissingLibraryExits1)
{
	TempDir tmp;
	fs::create_directories(tmp.path() + "/bin");
	fs::copy_file(SMC_RUN, tmp.path() + "/bin/smc_run");
	// The configured libdir of this build is a real install location.
	std::string script = read_file(SMC_RUN);
	auto pos = script.find("fallback_libdir='");
	ASSERT_NE(pos, std::string::npos);
	std::string libdir = script.substr(pos + 17, script.find('\'', pos + 17) - pos - 17);
	if (fs::exists(libdir + "/libsmc-preload.so"))
		GTEST_SKIP() << "the library is installed in " << libdir;
	Result r = smc_run({SMC_ARGV_DUMP}, {}, tmp.path() + "/bin/smc_run");
	EXPECT_EQ(r.status, 1);
	EXPECT_EQ(r.out, "");
	EXPECT_TRUE(contains(r.err, "cannot find libsmc-preload.so")) << r.err;
}

TEST_P(SmcRun, RefusesLibraryPathWithBlank)
{
	TempDir tmp;
	std::string tree = tmp.path() + "/with blank";
	fs::create_directories(tree + "/bin");
	fs::create_directories(tree + "/lib");
	fs::copy_file(SMC_RUN, tree + "/bin/smc_run");
	fs::copy_file(SMC_PRELOAD_LIB, tree + "/lib/libsmc-preload.so");
	Result r = smc_run({SMC_ARGV_DUMP}, {}, tree + "/bin/smc_run");
	EXPECT_EQ(r.status, 1);
	EXPECT_TRUE(contains(r.err, "blank or a colon")) << r.err;
}

TEST_P(SmcRun, RunsAProgramOverLoopback)
{
	Result r = smc_run({"-d", "-t", "64k", SMC_PROBE, "loopback"});
	ASSERT_EQ(r.status, 0) << r.out << r.err;
	EXPECT_TRUE(contains(r.out, "\nok\n")) << r.out;
	const char *want = host_has_af_smc() ? "converted to socket(AF_SMC" : "fallback";
	EXPECT_TRUE(contains(r.err, want)) << r.err;
}

void PrintTo(const Shell &shell, std::ostream *os)
{
	*os << shell.name;
}

INSTANTIATE_TEST_SUITE_P(Shells, SmcRun, ::testing::ValuesIn(shells),
			 [](const auto &info) { return std::string(info.param.name); });

// ---------------------------------------------------------------------------
// The library.

const Env preload_only = {{"LD_PRELOAD", SMC_PRELOAD_LIB}};

// Preload the library and the fake AF_SMC shim behind it; `log` receives the
// AF_SMC calls.
Env with_fake(const std::string &log, const char *mode = "tcp", const Env &more = {})
{
	Env env = {{"LD_PRELOAD", std::string(SMC_PRELOAD_LIB) + ":" + SMC_FAKE_LIB},
		   {"SMC_FAKE_LOG", log}, {"SMC_FAKE_MODE", mode}};
	for (const auto &[k, v] : more)
		env[k] = v;
	return env;
}

Env merge(Env a, const Env &b)
{
	for (const auto &[k, v] : b)
		a[k] = v;
	return a;
}

Result probe(const std::vector<std::string> &args, const Env &env)
{
	std::vector<std::string> argv = {SMC_PROBE};
	argv.insert(argv.end(), args.begin(), args.end());
	return run(argv, env);
}

Result create(int domain, int type, int protocol, const Env &env)
{
	return probe({"create", std::to_string(domain), std::to_string(type),
		      std::to_string(protocol)}, env);
}

class Preload : public ::testing::Test {
protected:
	TempDir tmp;
	std::string log = tmp.path() + "/fake.log";

	std::vector<std::string> fake_calls() { return lines(read_file(log)); }
};

TEST_F(Preload, ExportsOnlySocketBindConnectAndNeedsOnlyLibc)
{
	if (access("/usr/bin/readelf", X_OK))
		GTEST_SKIP() << "no readelf";
	Result r = run({"/usr/bin/readelf", "-W", "--dyn-syms", SMC_PRELOAD_LIB});
	ASSERT_EQ(r.status, 0);
	std::vector<std::string> exported;
	for (const auto &l : lines(r.out)) {
		std::istringstream in(l);
		std::vector<std::string> f;
		for (std::string w; in >> w;)
			f.push_back(w);
		// Num: Value Size Type Bind Vis Ndx Name
		if (f.size() >= 8 && (f[4] == "GLOBAL" || f[4] == "WEAK") && f[6] != "UND")
			exported.push_back(f[7]);
	}
	std::sort(exported.begin(), exported.end());
	EXPECT_EQ(exported, (std::vector<std::string>{"bind", "connect", "socket"}));

	r = run({"/usr/bin/readelf", "-W", "-d", SMC_PRELOAD_LIB});
	ASSERT_EQ(r.status, 0);
	for (const auto &l : lines(r.out)) {
		if (!contains(l, "(NEEDED)"))
			continue;
		EXPECT_TRUE(contains(l, "[libc.so") || contains(l, "[libdl.so")) << l;
	}
	// No constructors of ours: the only .init_array entry allowed is the
	// toolchain's own (crtbeginS.o's frame_dummy), one pointer.
	for (const auto &l : lines(r.out)) {
		if (contains(l, "(INIT_ARRAYSZ)")) {
			long size = strtol(l.substr(l.find(')', l.find("INIT_ARRAYSZ")) + 1).c_str(),
					   nullptr, 10);
			EXPECT_LE(size, (long)sizeof(void *)) << l;
		}
	}
}

TEST_F(Preload, LoopbackTcpWorks)
{
	bool smc = host_has_af_smc();
	Result r = probe({"loopback"}, merge(preload_only, {{"SMC_DEBUG", "1"}}));
	ASSERT_EQ(r.status, 0) << r.out << r.err;
	EXPECT_TRUE(contains(r.out, "\nok\n"));
	for (const char *role : {"sock role=listen ", "sock role=client "}) {
		std::string l = line_with(r.out, role);
		EXPECT_EQ(field(l, "domain"), smc ? AF_SMC : AF_INET) << l;
	}
	if (smc) {
		EXPECT_TRUE(contains(r.err, "converted to socket(AF_SMC, SOCK_STREAM, SMCPROTO_SMC)"))
			<< r.err;
	} else {
		EXPECT_TRUE(contains(r.err, "socket(AF_INET, SOCK_STREAM, 0): AF_SMC failed ("))
			<< r.err;
		EXPECT_TRUE(contains(r.err, "fallback to the original socket")) << r.err;
	}
}

TEST_F(Preload, LoopbackTcp6Works)
{
	if (!host_has_ipv6_loopback())
		GTEST_SKIP() << "no IPv6 loopback on this host";
	bool smc = host_has_af_smc();
	Result r = probe({"loopback", "6"}, merge(preload_only, {{"SMC_DEBUG", "1"}}));
	ASSERT_EQ(r.status, 0) << r.out << r.err;
	std::string l = line_with(r.out, "sock role=client ");
	EXPECT_EQ(field(l, "domain"), smc ? AF_SMC : AF_INET6) << l;
	EXPECT_TRUE(contains(r.err, smc ? "SMCPROTO_SMC6" : "socket(AF_INET6, SOCK_STREAM, 6)"))
		<< r.err;
}

TEST_F(Preload, ForcedFallbackKeepsTcpWorking)
{
	Result r = probe({"loopback"}, with_fake(log, "fail", {{"SMC_DEBUG", "1"}}));
	ASSERT_EQ(r.status, 0) << r.out << r.err;
	EXPECT_EQ(field(line_with(r.out, "sock role=client "), "domain"), AF_INET);
	// The listening and the connecting socket tried AF_SMC first.
	auto calls = fake_calls();
	ASSERT_EQ(calls.size(), 2u) << read_file(log);
	for (const auto &c : calls)
		EXPECT_EQ(c, "AF_SMC domain=43 type=1 protocol=0 fd=-1 errno=97");
	EXPECT_TRUE(contains(r.err, "AF_SMC failed (Address family not supported by protocol), "
				    "fallback to the original socket"))
		<< r.err;
}

TEST_F(Preload, ConvertsInetStream)
{
	Result r = create(AF_INET, SOCK_STREAM, 0, with_fake(log, "tcp", {{"SMC_DEBUG", "1"}}));
	ASSERT_EQ(r.status, 0) << r.out << r.err;
	ASSERT_EQ(fake_calls().size(), 1u);
	EXPECT_EQ(fake_calls()[0].rfind("AF_SMC domain=43 type=1 protocol=0 fd=", 0), 0u)
		<< fake_calls()[0];
	EXPECT_TRUE(contains(r.err, "smc-preload: ")) << r.err;
	EXPECT_TRUE(contains(r.err, "socket(AF_INET, SOCK_STREAM, 0): converted to socket(AF_SMC, "
				    "SOCK_STREAM, SMCPROTO_SMC) = "))
		<< r.err;
	// The fd the program got is the one the AF_SMC call returned.
	EXPECT_EQ(field(line_with(r.out, "fd="), "fd"),
		  field(" " + fake_calls()[0], "fd"));
}

TEST_F(Preload, ConvertsInetStreamWithProtocolTcp)
{
	Result r = create(AF_INET, SOCK_STREAM, IPPROTO_TCP, with_fake(log));
	ASSERT_EQ(r.status, 0) << r.out << r.err;
	ASSERT_EQ(fake_calls().size(), 1u);
	EXPECT_EQ(field(fake_calls()[0], "protocol"), SMCPROTO_SMC);
}

// SMC_MODE=inet: socket(the same family, the same type and flags, IPPROTO_SMC).
TEST_F(Preload, InetModeUsesIpprotoSmc)
{
	for (int domain : {AF_INET, AF_INET6}) {
		fs::remove(log);
		Result r = create(domain, SOCK_STREAM | SOCK_CLOEXEC, 0,
				  with_fake(log, "tcp", {{"SMC_MODE", "inet"}, {"SMC_DEBUG", "1"}}));
		ASSERT_EQ(fake_calls().size(), 1u) << read_file(log);
		const std::string c = fake_calls()[0];
		EXPECT_EQ(c.rfind("IPPROTO_SMC ", 0), 0u) << c;
		EXPECT_EQ(field(c, "domain"), domain) << c;
		EXPECT_EQ(field(c, "type"), SOCK_STREAM | SOCK_CLOEXEC) << c;
		EXPECT_EQ(field(c, "protocol"), IPPROTO_SMC) << c;
		if (domain == AF_INET || host_has_ipv6_loopback()) {
			EXPECT_EQ(r.status, 0) << r.out << r.err;
			EXPECT_EQ(field(line_with(r.out, "fd="), "fd"), field(" " + c, "fd"));
		}
		EXPECT_TRUE(contains(r.err, "IPPROTO_SMC) = ")) << r.err;
	}
}

// SMC_MODE=inet where the kernel has no IPPROTO_SMC: TCP, never AF_SMC.
TEST_F(Preload, InetModeFallsBackToTcp)
{
	Result r = probe({"loopback"}, with_fake(log, "noinet", {{"SMC_MODE", "inet"},
								{"SMC_DEBUG", "1"}}));
	ASSERT_EQ(r.status, 0) << r.out << r.err;
	EXPECT_EQ(field(line_with(r.out, "sock role=client "), "domain"), AF_INET);
	for (const auto &c : fake_calls())
		EXPECT_EQ(c.rfind("IPPROTO_SMC domain=2 type=1 protocol=256 fd=-1 errno=93", 0), 0u)
			<< c;
	EXPECT_TRUE(contains(r.err, "IPPROTO_SMC failed (Protocol not supported), "
				    "fallback to the original socket"))
		<< r.err;
}

// SMC_MODE=auto on a kernel without IPPROTO_SMC: AF_SMC, and the kernel is
// asked about IPPROTO_SMC once per process, not once per socket.
TEST_F(Preload, AutoModeFallsBackToAfSmcOnce)
{
	Result r = probe({"loopback"}, with_fake(log, "noinet", {{"SMC_MODE", "auto"}}));
	ASSERT_EQ(r.status, 0) << r.out << r.err;
	auto calls = fake_calls();
	ASSERT_EQ(calls.size(), 3u) << read_file(log);
	EXPECT_EQ(calls[0].rfind("IPPROTO_SMC domain=2 type=1 protocol=256 fd=-1 errno=93", 0), 0u)
		<< calls[0];
	EXPECT_EQ(calls[1].rfind("AF_SMC domain=43 type=1 protocol=0 fd=", 0), 0u) << calls[1];
	EXPECT_EQ(calls[2].rfind("AF_SMC domain=43 type=1 protocol=0 fd=", 0), 0u) << calls[2];
}

// SMC_MODE=auto where IPPROTO_SMC exists: it, and no AF_SMC call.
TEST_F(Preload, AutoModePrefersIpprotoSmc)
{
	Result r = probe({"loopback"}, with_fake(log, "tcp", {{"SMC_MODE", "auto"}}));
	ASSERT_EQ(r.status, 0) << r.out << r.err;
	auto calls = fake_calls();
	ASSERT_EQ(calls.size(), 2u) << read_file(log);
	for (const auto &c : calls)
		EXPECT_EQ(c.rfind("IPPROTO_SMC domain=2 ", 0), 0u) << c;
}

TEST_F(Preload, InvalidModeIsSmc)
{
	Result r = create(AF_INET, SOCK_STREAM, 0,
			  with_fake(log, "tcp", {{"SMC_MODE", "inet6"}, {"SMC_DEBUG", "1"}}));
	ASSERT_EQ(r.status, 0) << r.out << r.err;
	ASSERT_EQ(fake_calls().size(), 1u);
	EXPECT_EQ(fake_calls()[0].rfind("AF_SMC ", 0), 0u) << fake_calls()[0];
	EXPECT_TRUE(contains(r.err, "SMC_MODE='inet6' is invalid")) << r.err;
}

TEST_F(Preload, ConvertsInet6Stream)
{
	for (int proto : {0, (int)IPPROTO_TCP}) {
		fs::remove(log);
		Result r = create(AF_INET6, SOCK_STREAM, proto, with_fake(log));
		ASSERT_EQ(fake_calls().size(), 1u) << proto;
		EXPECT_EQ(field(fake_calls()[0], "domain"), AF_SMC);
		EXPECT_EQ(field(fake_calls()[0], "type"), SOCK_STREAM);
		EXPECT_EQ(field(fake_calls()[0], "protocol"), SMCPROTO_SMC6);
		if (host_has_ipv6_loopback()) {
			EXPECT_EQ(r.status, 0) << r.out;
		}
	}
}

TEST_F(Preload, KeepsNonblockAndCloexecFlags)
{
	const int flag_sets[] = {SOCK_NONBLOCK, SOCK_CLOEXEC, SOCK_NONBLOCK | SOCK_CLOEXEC};
	for (int flags : flag_sets) {
		fs::remove(log);
		Result r = create(AF_INET, SOCK_STREAM | flags, 0, with_fake(log));
		ASSERT_EQ(r.status, 0) << r.out << r.err;
		ASSERT_EQ(fake_calls().size(), 1u);
		EXPECT_EQ(field(fake_calls()[0], "type"), SOCK_STREAM | flags);
		std::string l = line_with(r.out, "fd=");
		EXPECT_EQ(field(l, "nonblock"), (flags & SOCK_NONBLOCK) ? 1 : 0) << l;
		EXPECT_EQ(field(l, "cloexec"), (flags & SOCK_CLOEXEC) ? 1 : 0) << l;
	}
}

TEST_F(Preload, LeavesOtherSocketsAlone)
{
	struct Case {
		int domain, type, protocol;
	};
	const Case cases[] = {
		{AF_INET, SOCK_DGRAM, 0},
		{AF_INET, SOCK_DGRAM, IPPROTO_UDP},
		{AF_INET6, SOCK_DGRAM, 0},
		{AF_UNIX, SOCK_STREAM, 0},
		{AF_UNIX, SOCK_DGRAM, 0},
		{AF_UNIX, SOCK_SEQPACKET, 0},
		{AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0},
		{AF_INET, SOCK_STREAM, IPPROTO_SCTP},		// not TCP
		{AF_INET, SOCK_STREAM, IPPROTO_MPTCP},		// not plain TCP
		{AF_INET, SOCK_STREAM, IPPROTO_UDP},		// invalid: EPROTONOSUPPORT
		{AF_INET, SOCK_STREAM | 0x100, 0},		// unknown flag bits: EINVAL
		{AF_INET, SOCK_SEQPACKET, 0},
		{AF_INET, SOCK_RAW, IPPROTO_ICMP},
		{AF_NETLINK, SOCK_RAW, 0},
		{AF_SMC, SOCK_STREAM, SMCPROTO_SMC},	// already AF_SMC: passed on as is
	};
	for (const auto &c : cases) {
		fs::remove(log);
		Result plain = create(c.domain, c.type, c.protocol, {});
		Result pre = create(c.domain, c.type, c.protocol,
				    with_fake(log, "fail", {{"SMC_DEBUG", "1"}}));
		std::string what = std::to_string(c.domain) + "/" + std::to_string(c.type) + "/" +
				   std::to_string(c.protocol);
		if (c.domain == AF_SMC) {
			// The program's own AF_SMC call reaches the next socket()
			// (here the shim) exactly once and unchanged.
			ASSERT_EQ(fake_calls().size(), 1u) << what;
			EXPECT_EQ(field(fake_calls()[0], "protocol"), SMCPROTO_SMC);
			continue;
		}
		EXPECT_TRUE(fake_calls().empty()) << what << ": " << read_file(log);
		EXPECT_EQ(pre.status, plain.status) << what;
		std::string pl = line_with(plain.out, plain.status ? "error" : "fd=");
		std::string pr = line_with(pre.out, pre.status ? "error" : "fd=");
		for (const char *key : {"domain", "type", "protocol", "errno", "cloexec"})
			EXPECT_EQ(field(pr, key), field(pl, key)) << what << " " << key;
		EXPECT_TRUE(contains(pre.err, "not TCP, untouched")) << what << ": " << pre.err;
	}
}

// What getsockopt() reports after setsockopt(size) on this kernel.
long kernel_value(long size, const char *max_sysctl)
{
	long max = sysctl_long(max_sysctl);
	return 2 * std::min(size, max);
}

TEST_F(Preload, AppliesBufferSizesToConvertedSockets)
{
	const std::pair<const char *, long> sizes[][2] = {
		{{"65536", 65536}, {"98304", 98304}},
		{{"64k", 65536}, {"96K", 98304}},
		{{"1M", 1048576}, {"2m", 2097152}},
		{{"40000", 40000}, {"1", 1}},
	};
	for (const auto &s : sizes) {
		fs::remove(log);
		Result r = create(AF_INET, SOCK_STREAM, 0,
				  with_fake(log, "tcp",
					    {{"SMC_SNDBUF", s[0].first}, {"SMC_RCVBUF", s[1].first},
					     {"SMC_DEBUG", "1"}}));
		ASSERT_EQ(r.status, 0) << r.out << r.err;
		std::string l = line_with(r.out, "fd=");
		EXPECT_EQ(field(l, "sndbuf"), kernel_value(s[0].second, "/proc/sys/net/core/wmem_max"))
			<< s[0].first << ": " << l;
		long rcv = field(l, "rcvbuf");
		// Tiny values are raised to the kernel's minimum.
		if (s[1].second >= 4096)
			EXPECT_EQ(rcv, kernel_value(s[1].second, "/proc/sys/net/core/rmem_max")) << l;
		else
			EXPECT_LT(rcv, 8192) << l;
		EXPECT_TRUE(contains(r.err, "SO_SNDBUF " + std::to_string(s[0].second) + " set"))
			<< r.err;
	}
}

TEST_F(Preload, BufferSizesOnlyForConvertedSockets)
{
	Result base = create(AF_INET, SOCK_STREAM, 0, {});
	ASSERT_EQ(base.status, 0);
	std::string bl = line_with(base.out, "fd=");
	const Env sizes = {{"SMC_SNDBUF", "40000"}, {"SMC_RCVBUF", "50000"}};

	// AF_SMC unavailable: the fallback TCP socket keeps its defaults.
	Result r = create(AF_INET, SOCK_STREAM, 0, with_fake(log, "fail", sizes));
	ASSERT_EQ(r.status, 0) << r.out << r.err;
	std::string l = line_with(r.out, "fd=");
	EXPECT_EQ(field(l, "sndbuf"), field(bl, "sndbuf"));
	EXPECT_EQ(field(l, "rcvbuf"), field(bl, "rcvbuf"));

	// Not TCP: untouched.
	Result ubase = create(AF_INET, SOCK_DGRAM, 0, {});
	Result u = create(AF_INET, SOCK_DGRAM, 0, with_fake(log, "tcp", sizes));
	EXPECT_EQ(field(line_with(u.out, "fd="), "sndbuf"),
		  field(line_with(ubase.out, "fd="), "sndbuf"));
	EXPECT_EQ(field(line_with(u.out, "fd="), "rcvbuf"),
		  field(line_with(ubase.out, "fd="), "rcvbuf"));
}

TEST_F(Preload, InvalidSizesAreReportedAndIgnored)
{
	// The fake answers with a TCP socket, so the defaults are TCP's.
	Result base = create(AF_INET, SOCK_STREAM, 0, {});
	std::string bl = line_with(base.out, "fd=");
	for (const char *bad : {"0", "-5", "12x", "1kk", "1.5k", "0x10", " 8", "k",
				"2147483648", "4096m", "1G"}) {
		for (const char *var : {"SMC_SNDBUF", "SMC_RCVBUF"}) {
			Result r = create(AF_INET, SOCK_STREAM, 0,
					  with_fake(log, "tcp", {{var, bad}, {"SMC_DEBUG", "1"}}));
			ASSERT_EQ(r.status, 0) << r.out << r.err;
			std::string l = line_with(r.out, "fd=");
			EXPECT_EQ(field(l, "sndbuf"), field(bl, "sndbuf")) << var << "=" << bad;
			EXPECT_EQ(field(l, "rcvbuf"), field(bl, "rcvbuf")) << var << "=" << bad;
			std::string msg = std::string(var) + "='" + bad + "' is invalid (";
			EXPECT_TRUE(contains(r.err, msg)) << r.err;
			EXPECT_TRUE(contains(r.err, "); ignored")) << r.err;

			// Without SMC_DEBUG: ignored silently.
			r = create(AF_INET, SOCK_STREAM, 0, with_fake(log, "tcp", {{var, bad}}));
			EXPECT_EQ(r.err, "");
		}
	}
	// Empty is the same as unset, not an error.
	Result r = create(AF_INET, SOCK_STREAM, 0,
			  with_fake(log, "tcp", {{"SMC_SNDBUF", ""}, {"SMC_DEBUG", "1"}}));
	EXPECT_FALSE(contains(r.err, "invalid")) << r.err;
	EXPECT_EQ(field(line_with(r.out, "fd="), "sndbuf"), field(bl, "sndbuf"));
}

TEST_F(Preload, DebugOutputFormat)
{
	// Off unless asked for.
	for (const Env &env : {Env{}, Env{{"SMC_DEBUG", "0"}}, Env{{"SMC_DEBUG", ""}}}) {
		Result r = probe({"loopback"}, merge(with_fake(log, "fail"), env));
		EXPECT_EQ(r.status, 0);
		EXPECT_EQ(r.err, "");
		r = probe({"loopback"}, merge(preload_only, env));
		EXPECT_EQ(r.status, 0);
		EXPECT_EQ(r.err, "");
	}
	// One prefixed line per decision.
	Result r = probe({"loopback"}, with_fake(log, "tcp", {{"SMC_DEBUG", "1"},
							      {"SMC_SNDBUF", "8k"}}));
	ASSERT_EQ(r.status, 0) << r.err;
	auto err = lines(r.err);
	for (const auto &l : err)
		EXPECT_EQ(l.rfind("smc-preload: [", 0), 0u) << l;
	// SMC_SNDBUF reported once; 2 conversions with one SO_SNDBUF line each.
	ASSERT_EQ(err.size(), 5u) << r.err;
}

TEST_F(Preload, SixtyFourThreadsFirstCall)
{
	const int rounds = 25;
	for (int i = 0; i < rounds; i++) {
		Result r = probe({"threads", "64"}, preload_only);
		ASSERT_EQ(r.status, 0) << "round " << i << ": " << r.out << r.err;
		EXPECT_EQ(r.out, "threads=64 failed=0\n");
	}
}

TEST_F(Preload, SixtyFourThreadsFirstCallAllConverted)
{
	const int rounds = 25;
	for (int i = 0; i < rounds; i++) {
		fs::remove(log);
		// An invalid size: reported by exactly one of the racing threads.
		Result r = probe({"threads", "64"},
				 with_fake(log, "tcp", {{"SMC_DEBUG", "1"}, {"SMC_RCVBUF", "bad"},
							{"SMC_SNDBUF", "16k"}}));
		ASSERT_EQ(r.status, 0) << "round " << i << ": " << r.out << r.err;
		EXPECT_EQ(r.out, "threads=64 failed=0\n");
		auto calls = fake_calls();
		ASSERT_EQ(calls.size(), 64u);
		for (const auto &c : calls)
			EXPECT_EQ(c.substr(0, 34), "AF_SMC domain=43 type=1 protocol=0");
		size_t reports = 0, converted = 0, sndbuf = 0;
		for (const auto &l : lines(r.err)) {
			reports += contains(l, "SMC_RCVBUF='bad' is invalid");
			converted += contains(l, "converted to socket(AF_SMC");
			sndbuf += contains(l, "SO_SNDBUF 16384 set");
		}
		EXPECT_EQ(reports, 1u) << r.err;
		EXPECT_EQ(converted, 64u);
		EXPECT_EQ(sndbuf, 64u);
	}
}

TEST_F(Preload, SixtyFourThreadsForcedFallback)
{
	for (int i = 0; i < 10; i++) {
		fs::remove(log);
		Result r = probe({"threads", "64"}, with_fake(log, "fail"));
		ASSERT_EQ(r.status, 0) << r.out << r.err;
		EXPECT_EQ(r.out, "threads=64 failed=0\n");
		EXPECT_EQ(fake_calls().size(), 64u);
	}
}

// A TCP port nobody listens on now, for SMC_PORTS.
int free_port()
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {};
	socklen_t len = sizeof(a);
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(fd, (struct sockaddr *)&a, &len))
		abort();
	close(fd);
	return ntohs(a.sin_port);
}

// SMC_PORTS: the listener bound to a listed port and the client connected to
// it are replaced at bind() and connect(), with the options they set before.
TEST_F(Preload, PortFilterConvertsListedPort)
{
	int port = free_port();
	Result r = probe({"loopback", "port", std::to_string(port)},
			 with_fake(log, "tcp", {{"SMC_PORTS", "1," + std::to_string(port)},
						{"SMC_DEBUG", "1"}}));
	ASSERT_EQ(r.status, 0) << r.out << r.err;
	auto calls = fake_calls();
	ASSERT_EQ(calls.size(), 2u) << read_file(log);
	for (const auto &c : calls)
		EXPECT_EQ(c.rfind("AF_SMC domain=43 type=524289 protocol=0 fd=", 0), 0u) << c;
	std::string listener = line_with(r.out, "sock role=listen ");
	std::string client = line_with(r.out, "sock role=client ");
	// The program's fds, options and addresses are those it set up.
	EXPECT_EQ(field(listener, "reuseaddr"), 1) << listener;
	EXPECT_EQ(field(listener, "lport"), port) << listener;
	EXPECT_EQ(field(client, "nodelay"), 1) << client;
	EXPECT_EQ(field(client, "keepalive"), 1) << client;
	EXPECT_EQ(field(client, "cloexec"), 0) << client;
	EXPECT_TRUE(contains(r.err, "bind() to port " + std::to_string(port) +
					    ", listed in SMC_PORTS: replaced by socket(AF_SMC, "))
		<< r.err;
	EXPECT_TRUE(contains(r.err, "connect() to port " + std::to_string(port) +
					    ", listed in SMC_PORTS: replaced by socket(AF_SMC, "))
		<< r.err;
	EXPECT_TRUE(contains(r.err, "TCP until bind() or connect() names a port of SMC_PORTS"))
		<< r.err;
}

TEST_F(Preload, PortFilterLeavesOtherPorts)
{
	int port = free_port();
	Result r = probe({"loopback", "port", std::to_string(port)},
			 with_fake(log, "tcp", {{"SMC_PORTS", std::to_string(port == 1 ? 2 : 1)}}));
	ASSERT_EQ(r.status, 0) << r.out << r.err;
	EXPECT_TRUE(fake_calls().empty()) << read_file(log);
}

// A client that binds to an address first keeps it on the SMC socket.
TEST_F(Preload, PortFilterKeepsTheClientsLocalAddress)
{
	int port = free_port();
	Result r = probe({"loopback", "port", std::to_string(port), "bindfirst"},
			 with_fake(log, "tcp", {{"SMC_PORTS", std::to_string(port)}}));
	ASSERT_EQ(r.status, 0) << r.out << r.err;
	EXPECT_EQ(fake_calls().size(), 2u) << read_file(log);
	std::string client = line_with(r.out, "sock role=client ");
	EXPECT_TRUE(contains(client, " local=127.0.0.1 ")) << client;
	EXPECT_GT(field(client, "lport"), 0) << client;
}

// Where the SMC socket cannot be made, the TCP socket stays and works.
TEST_F(Preload, PortFilterWithoutSmcKeepsTcp)
{
	int port = free_port();
	Result r = probe({"loopback", "port", std::to_string(port), "bindfirst"},
			 with_fake(log, "fail", {{"SMC_PORTS", std::to_string(port)},
						 {"SMC_DEBUG", "1"}}));
	ASSERT_EQ(r.status, 0) << r.out << r.err;
	EXPECT_EQ(fake_calls().size(), 2u) << read_file(log);
	EXPECT_TRUE(contains(r.err, "AF_SMC failed (Address family not supported by protocol), "
				    "the TCP socket stays"))
		<< r.err;
	EXPECT_TRUE(contains(r.out, "\nok\n"));
}

TEST_F(Preload, ProgramFilter)
{
	Result r = create(AF_INET, SOCK_STREAM, 0,
			  with_fake(log, "tcp", {{"SMC_PROGRAMS", "nginx,redis-server"},
						 {"SMC_DEBUG", "1"}}));
	ASSERT_EQ(r.status, 0) << r.out << r.err;
	EXPECT_TRUE(fake_calls().empty()) << read_file(log);
	EXPECT_TRUE(contains(r.err, "program 'smc-preload-probe' (argv[0] 'smc-preload-probe') "
				    "is not in SMC_PROGRAMS='nginx,redis-server'"))
		<< r.err;
	EXPECT_TRUE(contains(r.err, "TCP, this program is not converted")) << r.err;

	r = create(AF_INET, SOCK_STREAM, 0,
		   with_fake(log, "tcp", {{"SMC_PROGRAMS", "nginx,smc-preload-probe"}}));
	ASSERT_EQ(r.status, 0) << r.out << r.err;
	EXPECT_EQ(fake_calls().size(), 1u) << read_file(log);
}

// A filter the library cannot read converts nothing: TCP always works.
TEST_F(Preload, InvalidFiltersConvertNothing)
{
	for (const auto &[name, value] : std::vector<std::pair<std::string, std::string>>{
		     {"SMC_PORTS", "80,"}, {"SMC_PORTS", "0"}, {"SMC_PROGRAMS", "/bin/x"}}) {
		int port = free_port();
		Result r = probe({"loopback", "port", std::to_string(port)},
				 with_fake(log, "tcp", {{name, value}, {"SMC_DEBUG", "1"}}));
		ASSERT_EQ(r.status, 0) << r.out << r.err;
		EXPECT_TRUE(fake_calls().empty()) << name << "=" << value;
		EXPECT_TRUE(contains(r.err, name + "='" + value + "' is invalid (")) << r.err;
		EXPECT_TRUE(contains(r.err, "; no socket is converted")) << r.err;
	}
}

TEST_F(Preload, AfSmcAvailabilityMatchesHost)
{
	// The probe's direct socket(AF_SMC) is never rewritten by the library.
	Result r = probe({"has-smc"}, preload_only);
	EXPECT_EQ(r.status, host_has_af_smc() ? 0 : 1) << r.out;
	if (!host_has_af_smc()) {
		EXPECT_TRUE(contains(r.out, "Address family not supported")) << r.out;
	}
}

// ---------------------------------------------------------------------------
// The VM selftest, run on the host under busybox ash: on a host without
// AF_SMC it checks the fallback; it must at least parse and pass there.

TEST(VmSelftest, RunsUnderBusyboxAshOnTheHost)
{
	if (access("/usr/bin/busybox", X_OK))
		GTEST_SKIP() << "no busybox";
	TempDir tmp;
	Result r = run({"/usr/bin/busybox", "sh", SMC_VM_SCRIPT},
		       {{"SMC_RUN", SMC_RUN}, {"SMC_PRELOAD_PROBE", SMC_PROBE},
			{"TMPDIR", tmp.path()}});
	EXPECT_EQ(r.status, 0) << r.out << r.err;
	EXPECT_FALSE(contains(r.out, "not ok")) << r.out;
	EXPECT_TRUE(contains(r.out, host_has_af_smc() ? "ok 1 " : "# SKIP")) << r.out;
}

} // namespace
