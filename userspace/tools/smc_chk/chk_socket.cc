// SPDX-License-Identifier: GPL-2.0
#include "chk_socket.h"

#include <cerrno>
#include <cstring>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include "clock.h"

#ifndef AF_SMC
#define AF_SMC 43
#endif

namespace smc {

namespace {

// poll() for one descriptor until the deadline, across EINTR.
int poll_until(int fd, short events, long deadline)
{
	for (;;) {
		long left = deadline - monotonic_ms();
		if (left <= 0)
			return ETIMEDOUT;
		pollfd p{fd, events, 0};
		int n = poll(&p, 1, static_cast<int>(left));
		if (n > 0)
			return 0;
		if (n == 0)
			return ETIMEDOUT;
		if (errno != EINTR)
			return errno;
	}
}

} // namespace

UniqueFd::~UniqueFd()
{
	if (fd_ >= 0)
		close(fd_);
}

UniqueFd &UniqueFd::operator=(UniqueFd &&o) noexcept
{
	if (this != &o) {
		if (fd_ >= 0)
			close(fd_);
		fd_ = o.release();
	}
	return *this;
}

Result<ChkSocket> open_chk_socket(bool ipv6)
{
	ChkSocket s;
	// SMCPROTO_SMC6 (1) gives AF_INET6 semantics, SMCPROTO_SMC (0) AF_INET.
	int fd = socket(AF_SMC, SOCK_STREAM | SOCK_CLOEXEC, ipv6 ? 1 : 0);
	if (fd >= 0) {
		s.fd = UniqueFd(fd);
		s.af_smc = true;
		return s;
	}
	int err = errno;
	if (err != EAFNOSUPPORT && err != EPROTONOSUPPORT && err != EINVAL)
		return make_error(err, std::string("cannot create an AF_SMC socket: ") + std::strerror(err));
	s.note = std::string("AF_SMC is not available (") + std::strerror(err) +
		 "): the SMC module is not loaded; checking over TCP";
	fd = socket(ipv6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return make_error(errno, std::string("cannot create a TCP socket: ") + std::strerror(errno));
	s.fd = UniqueFd(fd);
	return s;
}

Result<sockaddr_storage> resolve_host(const std::string &host, unsigned port, bool ipv6)
{
	addrinfo hints{};
	hints.ai_family = ipv6 ? AF_INET6 : AF_INET;
	hints.ai_socktype = SOCK_STREAM;
	addrinfo *res = nullptr;
	std::string service = std::to_string(port);
	int rc = getaddrinfo(host.c_str(), service.c_str(), &hints, &res);
	if (rc != 0 || !res)
		return make_error(ENOENT, "cannot resolve '" + host + "' to an " +
				  (ipv6 ? "IPv6" : "IPv4") + " address: " +
				  (rc == EAI_SYSTEM ? std::strerror(errno) : gai_strerror(rc)));
	sockaddr_storage out{};
	std::memcpy(&out, res->ai_addr, res->ai_addrlen);
	freeaddrinfo(res);
	return out;
}

std::string address_text(const sockaddr_storage &a)
{
	char buf[INET6_ADDRSTRLEN] = "";
	if (a.ss_family == AF_INET6)
		inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6 &>(a).sin6_addr, buf, sizeof(buf));
	else
		inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in &>(a).sin_addr, buf, sizeof(buf));
	return buf;
}

unsigned port_of(const sockaddr_storage &a)
{
	if (a.ss_family == AF_INET6)
		return ntohs(reinterpret_cast<const sockaddr_in6 &>(a).sin6_port);
	return ntohs(reinterpret_cast<const sockaddr_in &>(a).sin_port);
}

int connect_within(int fd, const sockaddr_storage &a, int timeout_ms)
{
	int flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
		return errno;
	socklen_t len = a.ss_family == AF_INET6 ? sizeof(sockaddr_in6) : sizeof(sockaddr_in);
	if (connect(fd, reinterpret_cast<const sockaddr *>(&a), len) == 0)
		return 0;
	if (errno != EINPROGRESS)
		return errno;
	if (int rc = poll_until(fd, POLLOUT, monotonic_ms() + timeout_ms))
		return rc;
	int err = 0;
	socklen_t elen = sizeof(err);
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen) < 0)
		return errno;
	return err;
}

Result<std::string> read_line_within(int fd, int timeout_ms)
{
	long deadline = monotonic_ms() + timeout_ms;
	std::string line;
	while (line.size() < 1024) {
		if (int rc = poll_until(fd, POLLIN, deadline))
			return make_error(rc, rc == ETIMEDOUT ? "no answer within " +
					  std::to_string(timeout_ms / 1000) + " s" : std::strerror(rc));
		char c;
		ssize_t n = recv(fd, &c, 1, 0);
		if (n == 0)
			return make_error(ECONNRESET, "the server closed the connection without a report");
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			return make_error(errno, std::strerror(errno));
		}
		if (c == '\n')
			return line;
		line.push_back(c);
	}
	return make_error(EMSGSIZE, "the server's report is longer than 1024 bytes");
}

unsigned long socket_inode(int fd)
{
	struct stat st{};
	if (fstat(fd, &st) < 0)
		return 0;
	return st.st_ino;
}

} // namespace smc
