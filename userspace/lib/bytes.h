// SPDX-License-Identifier: GPL-2.0
//
// Byte buffers as the netlink code passes them around. Netlink carries host
// byte order, so values are read with memcpy into native integers; nothing
// here ever dereferences a misaligned pointer.
#pragma once

#include <cstdint>
#include <cstring>
#include <span>
#include <type_traits>
#include <vector>

namespace smc {

using Bytes = std::vector<std::uint8_t>;
using ByteView = std::span<const std::uint8_t>;

// Copies a trivially copyable T out of the front of data. The caller checks
// that data is long enough.
template <class T>
T load(ByteView data)
{
	static_assert(std::is_trivially_copyable_v<T>);
	T value;
	std::memcpy(&value, data.data(), sizeof(T));
	return value;
}

// Copies as much of data as fits into a zeroed T: shorter payloads (older
// kernels) leave the tail zero, longer ones (newer kernels) are cut.
template <class T>
T load_prefix(ByteView data)
{
	static_assert(std::is_trivially_copyable_v<T>);
	T value{};
	std::memcpy(&value, data.data(), data.size() < sizeof(T) ? data.size() : sizeof(T));
	return value;
}

template <class T>
void append(Bytes &out, const T &value)
{
	static_assert(std::is_trivially_copyable_v<T>);
	const auto *p = reinterpret_cast<const std::uint8_t *>(&value);
	out.insert(out.end(), p, p + sizeof(T));
}

} // namespace smc
