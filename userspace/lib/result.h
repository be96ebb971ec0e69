// SPDX-License-Identifier: GPL-2.0
//
// Errors as values. g++ 12 has no std::expected, so the tools carry their own
// small Result<T>: either a value or an Error with an errno-style code and a
// message that is fit to print after "PROGRAM: ".
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace smc {

struct Error {
	int code = 0;		// errno value when one applies, else 0
	std::string message;	// one line, no trailing newline
};

inline Error make_error(int code, std::string message)
{
	return Error{code, std::move(message)};
}

template <class T>
class [[nodiscard]] Result {
public:
	Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}
	Result(Error error) : v_(std::in_place_index<1>, std::move(error)) {}

	bool ok() const { return v_.index() == 0; }
	explicit operator bool() const { return ok(); }

	T &value() & { return std::get<0>(v_); }
	const T &value() const & { return std::get<0>(v_); }
	T &&value() && { return std::get<0>(std::move(v_)); }
	T *operator->() { return &value(); }
	const T *operator->() const { return &value(); }
	T &operator*() & { return value(); }
	const T &operator*() const & { return value(); }

	const Error &error() const { return std::get<1>(v_); }

private:
	std::variant<T, Error> v_;
};

template <>
class [[nodiscard]] Result<void> {
public:
	Result() = default;
	Result(Error error) : error_(std::move(error)) {}

	bool ok() const { return !error_; }
	explicit operator bool() const { return ok(); }
	const Error &error() const { return *error_; }

private:
	std::optional<Error> error_;
};

// Prefixes an error's message with some context ("SMC_PNETID: ...").
inline Error with_context(Error e, const std::string &context)
{
	e.message = context + ": " + e.message;
	return e;
}

} // namespace smc
