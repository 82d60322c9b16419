/* SPDX-License-Identifier: GPL-2.0 */
/* kshim: struct completion is in kshim.h. */
#include "../kshim.h"
