/* SPDX-License-Identifier: GPL-2.0 */
/* kshim: nothing rx.c uses; kshim.h for the basics. */
#include "../kshim.h"
