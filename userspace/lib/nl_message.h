// SPDX-License-Identifier: GPL-2.0
//
// Netlink messages: building requests (and, in tests, canned replies) and
// splitting received datagrams into messages.
#pragma once

#include <cstdint>
#include <vector>

#include "bytes.h"
#include "nl_attr.h"
#include "result.h"

namespace smc::nl {

// One received netlink message: its header fields and its payload (what
// follows struct nlmsghdr, without padding).
struct Message {
	std::uint16_t type = 0;
	std::uint16_t flags = 0;
	std::uint32_t seq = 0;
	std::uint32_t pid = 0;
	Bytes payload;
};

// Splits one datagram into its messages. A length that runs past the end
// of the datagram, or one too short for a header, is an error: the reply
// was truncated or is not netlink at all.
Result<std::vector<Message>> split_datagram(ByteView datagram);

// Builds one message: the netlink header, a fixed family header and then
// attributes. The length and sequence number are filled in by finish().
class MessageBuilder {
public:
	MessageBuilder(std::uint16_t type, std::uint16_t flags);

	std::uint16_t type() const { return type_; }
	std::uint16_t flags() const { return flags_; }
	void add_flags(std::uint16_t flags) { flags_ |= flags; }

	// The family header (struct smc_diag_req, struct genlmsghdr ...).
	template <class T>
	MessageBuilder &header(const T &h)
	{
		append(body_, h);
		pad();
		return *this;
	}
	MessageBuilder &raw(ByteView bytes);
	AttrWriter attrs() { return AttrWriter(body_); }

	// The finished message with this sequence and port id.
	Bytes finish(std::uint32_t seq, std::uint32_t pid = 0) const;

private:
	void pad();
	std::uint16_t type_;
	std::uint16_t flags_;
	Bytes body_;
};

// Concatenates finished messages into one datagram (as the kernel batches
// dump replies).
Bytes join(const std::vector<Bytes> &messages);

} // namespace smc::nl
