/* SPDX-License-Identifier: GPL-2.0 */
/* kshim: struct xarray is in kshim.h (fuzz_rx.c models the MR table). */
#include "../kshim.h"
