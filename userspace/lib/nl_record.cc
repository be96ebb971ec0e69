// SPDX-License-Identifier: GPL-2.0
#include "nl_record.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstddef>
#include <sstream>

#include <linux/netlink.h>

namespace smc::nl {

std::string to_hex(ByteView bytes)
{
	static const char digits[] = "0123456789abcdef";
	std::string s;
	s.reserve(bytes.size() * 2);
	for (auto b : bytes) {
		s.push_back(digits[b >> 4]);
		s.push_back(digits[b & 15]);
	}
	return s;
}

std::optional<Bytes> from_hex(std::string_view hex)
{
	auto nibble = [](char c) -> int {
		if (c >= '0' && c <= '9') return c - '0';
		if (c >= 'a' && c <= 'f') return c - 'a' + 10;
		if (c >= 'A' && c <= 'F') return c - 'A' + 10;
		return -1;
	};
	if (hex.size() % 2)
		return std::nullopt;
	Bytes out;
	out.reserve(hex.size() / 2);
	for (std::size_t i = 0; i < hex.size(); i += 2) {
		int hi = nibble(hex[i]), lo = nibble(hex[i + 1]);
		if (hi < 0 || lo < 0)
			return std::nullopt;
		out.push_back(static_cast<std::uint8_t>(hi << 4 | lo));
	}
	return out;
}

Result<Recording> Recording::parse(std::string_view text)
{
	Recording rec;
	std::istringstream in{std::string(text)};
	std::string line;
	int lineno = 0;
	auto bad = [&](const std::string &why) {
		return make_error(EINVAL, "recording line " + std::to_string(lineno) + ": " + why);
	};
	while (std::getline(in, line)) {
		++lineno;
		std::istringstream words(line);
		std::string verb;
		if (!(words >> verb) || verb[0] == '#')
			continue;
		if (verb == "open") {
			std::string proto;
			words >> proto;
			Session s;
			if (proto == "generic")
				s.protocol = Protocol::generic;
			else if (proto == "sock_diag")
				s.protocol = Protocol::sock_diag;
			else
				return bad("unknown protocol '" + proto + "'");
			rec.sessions.push_back(std::move(s));
			continue;
		}
		if (rec.sessions.empty())
			return bad("'" + verb + "' before any 'open'");
		Session &s = rec.sessions.back();
		if (verb == "family") {
			std::string name, id;
			if (!(words >> name >> id))
				return bad("family needs NAME and ID");
			int value = -1;
			if (id != "-") {
				auto [end, ec] = std::from_chars(id.data(), id.data() + id.size(), value);
				if (ec != std::errc() || end != id.data() + id.size() || value < 0)
					return bad("bad family id '" + id + "'");
			}
			s.families[name] = value;
		} else if (verb == "send" || verb == "recv") {
			std::string hex;
			words >> hex;
			auto bytes = from_hex(hex);
			if (!bytes)
				return bad("bad hex");
			if (verb == "send") {
				// "send" alone: any request will do
				std::optional<Bytes> req;
				if (!hex.empty())
					req = std::move(*bytes);
				s.exchanges.push_back(Exchange{std::move(req), {}});
			} else {
				if (s.exchanges.empty())
					return bad("'recv' before any 'send'");
				s.exchanges.back().replies.push_back(std::move(*bytes));
			}
		} else {
			return bad("unknown item '" + verb + "'");
		}
	}
	return rec;
}

std::string Recording::to_text() const
{
	std::ostringstream out;
	for (const auto &s : sessions) {
		out << "open " << protocol_name(s.protocol) << '\n';
		for (const auto &[name, id] : s.families)
			out << "family " << name << ' ' << (id < 0 ? std::string("-") : std::to_string(id)) << '\n';
		for (const auto &x : s.exchanges) {
			out << "send " << (x.request ? to_hex(*x.request) : std::string()) << '\n';
			for (const auto &r : x.replies)
				out << "recv " << to_hex(r) << '\n';
		}
	}
	return out.str();
}

namespace {

// Requests are compared without their sequence number and port id.
bool same_request(ByteView a, ByteView b)
{
	if (a.size() != b.size() || a.size() < sizeof(nlmsghdr))
		return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
	constexpr std::size_t seq_at = offsetof(nlmsghdr, nlmsg_seq);
	return std::equal(a.begin(), a.begin() + seq_at, b.begin()) &&
	       std::equal(a.begin() + sizeof(nlmsghdr), a.end(), b.begin() + sizeof(nlmsghdr));
}

class ReplayTransport : public Transport {
public:
	explicit ReplayTransport(Session s) : s_(std::move(s)) {}

	Result<void> send(ByteView request) override
	{
		if (next_ >= s_.exchanges.size())
			return make_error(EIO, "replay: the tool sent more requests than were recorded");
		cur_ = &s_.exchanges[next_++];
		reply_ = 0;
		if (cur_->request && !same_request(*cur_->request, request))
			return make_error(EIO, "replay: request " + std::to_string(next_) +
					  " differs from the recording: " + to_hex(request));
		return {};
	}

	Result<Bytes> receive() override
	{
		if (!cur_ || reply_ >= cur_->replies.size())
			return make_error(EIO, "replay: the tool waits for a reply that was not recorded");
		return cur_->replies[reply_++];
	}

	Result<std::uint16_t> resolve_family(std::string_view name) override
	{
		auto it = s_.families.find(name);
		if (it == s_.families.end() || it->second < 0)
			return make_error(ENOENT, "no generic netlink family " + std::string(name));
		return static_cast<std::uint16_t>(it->second);
	}

private:
	Session s_;
	std::size_t next_ = 0;
	Exchange *cur_ = nullptr;
	std::size_t reply_ = 0;
};

class RecordingTransport : public Transport {
public:
	RecordingTransport(std::unique_ptr<Transport> inner, std::ostream &out)
		: inner_(std::move(inner)), out_(out) {}

	Result<void> send(ByteView request) override
	{
		out_ << "send " << to_hex(request) << std::endl;
		return inner_->send(request);
	}

	Result<Bytes> receive() override
	{
		auto r = inner_->receive();
		if (r)
			out_ << "recv " << to_hex(*r) << std::endl;
		else
			out_ << "# receive failed: " << r.error().message << std::endl;
		return r;
	}

	Result<std::uint16_t> resolve_family(std::string_view name) override
	{
		auto r = inner_->resolve_family(name);
		out_ << "family " << name << ' ' << (r ? std::to_string(*r) : std::string("-")) << std::endl;
		return r;
	}

private:
	std::unique_ptr<Transport> inner_;
	std::ostream &out_;
};

} // namespace

Result<std::unique_ptr<Transport>> ReplayFactory::open(Protocol protocol)
{
	if (next_ >= recording_.sessions.size())
		return make_error(EIO, std::string("replay: no recorded session left for ") +
					       protocol_name(protocol));
	Session &s = recording_.sessions[next_++];
	if (s.protocol != protocol)
		return make_error(EIO, std::string("replay: the recording has a ") +
					       protocol_name(s.protocol) + " session here, not " +
					       protocol_name(protocol));
	return std::unique_ptr<Transport>(new ReplayTransport(std::move(s)));
}

Result<std::unique_ptr<Transport>> RecordingFactory::open(Protocol protocol)
{
	out_ << "open " << protocol_name(protocol) << std::endl;
	auto t = inner_.open(protocol);
	if (!t) {
		out_ << "# open failed: " << t.error().message << std::endl;
		return t.error();
	}
	return std::unique_ptr<Transport>(new RecordingTransport(std::move(*t), out_));
}

} // namespace smc::nl
