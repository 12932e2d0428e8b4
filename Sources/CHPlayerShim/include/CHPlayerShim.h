#ifndef CHPLAYERSHIM_H
#define CHPLAYERSHIM_H

#include <libavutil/avutil.h>
#include <libavutil/error.h>
#include <libavutil/frame.h>
#include <libavutil/rational.h>
#include <errno.h>
#include <stdint.h>
#include "DownloadPool.h"

// Macros Swift cannot import.
static inline int hp_averror(int posix_error) { return AVERROR(posix_error); }
static inline int hp_averror_eof(void) { return AVERROR_EOF; }
static inline int hp_averror_eagain(void) { return AVERROR(EAGAIN); }
static inline int hp_averror_invaliddata(void) { return AVERROR_INVALIDDATA; }
static inline int hp_averror_decoder_not_found(void) { return AVERROR_DECODER_NOT_FOUND; }
static inline int hp_averror_exit(void) { return AVERROR_EXIT; }
static inline AVRational hp_time_base_q(void) { return AV_TIME_BASE_Q; }

/// Copies a frame's channel layout into the fields FFmpeg 5.1 deprecated but still checks
/// (channels, channel_layout) when a frame made by hand enters a filter graph.
static inline void hp_frame_set_legacy_layout(AVFrame *frame) {
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wdeprecated-declarations"
    frame->channels = frame->ch_layout.nb_channels;
    frame->channel_layout = frame->ch_layout.order == AV_CHANNEL_ORDER_NATIVE ? frame->ch_layout.u.mask : 0;
#pragma clang diagnostic pop
}

/// Receives every line libav* logs, already formatted (without the trailing newline).
typedef void (*hp_log_sink)(int level, const char *line);

/// Routes av_log through `sink` for messages at `max_level` or more severe.
void hp_set_log_sink(hp_log_sink sink, int max_level);

/// While quiet (calls nest), what libav* logs on this thread is verbose only: a probe whose
/// failure the caller reports in its own words (a hardware device that is not there).
void hp_log_quiet(int quiet);

/// Copies into `buffer` the first warning or error libav* said on this thread while quiet (empty
/// when none), and forgets it: the reason for the caller's own line. Returns its length. A NULL
/// buffer only forgets it.
int hp_log_quiet_take(char *buffer, int size);

/// Names the calling thread (at most 15 characters are kept), for debuggers and profilers.
void hp_set_thread_name(const char *name);

/// Gives memory that malloc holds free back to the system (glibc's malloc_trim(0), which
/// Swift's Glibc module does not import).
void hp_release_free_memory(void);

/// At most `count` malloc arenas (glibc's M_ARENA_MAX).
void hp_limit_malloc_arenas(int count);

#endif
