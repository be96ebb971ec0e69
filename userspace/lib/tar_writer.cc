// SPDX-License-Identifier: GPL-2.0
#include "tar_writer.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "text.h"

namespace smc {

namespace {

constexpr std::size_t block = 512;

// Field offsets and sizes of the ustar header.
struct Field {
	std::size_t at, size;
};
constexpr Field f_name{0, 100}, f_mode{100, 8}, f_uid{108, 8}, f_gid{116, 8}, f_size{124, 12},
	f_mtime{136, 12}, f_chksum{148, 8}, f_type{156, 1}, f_magic{257, 6}, f_version{263, 2},
	f_uname{265, 32}, f_gname{297, 32}, f_prefix{345, 155};

void put(std::string &h, Field f, const std::string &s)
{
	std::memcpy(&h[f.at], s.data(), std::min(s.size(), f.size));
}

// Octal, zero-padded, NUL-terminated, filling the field.
void put_octal(std::string &h, Field f, std::uint64_t v)
{
	std::string s = strprintf("%0*llo", static_cast<int>(f.size - 1), static_cast<unsigned long long>(v));
	put(h, f, s);
}

std::uint64_t get_octal(const std::string &h, Field f)
{
	std::uint64_t v = 0;
	for (std::size_t i = f.at; i < f.at + f.size; ++i) {
		char c = h[i];
		if (c == ' ' && v == 0)
			continue;
		if (c < '0' || c > '7')
			break;
		v = v * 8 + static_cast<std::uint64_t>(c - '0');
	}
	return v;
}

std::string get_str(const std::string &h, Field f)
{
	std::string s = h.substr(f.at, f.size);
	auto nul = s.find('\0');
	return nul == std::string::npos ? s : s.substr(0, nul);
}

unsigned checksum(const std::string &h)
{
	unsigned sum = 0;
	for (std::size_t i = 0; i < block; ++i)
		sum += i >= f_chksum.at && i < f_chksum.at + f_chksum.size
			       ? ' ' : static_cast<unsigned char>(h[i]);
	return sum;
}

} // namespace

Result<void> TarWriter::add(const std::string &name, const std::string &content, unsigned mode,
			    char type)
{
	std::string prefix, base = name;
	if (base.size() > f_name.size) {
		// Split at a '/' so that both halves fit.
		auto slash = name.rfind('/', f_prefix.size);
		while (slash != std::string::npos && name.size() - slash - 1 > f_name.size)
			slash = std::string::npos;
		if (slash == std::string::npos || slash == 0)
			return make_error(EINVAL, "name too long for a tar archive: " + name);
		prefix = name.substr(0, slash);
		base = name.substr(slash + 1);
	}
	if (name.empty() || base.empty())
		return make_error(EINVAL, "empty name in a tar archive");
	std::string h(block, '\0');
	put(h, f_name, base);
	put_octal(h, f_mode, mode);
	put_octal(h, f_uid, 0);
	put_octal(h, f_gid, 0);
	put_octal(h, f_size, content.size());
	put_octal(h, f_mtime, static_cast<std::uint64_t>(mtime_ < 0 ? 0 : mtime_));
	h[f_type.at] = type;
	put(h, f_magic, std::string("ustar\0", 6));
	put(h, f_version, "00");
	put(h, f_uname, "root");
	put(h, f_gname, "root");
	put(h, f_prefix, prefix);
	put(h, f_chksum, strprintf("%06o", checksum(h)) + std::string("\0 ", 2));
	data_ += h;
	data_ += content;
	data_.append((block - content.size() % block) % block, '\0');
	return {};
}

Result<void> TarWriter::add_file(const std::string &name, const std::string &content, unsigned mode)
{
	return add(name, content, mode, '0');
}

Result<void> TarWriter::add_dir(const std::string &name)
{
	return add(name.back() == '/' ? name : name + "/", "", 0755, '5');
}

std::string TarWriter::finish() const
{
	return data_ + std::string(2 * block, '\0');
}

Result<std::vector<TarMember>> read_tar(const std::string &a)
{
	std::vector<TarMember> out;
	std::size_t at = 0;
	while (at + block <= a.size()) {
		std::string h = a.substr(at, block);
		if (h == std::string(block, '\0'))
			return out;
		if (get_str(h, f_magic) != "ustar")
			return make_error(EBADMSG, "not a ustar header at offset " + std::to_string(at));
		if (get_octal(h, f_chksum) != checksum(h))
			return make_error(EBADMSG, "bad header checksum at offset " + std::to_string(at));
		TarMember m;
		std::string prefix = get_str(h, f_prefix);
		m.name = (prefix.empty() ? "" : prefix + "/") + get_str(h, f_name);
		m.mode = static_cast<unsigned>(get_octal(h, f_mode));
		std::uint64_t size = get_octal(h, f_size);
		at += block;
		if (size > a.size() - at)
			return make_error(EBADMSG, "truncated member " + m.name);
		m.content = a.substr(at, size);
		at += (size + block - 1) / block * block;
		out.push_back(std::move(m));
	}
	return make_error(EBADMSG, "the archive has no end marker");
}

} // namespace smc
