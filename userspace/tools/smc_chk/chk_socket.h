// SPDX-License-Identifier: GPL-2.0
//
// The socket work of smc_chk's client and server: AF_SMC when the kernel
// has it, TCP otherwise; connecting and reading with time limits.
#pragma once

#include <string>

#include <sys/socket.h>

#include "result.h"

namespace smc {

// Owns a file descriptor.
class UniqueFd {
public:
	UniqueFd() = default;
	explicit UniqueFd(int fd) : fd_(fd) {}
	~UniqueFd();
	UniqueFd(UniqueFd &&o) noexcept : fd_(o.release()) {}
	UniqueFd &operator=(UniqueFd &&o) noexcept;
	UniqueFd(const UniqueFd &) = delete;
	UniqueFd &operator=(const UniqueFd &) = delete;
	int get() const { return fd_; }
	int release() { int f = fd_; fd_ = -1; return f; }
	explicit operator bool() const { return fd_ >= 0; }

private:
	int fd_ = -1;
};

// A stream socket for ipv6 or IPv4: AF_SMC if possible. When the kernel has
// no AF_SMC, a TCP socket and, in note, why.
struct ChkSocket {
	UniqueFd fd;
	bool af_smc = false;
	std::string note;
};
Result<ChkSocket> open_chk_socket(bool ipv6);

// HOST (name or address) and port to an address of the wanted family.
Result<sockaddr_storage> resolve_host(const std::string &host, unsigned port, bool ipv6);
std::string address_text(const sockaddr_storage &a);	// "10.0.0.1", "fd00::1"
unsigned port_of(const sockaddr_storage &a);

// 0 or errno (ETIMEDOUT when timeout_ms passed).
int connect_within(int fd, const sockaddr_storage &a, int timeout_ms);
// One line (without the newline), at most 1024 bytes, within timeout_ms.
Result<std::string> read_line_within(int fd, int timeout_ms);
// The inode number sock_diag reports for the socket.
unsigned long socket_inode(int fd);

} // namespace smc
