#ifndef CPULSELATENCY_H
#define CPULSELATENCY_H

#include <stdint.h>

// How long the sound server holds this process's playback stream before it is heard, from
// PulseAudio's (or PipeWire's pulse server's) own accounting, which SDL does not pass on.
//
// hp_pulse_latency_start connects on a thread of libpulse's and asks every 200 ms; it returns
// 0 when no server answers. hp_pulse_latency_usec gives the latest answer (stream buffer plus
// sink latency, microseconds), or -1 while there is none.
int hp_pulse_latency_start(void);
int64_t hp_pulse_latency_usec(void);
void hp_pulse_latency_stop(void);

#endif
