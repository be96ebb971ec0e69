// SPDX-License-Identifier: GPL-2.0
#include "text.h"

#include <cstdarg>
#include <cstdio>
#include <vector>

namespace smc {

std::string strprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	va_list again;
	va_copy(again, ap);
	int n = std::vsnprintf(nullptr, 0, fmt, ap);
	va_end(ap);
	std::string out;
	if (n > 0) {
		std::vector<char> buf(static_cast<std::size_t>(n) + 1);
		std::vsnprintf(buf.data(), buf.size(), fmt, again);
		out.assign(buf.data(), static_cast<std::size_t>(n));
	}
	va_end(again);
	return out;
}

std::string hex(std::uint64_t v, int width)
{
	return strprintf("%0*llx", width, static_cast<unsigned long long>(v));
}

std::string hex0x(std::uint64_t v, int width)
{
	return "0x" + hex(v, width);
}

std::string pad(std::string_view s, std::size_t width, Align align)
{
	if (s.size() >= width)
		return std::string(s);
	std::string fill(width - s.size(), ' ');
	return align == Align::left ? std::string(s) + fill : fill + std::string(s);
}

std::string rstrip(std::string_view s)
{
	auto end = s.find_last_not_of(" \t");
	return end == std::string_view::npos ? std::string() : std::string(s.substr(0, end + 1));
}

std::string trim(std::string_view s)
{
	auto begin = s.find_first_not_of(" \t");
	if (begin == std::string_view::npos)
		return {};
	return rstrip(s.substr(begin));
}

std::string abbreviate(std::uint64_t n)
{
	if (n < 1000)
		return std::to_string(n);
	static const char suffix[] = "KMGTPE";
	double v = static_cast<double>(n);
	for (int k = 0; k < 6; ++k) {
		v /= 1000.0;
		// 999.6K would round to "1000K": say 1.000M instead
		if (v >= 999.5 && k < 5)
			continue;
		// as many decimals as fit in 5 characters, then the suffix
		for (int decimals = 3; decimals >= 0; --decimals) {
			std::string s = strprintf("%.*f", decimals, v);
			if (s.size() <= 5)
				return s + suffix[k];
		}
	}
	return strprintf("%.0fE", v);
}

bool is_prefix(std::string_view prefix, std::string_view word)
{
	return !prefix.empty() && word.substr(0, prefix.size()) == prefix;
}

} // namespace smc
