// SPDX-License-Identifier: GPL-2.0
//
// The real Transport: netlink sockets through libnl-3, family ids through
// libnl-genl-3's controller lookup.
#pragma once

#include "nl_transport.h"

namespace smc::nl {

class LibnlFactory : public TransportFactory {
public:
	Result<std::unique_ptr<Transport>> open(Protocol protocol) override;
};

} // namespace smc::nl
