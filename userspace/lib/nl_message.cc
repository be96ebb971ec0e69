// SPDX-License-Identifier: GPL-2.0
#include "nl_message.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>

#include <linux/netlink.h>

namespace smc::nl {

namespace {

constexpr std::size_t align4(std::size_t n) { return (n + 3) & ~std::size_t{3}; }

} // namespace

Result<std::vector<Message>> split_datagram(ByteView data)
{
	std::vector<Message> out;
	std::size_t pos = 0;
	while (pos < data.size()) {
		std::size_t left = data.size() - pos;
		if (left < sizeof(nlmsghdr))
			return make_error(EBADMSG, "truncated netlink message (" +
					  std::to_string(left) + " stray bytes)");
		auto hdr = load<nlmsghdr>(data.subspan(pos));
		if (hdr.nlmsg_len < sizeof(nlmsghdr) || hdr.nlmsg_len > left)
			return make_error(EBADMSG, "truncated netlink message (length " +
					  std::to_string(hdr.nlmsg_len) + ", " +
					  std::to_string(left) + " bytes left)");
		Message m;
		m.type = hdr.nlmsg_type;
		m.flags = hdr.nlmsg_flags;
		m.seq = hdr.nlmsg_seq;
		m.pid = hdr.nlmsg_pid;
		auto payload = data.subspan(pos + sizeof(nlmsghdr), hdr.nlmsg_len - sizeof(nlmsghdr));
		m.payload.assign(payload.begin(), payload.end());
		out.push_back(std::move(m));
		pos += std::min(align4(hdr.nlmsg_len), left);
	}
	return out;
}

MessageBuilder::MessageBuilder(std::uint16_t type, std::uint16_t flags)
	: type_(type), flags_(flags)
{
}

MessageBuilder &MessageBuilder::raw(ByteView bytes)
{
	body_.insert(body_.end(), bytes.begin(), bytes.end());
	pad();
	return *this;
}

void MessageBuilder::pad()
{
	body_.resize(align4(body_.size()), 0);
}

Bytes MessageBuilder::finish(std::uint32_t seq, std::uint32_t pid) const
{
	nlmsghdr hdr{};
	hdr.nlmsg_len = static_cast<std::uint32_t>(sizeof(nlmsghdr) + body_.size());
	hdr.nlmsg_type = type_;
	hdr.nlmsg_flags = flags_;
	hdr.nlmsg_seq = seq;
	hdr.nlmsg_pid = pid;
	Bytes out(hdr.nlmsg_len);
	std::memcpy(out.data(), &hdr, sizeof(hdr));
	if (!body_.empty())
		std::memcpy(out.data() + sizeof(hdr), body_.data(), body_.size());
	return out;
}

Bytes join(const std::vector<Bytes> &messages)
{
	Bytes out;
	for (const auto &m : messages) {
		out.insert(out.end(), m.begin(), m.end());
		out.resize(align4(out.size()), 0);
	}
	return out;
}

} // namespace smc::nl
