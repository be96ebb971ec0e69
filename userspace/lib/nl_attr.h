// SPDX-License-Identifier: GPL-2.0
//
// Netlink attributes (struct nlattr streams): a tolerant reader and a writer.
//
// The reader never trusts the kernel more than it must: unknown attribute
// types are kept but ignored by the decoders, integers are read whatever
// their width (1, 2, 4 or 8 bytes, as kernels have changed widths over
// time), and a stream whose lengths do not add up is reported as malformed
// instead of being read past its end.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bytes.h"

namespace smc::nl {

struct Attr {
	std::uint16_t type = 0;	// without the NLA_F_NESTED/NLA_F_NET_BYTEORDER bits
	ByteView data;
};

class AttrSet {
public:
	AttrSet() = default;
	// Views into data; data must outlive the set.
	static AttrSet parse(ByteView data);

	// False when the stream had a length that did not fit; the attributes
	// before the bad one are still available.
	bool well_formed() const { return well_formed_; }
	const std::vector<Attr> &all() const { return attrs_; }
	bool empty() const { return attrs_.empty(); }

	// The first attribute of a type, if any.
	const Attr *find(std::uint16_t type) const;
	bool has(std::uint16_t type) const { return find(type) != nullptr; }

	// An unsigned integer of 1, 2, 4 or 8 bytes; nullopt when absent or of
	// another size.
	std::optional<std::uint64_t> uint(std::uint16_t type) const;
	// uint(type), or fallback when absent or unreadable.
	std::uint64_t uint_or(std::uint16_t type, std::uint64_t fallback) const;
	// A string up to its first NUL (or its whole payload without one).
	std::optional<std::string> str(std::uint16_t type) const;
	std::string str_or(std::uint16_t type, std::string_view fallback) const;
	// The attributes nested in an attribute; an empty set when absent.
	AttrSet nested(std::uint16_t type) const;

private:
	std::vector<Attr> attrs_;
	bool well_formed_ = true;
};

std::optional<std::uint64_t> attr_uint(const Attr &attr);
std::string attr_str(const Attr &attr);

// Appends attributes to a buffer that already holds a netlink message (or
// anything else that starts 4-byte aligned).
class AttrWriter {
public:
	explicit AttrWriter(Bytes &out) : out_(out) {}

	void put(std::uint16_t type, ByteView payload);
	void put_u8(std::uint16_t type, std::uint8_t v) { put_int(type, v); }
	void put_u16(std::uint16_t type, std::uint16_t v) { put_int(type, v); }
	void put_u32(std::uint16_t type, std::uint32_t v) { put_int(type, v); }
	void put_u64(std::uint16_t type, std::uint64_t v) { put_int(type, v); }
	// With its terminating NUL, as the kernel's NLA_NUL_STRING wants it.
	void put_str(std::uint16_t type, std::string_view s);
	// Opens a nest (with NLA_F_NESTED set); returns a handle for end_nest().
	std::size_t begin_nest(std::uint16_t type);
	void end_nest(std::size_t handle);

private:
	template <class T>
	void put_int(std::uint16_t type, T v)
	{
		put(type, ByteView(reinterpret_cast<const std::uint8_t *>(&v), sizeof(v)));
	}
	Bytes &out_;
};

} // namespace smc::nl
