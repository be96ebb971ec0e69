// SPDX-License-Identifier: GPL-2.0
//
// The RDMA CM of the running system, through librdmacm.
#pragma once

#include "smc_chk.h"

namespace smc {

class LibRdmaCm : public RdmaCm {
public:
	std::unique_ptr<CmDriver> client() override;
	std::unique_ptr<CmListener> listener() override;
};

} // namespace smc
