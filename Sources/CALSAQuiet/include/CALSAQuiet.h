#ifndef CALSAQUIET_H
#define CALSAQUIET_H

// Stops libasound printing its own error lines on stderr (eight of them when a machine has no
// sound card), before SDL loads it: the player says in one line what it could not open. The
// library is loaded here as SDL will load it, so both share the handler; nothing happens where
// it is not installed.
void hp_alsa_quiet(void);

#endif
