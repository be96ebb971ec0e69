// SPDX-License-Identifier: GPL-2.0
#include "nl_attr.h"

#include <algorithm>

#include <linux/netlink.h>

namespace smc::nl {

namespace {

constexpr std::size_t align4(std::size_t n) { return (n + 3) & ~std::size_t{3}; }
constexpr std::size_t header_len = sizeof(nlattr);

} // namespace

AttrSet AttrSet::parse(ByteView data)
{
	AttrSet set;
	std::size_t pos = 0;
	while (pos < data.size()) {
		if (data.size() - pos < header_len) {
			set.well_formed_ = false;
			break;
		}
		auto hdr = load<nlattr>(data.subspan(pos));
		if (hdr.nla_len < header_len || hdr.nla_len > data.size() - pos) {
			set.well_formed_ = false;
			break;
		}
		set.attrs_.push_back(Attr{
			static_cast<std::uint16_t>(hdr.nla_type & NLA_TYPE_MASK),
			data.subspan(pos + header_len, hdr.nla_len - header_len)});
		// The last attribute may lack its padding.
		pos += std::min(align4(hdr.nla_len), data.size() - pos);
	}
	return set;
}

const Attr *AttrSet::find(std::uint16_t type) const
{
	for (const auto &a : attrs_)
		if (a.type == type)
			return &a;
	return nullptr;
}

std::optional<std::uint64_t> attr_uint(const Attr &attr)
{
	switch (attr.data.size()) {
	case 1: return load<std::uint8_t>(attr.data);
	case 2: return load<std::uint16_t>(attr.data);
	case 4: return load<std::uint32_t>(attr.data);
	case 8: return load<std::uint64_t>(attr.data);
	default: return std::nullopt;
	}
}

std::string attr_str(const Attr &attr)
{
	const auto *p = reinterpret_cast<const char *>(attr.data.data());
	std::string_view s(p, attr.data.size());
	return std::string(s.substr(0, s.find('\0')));
}

std::optional<std::uint64_t> AttrSet::uint(std::uint16_t type) const
{
	const Attr *a = find(type);
	return a ? attr_uint(*a) : std::nullopt;
}

std::uint64_t AttrSet::uint_or(std::uint16_t type, std::uint64_t fallback) const
{
	return uint(type).value_or(fallback);
}

std::optional<std::string> AttrSet::str(std::uint16_t type) const
{
	const Attr *a = find(type);
	if (!a)
		return std::nullopt;
	return attr_str(*a);
}

std::string AttrSet::str_or(std::uint16_t type, std::string_view fallback) const
{
	auto s = str(type);
	return s ? *s : std::string(fallback);
}

AttrSet AttrSet::nested(std::uint16_t type) const
{
	const Attr *a = find(type);
	return a ? parse(a->data) : AttrSet{};
}

void AttrWriter::put(std::uint16_t type, ByteView payload)
{
	nlattr hdr{};
	hdr.nla_len = static_cast<std::uint16_t>(header_len + payload.size());
	hdr.nla_type = type;
	append(out_, hdr);
	out_.insert(out_.end(), payload.begin(), payload.end());
	out_.resize(align4(out_.size()), 0);
}

void AttrWriter::put_str(std::uint16_t type, std::string_view s)
{
	Bytes payload(s.begin(), s.end());
	payload.push_back(0);
	put(type, payload);
}

std::size_t AttrWriter::begin_nest(std::uint16_t type)
{
	std::size_t at = out_.size();
	nlattr hdr{};
	hdr.nla_len = header_len;
	hdr.nla_type = static_cast<std::uint16_t>(type | NLA_F_NESTED);
	append(out_, hdr);
	return at;
}

void AttrWriter::end_nest(std::size_t handle)
{
	auto len = static_cast<std::uint16_t>(out_.size() - handle);
	std::memcpy(out_.data() + handle, &len, sizeof(len));
}

} // namespace smc::nl
