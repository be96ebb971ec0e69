// SPDX-License-Identifier: GPL-2.0
#include "table.h"

namespace smc {

std::string pad_cell(const std::string &text, std::size_t width, Align align, std::size_t gap)
{
	return pad(text, width, align) + std::string(gap, ' ');
}

void print_text_line(std::ostream &out, const std::vector<std::string> &padded)
{
	std::string line;
	for (const auto &p : padded)
		line += p;
	// Lines never end in blanks, whatever the last column's padding.
	out << rstrip(line) << '\n';
}

} // namespace smc
