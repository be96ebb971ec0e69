// SPDX-License-Identifier: GPL-2.0
//
// A small JSON value and writer: what the tools print with -j/--json.
// Objects keep their members in insertion order, so output is stable.
#pragma once

#include <concepts>
#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace smc::json {

class Value;
struct Member;
using Array = std::vector<Value>;
using Object = std::vector<Member>;

class Value {
public:
	Value() = default;	// null
	Value(std::nullptr_t) {}
	Value(bool b) : v_(b) {}
	template <std::integral I>
		requires(!std::same_as<I, bool> && !std::same_as<I, char>)
	Value(I i)
	{
		if constexpr (std::is_signed_v<I>)
			v_ = static_cast<std::int64_t>(i);
		else
			v_ = static_cast<std::uint64_t>(i);
	}
	Value(double d) : v_(d) {}
	Value(std::string s) : v_(std::move(s)) {}
	Value(std::string_view s) : v_(std::string(s)) {}
	Value(const char *s) : v_(std::string(s)) {}
	Value(Array a);
	Value(Object o);

	static Value object() { return Value(Object{}); }
	static Value array() { return Value(Array{}); }

	bool is_null() const { return v_.index() == 0; }
	// Appends a member to an object value.
	Value &set(std::string key, Value value);
	// Appends an element to an array value.
	Value &push(Value value);

	void write(std::ostream &out, bool pretty, int indent = 0) const;

private:
	std::variant<std::monostate, bool, std::int64_t, std::uint64_t, double, std::string, Array, Object> v_;
};

struct Member {
	std::string key;
	Value value;
};

inline Value::Value(Array a) : v_(std::move(a)) {}
inline Value::Value(Object o) : v_(std::move(o)) {}

// The whole document, with a final newline.
std::string to_string(const Value &v, bool pretty);
void write_quoted(std::ostream &out, std::string_view s);

} // namespace smc::json
