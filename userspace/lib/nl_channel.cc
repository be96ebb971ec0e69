// SPDX-License-Identifier: GPL-2.0
#include "nl_channel.h"

#include <cerrno>
#include <cstring>
#include <string>

#include <linux/netlink.h>

namespace smc::nl {

const char *protocol_name(Protocol p)
{
	switch (p) {
	case Protocol::sock_diag: return "sock_diag";
	case Protocol::generic: return "generic";
	}
	return "?";
}

std::string extended_ack_message(const Message &m)
{
	if (!(m.flags & NLM_F_ACK_TLVS) || m.payload.size() < sizeof(nlmsgerr))
		return {};
	auto err = load<nlmsgerr>(m.payload);
	// The request comes back in full unless NLM_F_CAPPED says only its header.
	std::size_t skip = sizeof(nlmsgerr);
	if (!(m.flags & NLM_F_CAPPED) && err.msg.nlmsg_len > sizeof(nlmsghdr))
		skip += ((err.msg.nlmsg_len - sizeof(nlmsghdr)) + 3) & ~std::size_t{3};
	if (skip >= m.payload.size())
		return {};
	auto tlvs = AttrSet::parse(ByteView(m.payload).subspan(skip));
	return tlvs.str_or(NLMSGERR_ATTR_MSG, "");
}

Result<std::vector<Message>> Channel::dump(MessageBuilder req)
{
	req.add_flags(NLM_F_REQUEST | NLM_F_DUMP);
	for (int attempt = 1;; attempt++) {
		auto r = transact(req, true);
		if (r || r.error().code != EAGAIN || attempt == kDumpAttempts)
			return r;
	}
}

Result<std::vector<Message>> Channel::execute(MessageBuilder req)
{
	req.add_flags(NLM_F_REQUEST | NLM_F_ACK);
	return transact(req, false);
}

// A dump ends with NLMSG_DONE, a command with its acknowledgement (both may
// also end with NLMSG_ERROR); data messages before the end are collected.
// Some commands answer like a dump, with NLMSG_DONE, before the ack.
Result<std::vector<Message>> Channel::transact(MessageBuilder &req, bool dump)
{
	std::uint32_t seq = ++seq_;
	if (auto sent = transport_.send(req.finish(seq)); !sent)
		return sent.error();

	std::vector<Message> data;
	bool interrupted = false;
	for (;;) {
		auto datagram = transport_.receive();
		if (!datagram)
			return datagram.error();
		if (datagram->empty())
			return make_error(EPIPE, "the kernel closed the netlink conversation early");
		auto messages = split_datagram(*datagram);
		if (!messages)
			return messages.error();
		for (auto &m : *messages) {
			if (m.seq != seq)
				return make_error(EPROTO, "unexpected netlink reply (sequence " +
						  std::to_string(m.seq) + ", expected " +
						  std::to_string(seq) + ")");
			switch (m.type) {
			case NLMSG_NOOP:
				continue;
			case NLMSG_OVERRUN:
				return make_error(ENOBUFS, "netlink receive buffer overrun");
			case NLMSG_ERROR: {
				if (m.payload.size() < sizeof(int))
					return make_error(EBADMSG, "truncated netlink error message");
				int code = -load<int>(m.payload);
				if (code == 0)		// the acknowledgement
					return data;
				std::string text = std::strerror(code);
				if (auto ext = extended_ack_message(m); !ext.empty())
					text += " (" + ext + ")";
				return make_error(code, text);
			}
			case NLMSG_DONE: {
				// A dump that failed part-way says so in its DONE.
				if (m.payload.size() >= sizeof(int)) {
					int code = -load<int>(m.payload);
					if (code > 0)
						return make_error(code, std::strerror(code));
				}
				if (interrupted)
					return make_error(EAGAIN, "the kernel's table changed during the dump; try again");
				if (dump)
					return data;
				continue;
			}
			default:
				// Read on to the DONE, so the next request starts clean.
				interrupted |= (m.flags & NLM_F_DUMP_INTR) != 0;
				data.push_back(std::move(m));
			}
		}
	}
}

} // namespace smc::nl
