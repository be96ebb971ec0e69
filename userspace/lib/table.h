// SPDX-License-Identifier: GPL-2.0
//
// A table is defined once, as a list of columns; the same definition prints
// the text table (header plus fixed-width columns) and the JSON array (one
// object per row, one member per column).
#pragma once

#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "json.h"
#include "text.h"

namespace smc {

// One value of one row: how it reads in the text table and in JSON.
struct Cell {
	std::string text;
	json::Value json;
};

inline Cell text_cell(std::string s) { return Cell{s, json::Value(s)}; }

enum class Show { both, text_only, json_only };

template <class Row>
struct Column {
	std::string header;	// text heading
	std::string key;	// JSON member name
	std::size_t width = 0;	// minimum text width of the values
	Align align = Align::left;
	std::size_t gap = 1;	// spaces after the value (and after the heading)
	// nullopt: the row has no such value. In text that ends the line (the
	// columns to its right are left empty); in JSON the member is left out.
	// A cell whose json is null is printed in text but left out of JSON
	// (a placeholder such as "-" for a value the kernel did not send).
	std::function<std::optional<Cell>(const Row &)> get;
	Show show = Show::both;
};

// Text-table helpers (table.cc).
void print_text_line(std::ostream &out, const std::vector<std::string> &padded);
std::string pad_cell(const std::string &text, std::size_t width, Align align, std::size_t gap);

template <class Row>
class Table {
public:
	explicit Table(std::vector<Column<Row>> columns) : columns_(std::move(columns)) {}

	void print_text(std::ostream &out, const std::vector<Row> &rows, bool with_header = true) const
	{
		if (with_header) {
			std::vector<std::string> line;
			for (const auto &c : columns_)
				if (c.show != Show::json_only)
					line.push_back(pad_cell(c.header, c.width + c.gap, Align::left, 0));
			print_text_line(out, line);
		}
		for (const auto &row : rows) {
			std::vector<std::string> line;
			for (const auto &c : columns_) {
				if (c.show == Show::json_only)
					continue;
				auto cell = c.get(row);
				if (!cell)
					break;
				line.push_back(pad_cell(cell->text, c.width, c.align, c.gap));
			}
			print_text_line(out, line);
		}
	}

	json::Value to_json(const std::vector<Row> &rows) const
	{
		json::Value out = json::Value::array();
		for (const auto &row : rows) {
			json::Value obj = json::Value::object();
			for (const auto &c : columns_) {
				if (c.show == Show::text_only)
					continue;
				if (auto cell = c.get(row); cell && !cell->json.is_null())
					obj.set(c.key, std::move(cell->json));
			}
			out.push(std::move(obj));
		}
		return out;
	}

private:
	std::vector<Column<Row>> columns_;
};

} // namespace smc
