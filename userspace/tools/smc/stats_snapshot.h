// SPDX-License-Identifier: GPL-2.0
//
// "stats reset" does not reset the kernel's counters (they are shared by
// everyone); it keeps a per-user snapshot of them, and "stats show" prints
// the counters minus that snapshot.
//
// The snapshot lives in a private directory (mode 0700, owned by the user,
// checked on every use and never followed through a symbolic link); files
// are opened relative to that directory with O_NOFOLLOW and replaced by
// writing a new file and renaming it over the old one, so concurrent
// readers and writers always see a whole snapshot.
#pragma once

#include <optional>
#include <string>

#include "result.h"
#include "smc_model.h"

namespace smc {

// The snapshot's text form: the counters of one technology, the shared
// counters, SMC-R's failover counters (when the kernel has them) and the
// fallback reasons.
std::string serialize_snapshot(const Stats &s, Tech tech);
Result<Stats> parse_snapshot(const std::string &text, Tech tech);

// now minus snapshot, for the counters of one technology and the shared
// ones; nullopt when some counter went backwards (the module was reloaded
// since the snapshot, which is then worthless).
std::optional<Stats> subtract_snapshot(const Stats &now, const Stats &snapshot, Tech tech);

class SnapshotStore {
public:
	SnapshotStore(std::string dir, unsigned uid) : dir_(std::move(dir)), uid_(uid) {}

	// nullopt when there is no snapshot. A damaged one is an Error with
	// code EBADMSG.
	Result<std::optional<Stats>> load(Tech tech) const;
	Result<void> save(Tech tech, const Stats &s) const;
	Result<void> remove(Tech tech) const;
	std::string path(Tech tech) const;

private:
	// An fd of the private directory, created if need be.
	Result<int> open_dir(bool create) const;
	std::string dir_;
	unsigned uid_;
};

} // namespace smc
