// SPDX-License-Identifier: GPL-2.0
#include "json.h"

#include <cmath>
#include <cstdio>
#include <sstream>

namespace smc::json {

Value &Value::set(std::string key, Value value)
{
	if (is_null())
		v_ = Object{};
	std::get<Object>(v_).push_back(Member{std::move(key), std::move(value)});
	return *this;
}

Value &Value::push(Value value)
{
	if (is_null())
		v_ = Array{};
	std::get<Array>(v_).push_back(std::move(value));
	return *this;
}

namespace {

// Length of the UTF-8 sequence starting at s[i], or 0 when it is invalid.
std::size_t utf8_length(std::string_view s, std::size_t i)
{
	auto c = static_cast<unsigned char>(s[i]);
	std::size_t n = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
	if (n == 0 || i + n > s.size())
		return 0;
	for (std::size_t k = 1; k < n; ++k)
		if ((static_cast<unsigned char>(s[i + k]) & 0xc0) != 0x80)
			return 0;
	return n;
}

void newline(std::ostream &out, bool pretty, int indent)
{
	if (pretty)
		out << '\n' << std::string(static_cast<std::size_t>(indent) * 2, ' ');
}

} // namespace

void write_quoted(std::ostream &out, std::string_view s)
{
	out << '"';
	for (std::size_t i = 0; i < s.size(); ++i) {
		auto c = static_cast<unsigned char>(s[i]);
		switch (c) {
		case '"': out << "\\\""; continue;
		case '\\': out << "\\\\"; continue;
		case '\n': out << "\\n"; continue;
		case '\t': out << "\\t"; continue;
		case '\r': out << "\\r"; continue;
		default: break;
		}
		if (c < 0x20) {
			char buf[8];
			std::snprintf(buf, sizeof(buf), "\\u%04x", c);
			out << buf;
		} else if (c < 0x80) {
			out << static_cast<char>(c);
		} else if (std::size_t n = utf8_length(s, i)) {
			out << s.substr(i, n);
			i += n - 1;
		} else {
			out << "\\ufffd";	// not UTF-8: keep the document valid
		}
	}
	out << '"';
}

void Value::write(std::ostream &out, bool pretty, int indent) const
{
	switch (v_.index()) {
	case 0: out << "null"; break;
	case 1: out << (std::get<bool>(v_) ? "true" : "false"); break;
	case 2: out << std::get<std::int64_t>(v_); break;
	case 3: out << std::get<std::uint64_t>(v_); break;
	case 4: {
		double d = std::get<double>(v_);
		if (!std::isfinite(d)) {
			out << "null";
		} else {
			char buf[32];
			std::snprintf(buf, sizeof(buf), "%.15g", d);
			out << buf;
		}
		break;
	}
	case 5: write_quoted(out, std::get<std::string>(v_)); break;
	case 6: {
		const auto &a = std::get<Array>(v_);
		out << '[';
		for (std::size_t i = 0; i < a.size(); ++i) {
			if (i)
				out << ',';
			newline(out, pretty, indent + 1);
			a[i].write(out, pretty, indent + 1);
		}
		if (!a.empty())
			newline(out, pretty, indent);
		out << ']';
		break;
	}
	case 7: {
		const auto &o = std::get<Object>(v_);
		out << '{';
		for (std::size_t i = 0; i < o.size(); ++i) {
			if (i)
				out << ',';
			newline(out, pretty, indent + 1);
			write_quoted(out, o[i].key);
			out << (pretty ? ": " : ":");
			o[i].value.write(out, pretty, indent + 1);
		}
		if (!o.empty())
			newline(out, pretty, indent);
		out << '}';
		break;
	}
	}
}

std::string to_string(const Value &v, bool pretty)
{
	std::ostringstream out;
	v.write(out, pretty);
	out << '\n';
	return out.str();
}

} // namespace smc::json
