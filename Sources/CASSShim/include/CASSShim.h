#ifndef CASS_SHIM_H
#define CASS_SHIM_H

#include <ass/ass.h>

/// Receives what libass logs at `max_level` or more severe (0 fatal, 1 error, 2 warning, 4
/// information), already formatted, without a trailing newline.
typedef void (*hp_ass_log_sink)(int level, const char *line);

/// A libass library whose messages go to `sink` (libass hands them over with a va_list, which
/// Swift cannot take).
ASS_Library *hp_ass_library_init(hp_ass_log_sink sink, int max_level);

#endif
