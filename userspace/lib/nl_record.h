// SPDX-License-Identifier: GPL-2.0
//
// Recorded netlink conversations, so that tests can replay what a real
// kernel said.
//
// Text format (one item per line, '#' starts a comment):
//
//   open generic|sock_diag      a new session: one Transport the tool opened
//   family NAME ID|-            resolve_family(NAME) answered ID (- = absent)
//   send HEX                    one request the tool sent
//   recv HEX                    one datagram the kernel answered with
//
// Record with SMC_TOOLS_RECORD=FILE in the environment of any of the tools;
// replay with ReplayFactory. On replay, a "send" line is compared with what
// the tool sends (ignoring sequence number and port id); the "recv" lines up
// to the next "send" are what receive() returns.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "nl_transport.h"

namespace smc::nl {

struct Exchange {
	std::optional<Bytes> request;	// nullopt: accept any request
	std::vector<Bytes> replies;
};

struct Session {
	Protocol protocol = Protocol::generic;
	std::map<std::string, int, std::less<>> families;	// -1: absent
	std::vector<Exchange> exchanges;
};

struct Recording {
	std::vector<Session> sessions;

	static Result<Recording> parse(std::string_view text);
	std::string to_text() const;
};

std::string to_hex(ByteView bytes);
std::optional<Bytes> from_hex(std::string_view hex);

// Replays a recording: each open() takes the next session.
class ReplayFactory : public TransportFactory {
public:
	explicit ReplayFactory(Recording recording) : recording_(std::move(recording)) {}
	Result<std::unique_ptr<Transport>> open(Protocol protocol) override;
	// Sessions not yet opened (a test may check that all were used).
	std::size_t sessions_left() const { return recording_.sessions.size() - next_; }

private:
	Recording recording_;
	std::size_t next_ = 0;
};

// Passes everything through to another factory and writes it to out.
class RecordingFactory : public TransportFactory {
public:
	RecordingFactory(TransportFactory &inner, std::ostream &out) : inner_(inner), out_(out) {}
	Result<std::unique_ptr<Transport>> open(Protocol protocol) override;

private:
	TransportFactory &inner_;
	std::ostream &out_;
};

} // namespace smc::nl
