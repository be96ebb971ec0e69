// SPDX-License-Identifier: GPL-2.0
//
// One generic netlink family: looked up by name, then spoken to with dumps
// and commands whose replies come back as (command, attributes) pairs.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "nl_attr.h"
#include "nl_channel.h"

namespace smc::nl {

struct GenlMessage {
	std::uint8_t cmd = 0;
	Bytes attrs;	// the attribute stream after struct genlmsghdr

	AttrSet attributes() const { return AttrSet::parse(attrs); }
};

// Fills in a request's attributes.
using AttrFiller = std::function<void(AttrWriter &)>;

class GenlFamily {
public:
	// Opens a generic netlink socket and looks the family up. A family the
	// kernel does not have is an Error with code ENOENT.
	static Result<GenlFamily> open(TransportFactory &factory, const std::string &name,
				       std::uint8_t version);

	const std::string &name() const { return name_; }
	std::uint16_t id() const { return id_; }

	Result<std::vector<GenlMessage>> dump(std::uint8_t cmd, const AttrFiller &fill = {});
	Result<std::vector<GenlMessage>> execute(std::uint8_t cmd, const AttrFiller &fill = {});

	// The request message (without sequence number), for tests.
	MessageBuilder request(std::uint8_t cmd, const AttrFiller &fill) const;

private:
	GenlFamily(std::unique_ptr<Transport> t, std::string name, std::uint16_t id, std::uint8_t version);
	Result<std::vector<GenlMessage>> decode(Result<std::vector<Message>> messages) const;

	std::unique_ptr<Transport> transport_;
	std::unique_ptr<Channel> channel_;
	std::string name_;
	std::uint16_t id_;
	std::uint8_t version_;
};

// Builds one generic netlink message (for canned replies in tests).
MessageBuilder genl_message(std::uint16_t family, std::uint8_t cmd, std::uint8_t version,
			    std::uint16_t flags);

} // namespace smc::nl
