/* SPDX-License-Identifier: GPL-2.0 */
/* kshim: struct mutex is in kshim.h. */
#include "../kshim.h"
