// SPDX-License-Identifier: GPL-2.0
//
// Request/reply over a Transport: numbers requests, collects a dump up to its
// NLMSG_DONE or a command up to its acknowledgement, and turns NLMSG_ERROR
// (with the kernel's extended-ack text when there is one) into an Error.
#pragma once

#include <vector>

#include "nl_message.h"
#include "nl_transport.h"

namespace smc::nl {

class Channel {
public:
	explicit Channel(Transport &transport) : transport_(transport) {}

	// Sends req as a dump request and returns every data message of the dump.
	// A dump the kernel marks interrupted (its table changed meanwhile) is
	// read to its end and asked for again, up to kDumpAttempts times in all.
	Result<std::vector<Message>> dump(MessageBuilder req);
	static constexpr int kDumpAttempts = 3;
	// Sends req with NLM_F_ACK; returns the data messages that came before
	// the acknowledgement (most commands send none).
	Result<std::vector<Message>> execute(MessageBuilder req);

	Transport &transport() { return transport_; }

private:
	Result<std::vector<Message>> transact(MessageBuilder &req, bool dump);
	Transport &transport_;
	std::uint32_t seq_ = 0;
};

// The text the kernel attached to an NLMSG_ERROR (extended ack), if any.
std::string extended_ack_message(const Message &error_msg);

} // namespace smc::nl
