// SPDX-License-Identifier: GPL-2.0
#include "smc_dbg.h"

#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <fcntl.h>
#include <poll.h>
#include <sys/klog.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "tool_cli.h"
#include "tar_writer.h"
#include "text.h"

namespace smc {

namespace fs = std::filesystem;

namespace {

enum Opt { opt_output };

constexpr OptionSpec specs[] = {
	{'o', "output", true, opt_output},
};

constexpr ToolCli cli = {
	"smc_dbg", specs, false,
	"Usage: smc_dbg [-o PATH]\n"
	"Collect what a bug report about SMC needs into one tarball: versions, modules,\n"
	"smcss, the PNET table, link groups, devices, statistics, net.smc sysctls,\n"
	"kernel messages about smc and rxe, interfaces and RDMA links.\n",
	"  -o, --output PATH   the tarball (default: smc_dbg-HOST-TIME.tar here);\n"
	"                      a directory puts the default name there\n",
	"A source that fails is recorded in its member and in index.txt; smc_dbg\n"
	"fails only when it cannot write the tarball.\n",
	22,
};

constexpr int command_timeout_ms = 10000;

Result<std::string> read_kernel_log()
{
	int size = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, nullptr, 0);
	if (size <= 0)
		size = 1 << 20;
	std::string buf(static_cast<std::size_t>(size), '\0');
	int n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf.data(), size);
	if (n < 0)
		return make_error(errno, std::string("cannot read kernel messages: ") + std::strerror(errno) +
				  (errno == EPERM ? " (needs CAP_SYSLOG, or kernel.dmesg_restrict=0)" : ""));
	buf.resize(static_cast<std::size_t>(n));
	return buf;
}

// Runs argv with stdout and stderr into one pipe, at most 10 s.
Result<std::string> run_command(const std::vector<std::string> &argv)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0)
		return make_error(errno, std::string("pipe: ") + std::strerror(errno));
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(p[0]);
		close(p[1]);
		return make_error(e, std::string("fork: ") + std::strerror(e));
	}
	if (pid == 0) {
		dup2(p[1], 1);
		dup2(p[1], 2);
		int devnull = open("/dev/null", O_RDONLY);
		if (devnull >= 0)
			dup2(devnull, 0);
		std::vector<char *> a;
		for (const auto &s : argv)
			a.push_back(const_cast<char *>(s.c_str()));
		a.push_back(nullptr);
		execvp(a[0], a.data());
		_exit(errno == ENOENT ? 127 : 126);
	}
	close(p[1]);
	std::string out;
	long deadline = monotonic_ms() + command_timeout_ms;
	bool timed_out = false;
	for (;;) {
		long left = deadline - monotonic_ms();
		if (left <= 0) {
			timed_out = true;
			break;
		}
		pollfd pf{p[0], POLLIN, 0};
		int n = poll(&pf, 1, static_cast<int>(left));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			timed_out = n == 0;
			break;
		}
		char buf[4096];
		ssize_t r = read(p[0], buf, sizeof(buf));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		out.append(buf, static_cast<std::size_t>(r));
	}
	close(p[0]);
	if (timed_out)
		kill(pid, SIGKILL);
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
	}
	if (timed_out)
		return make_error(ETIMEDOUT, argv[0] + " did not finish within " +
				  std::to_string(command_timeout_ms / 1000) + " s\n" + out);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		return make_error(ENOENT, argv[0] + ": command not found");
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return make_error(EIO, argv[0] + " failed (" +
				  (WIFEXITED(status) ? "exit " + std::to_string(WEXITSTATUS(status))
						     : "signal " + std::to_string(WTERMSIG(status))) +
				  "): " + trim(out.substr(0, out.find('\n'))));
	return out;
}

std::string default_name(DbgSystem &sys)
{
	std::time_t t = sys.now();
	std::tm tm{};
	gmtime_r(&t, &tm);
	char stamp[32];
	std::strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	std::string host = sys.hostname();
	for (auto &c : host)
		if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '.')
			c = '_';
	return "smc_dbg-" + (host.empty() ? std::string("host") : host) + "-" + stamp + ".tar";
}

} // namespace

DbgSystem real_dbg_system()
{
	DbgSystem s;
	s.kernel_log = read_kernel_log;
	s.run = run_command;
	s.now = [] { return std::time(nullptr); };
	s.hostname = [] {
		char buf[256] = "";
		gethostname(buf, sizeof(buf) - 1);
		return std::string(buf);
	};
	return s;
}

int smc_dbg_run(const std::vector<std::string> &args, ToolEnv &env, DbgSystem &sys)
{
	auto cmd = parse_tool_args(cli, std::span(args).subspan(args.empty() ? 0 : 1), env);
	if (const int *rc = std::get_if<int>(&cmd))
		return *rc;
	const auto &tool = std::get<ToolArgs>(cmd);
	if (!tool.parsed.operands.empty())
		return tool_usage_error(cli, env, "unexpected argument '" +
					tool.parsed.operands[0] + "'");
	std::string output;
	for (const auto &o : tool.parsed.options) {
		switch (o.id) {
		case opt_output: output = o.arg; break;
		}
	}
	fs::path path;
	std::error_code ec;
	if (output.empty())
		path = fs::path(sys.cwd) / default_name(sys);
	else if (fs::is_directory(output, ec))
		path = fs::path(output) / default_name(sys);
	else
		path = output;
	// The members sit in a directory named after the tarball.
	std::string top = path.filename().string();
	if (top.size() > 4 && top.ends_with(".tar"))
		top.resize(top.size() - 4);

	std::vector<DbgItem> items = collect_dbg_items(env, sys);
	std::string index = "smc_dbg " + env.version + ", " + std::to_string(items.size()) +
			    " members besides this one\n";
	std::size_t failed = 0;
	for (const auto &i : items) {
		index += i.name + ": " + (i.error.empty() ? "ok" : "ERROR: " + i.error) + "\n";
		failed += !i.error.empty();
	}
	TarWriter tar(sys.now());
	auto added = tar.add_dir(top);
	if (added)
		added = tar.add_file(top + "/index.txt", index);
	for (const auto &i : items)
		if (added)
			added = tar.add_file(top + "/" + i.name, i.content);
	if (!added) {
		env.err << "smc_dbg: " << added.error().message << '\n';
		return exit_error;
	}
	std::string data = tar.finish();
	{
		std::ofstream f(path, std::ios::binary | std::ios::trunc);
		if (f)
			f.write(data.data(), static_cast<std::streamsize>(data.size()));
		if (!f || !f.flush()) {
			env.err << "smc_dbg: cannot write " << path.string() << ": " << std::strerror(errno)
				<< '\n';
			return exit_error;
		}
	}
	env.out << "smc_dbg: wrote " << path.string() << " (" << items.size() + 1 << " files, "
		<< failed << " sources with errors; see index.txt)\n";
	return exit_ok;
}

int smc_dbg_main(const std::vector<std::string> &args, ToolEnv &env)
{
	DbgSystem sys = real_dbg_system();
	return smc_dbg_run(args, env, sys);
}

} // namespace smc
