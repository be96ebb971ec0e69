// SPDX-License-Identifier: GPL-2.0
//
// A POSIX ustar archive built in memory: what smc_dbg writes. Regular files
// and directories only, names up to 255 bytes (split into prefix and name as
// ustar does).
#pragma once

#include <cstdint>
#include <ctime>
#include <string>
#include <vector>

#include "result.h"

namespace smc {

struct TarMember {
	std::string name;	// directories end in '/'
	std::string content;
	unsigned mode = 0644;
};

class TarWriter {
public:
	explicit TarWriter(std::time_t mtime) : mtime_(mtime) {}
	// EINVAL when the name does not fit a ustar header.
	Result<void> add_file(const std::string &name, const std::string &content, unsigned mode = 0644);
	Result<void> add_dir(const std::string &name);
	// The archive, with its two closing zero blocks.
	std::string finish() const;

private:
	Result<void> add(const std::string &name, const std::string &content, unsigned mode, char type);
	std::time_t mtime_;
	std::string data_;
};

// Reads an archive back (the host tests check what smc_dbg wrote).
Result<std::vector<TarMember>> read_tar(const std::string &archive);

} // namespace smc
