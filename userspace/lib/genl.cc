// SPDX-License-Identifier: GPL-2.0
#include "genl.h"

#include <cerrno>

#include <linux/genetlink.h>

namespace smc::nl {

MessageBuilder genl_message(std::uint16_t family, std::uint8_t cmd, std::uint8_t version,
			    std::uint16_t flags)
{
	MessageBuilder b(family, flags);
	genlmsghdr g{};
	g.cmd = cmd;
	g.version = version;
	b.header(g);
	return b;
}

GenlFamily::GenlFamily(std::unique_ptr<Transport> t, std::string name, std::uint16_t id,
		       std::uint8_t version)
	: transport_(std::move(t)), channel_(std::make_unique<Channel>(*transport_)),
	  name_(std::move(name)), id_(id), version_(version)
{
}

Result<GenlFamily> GenlFamily::open(TransportFactory &factory, const std::string &name,
				    std::uint8_t version)
{
	auto t = factory.open(Protocol::generic);
	if (!t)
		return t.error();
	auto id = (*t)->resolve_family(name);
	if (!id)
		return id.error();
	return GenlFamily(std::move(*t), name, *id, version);
}

MessageBuilder GenlFamily::request(std::uint8_t cmd, const AttrFiller &fill) const
{
	auto b = genl_message(id_, cmd, version_, 0);
	if (fill) {
		auto w = b.attrs();
		fill(w);
	}
	return b;
}

Result<std::vector<GenlMessage>> GenlFamily::decode(Result<std::vector<Message>> messages) const
{
	if (!messages)
		return messages.error();
	std::vector<GenlMessage> out;
	for (auto &m : *messages) {
		if (m.type != id_)
			continue;	// not ours; nothing else should come, but be lenient
		if (m.payload.size() < sizeof(genlmsghdr))
			return make_error(EBADMSG, "truncated " + name_ + " message");
		auto g = load<genlmsghdr>(m.payload);
		GenlMessage gm;
		gm.cmd = g.cmd;
		gm.attrs.assign(m.payload.begin() + sizeof(genlmsghdr), m.payload.end());
		out.push_back(std::move(gm));
	}
	return out;
}

Result<std::vector<GenlMessage>> GenlFamily::dump(std::uint8_t cmd, const AttrFiller &fill)
{
	return decode(channel_->dump(request(cmd, fill)));
}

Result<std::vector<GenlMessage>> GenlFamily::execute(std::uint8_t cmd, const AttrFiller &fill)
{
	return decode(channel_->execute(request(cmd, fill)));
}

} // namespace smc::nl
