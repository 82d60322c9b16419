/* SPDX-License-Identifier: GPL-2.0 */
/* kshim: struct kref is in kshim.h. */
#include "../kshim.h"
