// SPDX-License-Identifier: GPL-2.0
#include "options.h"

#include <cerrno>
#include <cstring>

#include "text.h"

namespace smc {

namespace {

Error usage_error(std::string message)
{
	return make_error(EINVAL, std::move(message));
}

} // namespace

Result<ParsedArgs> parse_options(std::span<const OptionSpec> specs,
				 std::span<const std::string> args)
{
	ParsedArgs out;
	for (std::size_t i = 0; i < args.size(); ++i) {
		const std::string &a = args[i];
		if (a == "--") {
			out.operands.insert(out.operands.end(), args.begin() + i + 1, args.end());
			break;
		}
		if (a.size() > 2 && a[0] == '-' && a[1] == '-') {
			std::string name = a.substr(2);
			std::string value;
			bool has_value = false;
			if (auto eq = name.find('='); eq != std::string::npos) {
				value = name.substr(eq + 1);
				name.resize(eq);
				has_value = true;
			}
			const OptionSpec *found = nullptr;
			std::string candidates;
			int matches = 0;
			for (const auto &s : specs) {
				if (!s.long_name)
					continue;
				if (name == s.long_name) {
					found = &s;
					matches = 1;
					break;
				}
				if (is_prefix(name, s.long_name)) {
					found = &s;
					++matches;
					candidates += std::string(candidates.empty() ? "" : ", ") + "--" + s.long_name;
				}
			}
			if (!found)
				return usage_error("unknown option '" + a + "'");
			if (matches > 1)
				return usage_error("ambiguous option '" + a + "' (" + candidates + ")");
			std::string spelling = std::string("--") + found->long_name;
			if (found->takes_arg && !has_value) {
				if (i + 1 >= args.size())
					return usage_error("option '" + spelling + "' needs an argument");
				value = args[++i];
			} else if (!found->takes_arg && has_value) {
				return usage_error("option '" + spelling + "' takes no argument");
			}
			out.options.push_back(ParsedOption{found->id, value, spelling});
			continue;
		}
		if (a.size() > 1 && a[0] == '-') {
			for (std::size_t k = 1; k < a.size(); ++k) {
				const OptionSpec *found = nullptr;
				for (const auto &s : specs)
					if (s.short_name && s.short_name == a[k])
						found = &s;
				std::string spelling = std::string("-") + a[k];
				if (!found)
					return usage_error("unknown option '" + spelling + "'");
				std::string value;
				if (found->takes_arg) {
					if (k + 1 < a.size())
						value = a.substr(k + 1);
					else if (i + 1 < args.size())
						value = args[++i];
					else
						return usage_error("option '" + spelling + "' needs an argument");
					out.options.push_back(ParsedOption{found->id, value, spelling});
					break;
				}
				out.options.push_back(ParsedOption{found->id, value, spelling});
			}
			continue;
		}
		out.operands.push_back(a);
	}
	return out;
}

int match_word(std::string_view arg, std::span<const std::string_view> words)
{
	for (std::size_t i = 0; i < words.size(); ++i)
		if (arg == words[i])
			return static_cast<int>(i);
	for (std::size_t i = 0; i < words.size(); ++i)
		if (is_prefix(arg, words[i]))
			return static_cast<int>(i);
	return -1;
}

} // namespace smc
