// lcms2's memory, budgeted per untrusted profile (color_budget.c).
#pragma once
#include <stddef.h>

// From here until ac_lcms_budget_end on this thread, lcms2 may allocate at most
// AC_LCMS_BUDGET_BASE + AC_LCMS_BUDGET_PER_BYTE × icc_size bytes in all; an allocation past that
// fails as if memory were short, and lcms2 reports the profile or tag as unreadable.
void ac_lcms_budget_begin(size_t icc_size);
// Ends the budget; returns the bytes lcms2 was given while it ran, and in `refused` (if not NULL)
// the bytes it asked for past the budget.
size_t ac_lcms_budget_end(size_t *refused);
