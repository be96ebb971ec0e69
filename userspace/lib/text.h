// SPDX-License-Identifier: GPL-2.0
//
// Small text helpers shared by the tools' output code.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace smc {

enum class Align { left, right };

std::string strprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
// Lower-case hex, zero-padded to width digits ("%0*x").
std::string hex(std::uint64_t v, int width);
// "0x" followed by hex(v, width).
std::string hex0x(std::uint64_t v, int width);
std::string pad(std::string_view s, std::size_t width, Align align);
std::string rstrip(std::string_view s);
std::string trim(std::string_view s);
// A count in at most 6 characters: "999", "1.234K", "12.35M" ...
std::string abbreviate(std::uint64_t n);
// True when word starts with prefix and prefix is not empty.
bool is_prefix(std::string_view prefix, std::string_view word);

} // namespace smc
