// SPDX-License-Identifier: GPL-2.0
//
// smc_chk -S: accept connections on an AF_SMC socket (TCP when the kernel
// has no AF_SMC), tell each client how the connection runs as the server's
// sock_diag sees it, and answer RDMA CM connection requests on the same
// port. Runs until SIGINT or SIGTERM.
#include <cerrno>
#include <csignal>
#include <cstring>
#include <vector>

#include <netinet/in.h>
#include <poll.h>
#include <unistd.h>

#include "chk_report.h"
#include "chk_socket.h"
#include "clock.h"
#include "smc_chk.h"

namespace smc {

namespace {

volatile std::sig_atomic_t stop_requested = 0;

void on_stop(int) { stop_requested = 1; }

// How long a client may keep its connection open after the report.
constexpr long client_linger_ms = 30000;

struct Client {
	UniqueFd fd;
	long since = 0;
};

Result<ChkSocket> listen_socket(const ChkOptions &opt)
{
	auto s = open_chk_socket(opt.ipv6);
	if (!s)
		return s.error();
	int one = 1;
	setsockopt(s->fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	sockaddr_storage a{};
	socklen_t len;
	if (opt.ipv6) {
		auto &a6 = reinterpret_cast<sockaddr_in6 &>(a);
		a6.sin6_family = AF_INET6;
		a6.sin6_addr = in6addr_any;
		a6.sin6_port = htons(static_cast<std::uint16_t>(opt.port));
		len = sizeof(a6);
	} else {
		auto &a4 = reinterpret_cast<sockaddr_in &>(a);
		a4.sin_family = AF_INET;
		a4.sin_addr.s_addr = htonl(INADDR_ANY);
		a4.sin_port = htons(static_cast<std::uint16_t>(opt.port));
		len = sizeof(a4);
	}
	if (bind(s->fd.get(), reinterpret_cast<sockaddr *>(&a), len) < 0)
		return make_error(errno, "cannot bind port " + std::to_string(opt.port) + ": " +
				  std::strerror(errno));
	if (listen(s->fd.get(), 16) < 0)
		return make_error(errno, std::string("cannot listen: ") + std::strerror(errno));
	return s;
}

std::string peer_of(int fd)
{
	sockaddr_storage a{};
	socklen_t len = sizeof(a);
	if (getpeername(fd, reinterpret_cast<sockaddr *>(&a), &len) < 0)
		return "?";
	std::string addr = address_text(a);
	if (a.ss_family == AF_INET6)
		addr = "[" + addr + "]";
	return addr + ":" + std::to_string(port_of(a));
}

void serve_one(int fd, bool af_smc, const ChkOptions &opt, ToolEnv &env)
{
	EndView v;
	if (af_smc) {
		v = query_end_view(env.netlink, socket_inode(fd));
	} else {
		v.af_smc = false;
		v.mode = ConnMode::tcp;
	}
	std::string line = encode_server_line(v);
	// One short line: it fits any socket buffer, so a blocking send is fine.
	if (send(fd, line.data(), line.size(), MSG_NOSIGNAL) < 0 && opt.debug)
		env.out << "smc_chk: cannot answer the client: " << std::strerror(errno) << '\n';
	env.out << "connection from " << peer_of(fd) << ": ";
	if (!v.af_smc)
		env.out << "TCP (no AF_SMC)";
	else if (v.mode == ConnMode::unknown)
		env.out << "cannot tell: " << v.error;
	else if (v.mode == ConnMode::tcp)
		env.out << "TCP fallback " << reason_pair(v);
	else
		env.out << conn_mode_text(v.mode);
	env.out << std::endl;
}

} // namespace

int chk_server(const ChkOptions &opt, ToolEnv &env, RdmaCm &cm)
{
	auto ls = listen_socket(opt);
	if (!ls) {
		env.err << "smc_chk: " << ls.error().message << '\n';
		return exit_error;
	}
	std::unique_ptr<CmListener> rdma;
	std::string rdma_note = "off (--no-rdma)";
	if (opt.rdma) {
		rdma = cm.listener();
		if (int err = rdma->listen(opt.port, opt.ipv6, opt.reject)) {
			CmContext ctx;
			rdma_note = "none: " + explain_call_error(CmStep::channel, err, ctx).sentence;
			rdma.reset();
		} else {
			rdma_note = opt.reject ? "rejecting every request (--reject)" : "accepting";
		}
	}
	struct sigaction sa{};
	sa.sa_handler = on_stop;
	sigaction(SIGINT, &sa, nullptr);
	sigaction(SIGTERM, &sa, nullptr);

	// Tests wait for this line: everything is listening once it is out.
	env.out << "smc_chk: server on port " << opt.port << (opt.ipv6 ? " (IPv6)" : " (IPv4)")
		<< ": " << (ls->af_smc ? "AF_SMC" : "TCP") << "; RDMA CM listener: " << rdma_note
		<< std::endl;
	if (!ls->note.empty())
		env.out << "smc_chk: note: " << ls->note << std::endl;

	std::vector<Client> clients;
	while (!stop_requested) {
		std::vector<pollfd> fds;
		fds.push_back({ls->fd.get(), POLLIN, 0});
		fds.push_back({rdma ? rdma->fd() : -1, POLLIN, 0});
		for (const auto &c : clients)
			fds.push_back({c.fd.get(), POLLIN, 0});
		int n = poll(fds.data(), fds.size(), 1000);
		if (n < 0 && errno != EINTR) {
			env.err << "smc_chk: poll: " << std::strerror(errno) << '\n';
			return exit_error;
		}
		long now = monotonic_ms();
		if (n > 0 && (fds[0].revents & POLLIN)) {
			int fd = accept4(ls->fd.get(), nullptr, nullptr, SOCK_CLOEXEC);
			if (fd >= 0) {
				serve_one(fd, ls->af_smc, opt, env);
				clients.push_back(Client{UniqueFd(fd), now});
			} else if (opt.debug) {
				env.out << "smc_chk: accept: " << std::strerror(errno) << std::endl;
			}
		}
		if (n > 0 && rdma && (fds[1].revents & POLLIN))
			rdma->handle_events(env.out, opt.debug);
		// A client is done when it closes (or errs), or after a while.
		std::vector<bool> gone(clients.size(), false);
		for (std::size_t i = 0; i < clients.size(); ++i) {
			short re = fds[i + 2].revents;
			if (re & (POLLIN | POLLHUP | POLLERR)) {
				char buf[256];
				ssize_t r = recv(clients[i].fd.get(), buf, sizeof(buf), MSG_DONTWAIT);
				if (r <= 0 && !(r < 0 && (errno == EAGAIN || errno == EINTR)))
					gone[i] = true;
			}
			if (now - clients[i].since > client_linger_ms)
				gone[i] = true;
		}
		std::vector<Client> kept;
		for (std::size_t i = 0; i < clients.size(); ++i)
			if (!gone[i])
				kept.push_back(std::move(clients[i]));
		clients = std::move(kept);
	}
	env.out << "smc_chk: server stopped" << std::endl;
	return exit_ok;
}

} // namespace smc
