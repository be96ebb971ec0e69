// SPDX-License-Identifier: GPL-2.0
//
// AF_SMC sockets as sock_diag (NETLINK_SOCK_DIAG) reports them.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "nl_message.h"
#include "nl_transport.h"

namespace smc {

// Values of diag_state (the kernel's enum smc_state).
enum SmcState : std::uint8_t {
	smc_active = 1,
	smc_init = 2,
	smc_closed = 7,
	smc_listen = 10,
	smc_peer_close_wait1 = 20,
	smc_peer_close_wait2 = 21,
	smc_app_close_wait1 = 22,
	smc_app_close_wait2 = 23,
	smc_app_fin_close_wait = 24,
	smc_peer_fin_close_wait = 25,
	smc_peer_abort_wait = 26,
	smc_process_abort = 27,
};

struct DiagCursor {
	std::uint16_t wrap = 0;
	std::uint32_t count = 0;
};

// SMC_DIAG_CONNINFO
struct ConnInfo {
	std::uint32_t token = 0;
	std::uint32_t sndbuf_size = 0, rmbe_size = 0, peer_rmbe_size = 0;
	DiagCursor rx_prod, rx_cons, tx_prod, tx_cons;
	std::uint8_t rx_prod_flags = 0, rx_conn_state_flags = 0;
	std::uint8_t tx_prod_flags = 0, tx_conn_state_flags = 0;
	DiagCursor tx_prep, tx_sent, tx_fin;
};

// SMC_DIAG_LGRINFO (SMC-R): the link group's first link.
struct LgrInfo {
	std::uint8_t role = 0;		// 0 client, 1 server
	std::uint8_t link_id = 0;
	std::string ib_name;
	std::uint8_t ib_port = 0;
	std::string gid, peer_gid;
};

// SMC_DIAG_DMBINFO (SMC-D)
struct DmbInfo {
	std::uint32_t link_id = 0;
	std::uint64_t peer_gid = 0, my_gid = 0, token = 0, peer_token = 0;
	std::uint64_t peer_gid_ext = 0, my_gid_ext = 0;	// 6.8 and later
};

// SMC_DIAG_FALLBACK
struct FallbackInfo {
	std::uint32_t reason = 0;
	std::uint32_t peer_diagnosis = 0;
};

struct SmcSocket {
	std::uint8_t state = 0;
	std::uint8_t mode = 0;		// SMC_DIAG_MODE_*
	std::uint8_t shutdown = 0;	// RCV_SHUTDOWN 1, SEND_SHUTDOWN 2
	bool ipv6 = false;		// guessed from the addresses, see smc_diag.cc
	std::array<std::uint8_t, 16> local_addr{}, peer_addr{};
	std::uint16_t local_port = 0, peer_port = 0;
	std::uint32_t ifindex = 0;
	std::uint32_t uid = 0;
	std::uint64_t inode = 0;

	std::optional<std::uint8_t> shutdown_attr;	// SMC_DIAG_SHUTDOWN
	std::optional<ConnInfo> conn;
	std::optional<LgrInfo> lgr;
	std::optional<DmbInfo> dmb;
	std::optional<FallbackInfo> fallback;

	std::string local_ip() const;
	std::string peer_ip() const;
};

// Which SMC_DIAG_* extensions to ask for.
struct DiagRequest {
	bool conninfo = false;
	bool lgrinfo = false;
	bool dmbinfo = false;
};

nl::MessageBuilder smc_diag_request(const DiagRequest &req);
// Decodes one SOCK_DIAG_BY_FAMILY reply message.
Result<SmcSocket> decode_smc_socket(const nl::Message &msg);
// Dumps every AF_SMC socket of the caller's network namespace.
Result<std::vector<SmcSocket>> query_smc_sockets(nl::TransportFactory &factory,
						  const DiagRequest &req);

} // namespace smc
