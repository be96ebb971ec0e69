// SPDX-License-Identifier: GPL-2.0
//
// The seam between the tools and the kernel. Everything the tools learn from
// the kernel comes through a Transport as raw datagrams, so host tests can
// replace the kernel with canned or recorded replies (see nl_record.h) and
// exercise the very same decoding and formatting code.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>

#include "bytes.h"
#include "result.h"

namespace smc::nl {

enum class Protocol {
	sock_diag,	// NETLINK_SOCK_DIAG
	generic,	// NETLINK_GENERIC
};

const char *protocol_name(Protocol p);

class Transport {
public:
	virtual ~Transport() = default;
	// Sends one complete request message.
	virtual Result<void> send(ByteView request) = 0;
	// Receives one datagram (one or more messages).
	virtual Result<Bytes> receive() = 0;
	// The id of a generic netlink family, or an Error with code ENOENT when
	// the kernel has no family of that name. Only for Protocol::generic.
	virtual Result<std::uint16_t> resolve_family(std::string_view name) = 0;
};

class TransportFactory {
public:
	virtual ~TransportFactory() = default;
	virtual Result<std::unique_ptr<Transport>> open(Protocol protocol) = 0;
};

} // namespace smc::nl
