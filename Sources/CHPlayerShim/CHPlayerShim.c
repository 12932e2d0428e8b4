#define _GNU_SOURCE
#include "CHPlayerShim.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <pthread.h>
#include <malloc.h>

static hp_log_sink current_sink;
static _Thread_local int quiet_depth;
/// The first warning or error said while quiet, for the caller's own line.
static _Thread_local char quiet_first[256];

static void hp_log_callback(void *avcl, int level, const char *fmt, va_list vl)
{
    if (quiet_depth > 0 && level < AV_LOG_VERBOSE) {
        if (level <= AV_LOG_WARNING && quiet_first[0] == '\0') {
            va_list copy;
            va_copy(copy, vl);
            vsnprintf(quiet_first, sizeof(quiet_first), fmt, copy);
            va_end(copy);
            size_t length = strlen(quiet_first);
            while (length > 0 && (quiet_first[length - 1] == '\n' || quiet_first[length - 1] == '.'))
                quiet_first[--length] = '\0';
        }
        level = AV_LOG_VERBOSE;
    }
    if (level > av_log_get_level() || current_sink == NULL)
        return;
    char line[1024];
    int print_prefix = 1;
    av_log_format_line2(avcl, level, fmt, vl, line, sizeof(line), &print_prefix);
    size_t length = strlen(line);
    while (length > 0 && (line[length - 1] == '\n' || line[length - 1] == '\r'))
        line[--length] = '\0';
    if (length > 0)
        current_sink(level, line);
}

void hp_log_quiet(int quiet)
{
    // A quiet stretch reports its own first line, not one an earlier stretch left untaken.
    if (quiet && quiet_depth == 0)
        quiet_first[0] = '\0';
    quiet_depth += quiet ? 1 : -1;
}

int hp_log_quiet_take(char *buffer, int size)
{
    int length = snprintf(buffer, (size_t)size, "%s", quiet_first);
    quiet_first[0] = '\0';
    return length;
}

void hp_set_log_sink(hp_log_sink sink, int max_level)
{
    current_sink = sink;
    av_log_set_level(max_level);
    av_log_set_callback(hp_log_callback);
}

void hp_set_thread_name(const char *name)
{
    char truncated[16];
    strncpy(truncated, name, sizeof(truncated) - 1);
    truncated[sizeof(truncated) - 1] = '\0';
    pthread_setname_np(pthread_self(), truncated);
}

void hp_release_free_memory(void)
{
    malloc_trim(0);
}

void hp_limit_malloc_arenas(int count)
{
    mallopt(M_ARENA_MAX, count);
}
