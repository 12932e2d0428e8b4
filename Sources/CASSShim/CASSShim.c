#include "CASSShim.h"

#include <stdio.h>
#include <stdlib.h>

struct hp_ass_log_target {
    hp_ass_log_sink sink;
    int max_level;
};

static void hp_ass_message(int level, const char *format, va_list arguments, void *data) {
    const struct hp_ass_log_target *target = data;
    if (level > target->max_level) return;
    char line[1024];
    vsnprintf(line, sizeof line, format, arguments);
    target->sink(level, line);
}

ASS_Library *hp_ass_library_init(hp_ass_log_sink sink, int max_level) {
    // One target for every library: the sink and level are the same for all, set once.
    static struct hp_ass_log_target target;
    target.sink = sink;
    target.max_level = max_level;
    ASS_Library *library = ass_library_init();
    if (library) ass_set_message_cb(library, hp_ass_message, &target);
    return library;
}
