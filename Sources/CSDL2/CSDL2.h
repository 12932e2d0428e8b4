#include <SDL2/SDL.h>
#include <SDL2/SDL_ttf.h>

// Macros Swift cannot import.
static inline int hp_sdl_windowpos_undefined(void) { return SDL_WINDOWPOS_UNDEFINED; }
static inline int hp_sdl_windowpos_centered(void) { return SDL_WINDOWPOS_CENTERED; }
static inline SDL_AudioFormat hp_sdl_audio_f32(void) { return AUDIO_F32SYS; }
static inline SDL_AudioFormat hp_sdl_audio_s16(void) { return AUDIO_S16SYS; }
static inline Uint32 hp_sdl_pixelformat_iyuv(void) { return SDL_PIXELFORMAT_IYUV; }
static inline Uint32 hp_sdl_pixelformat_nv12(void) { return SDL_PIXELFORMAT_NV12; }
static inline Uint32 hp_sdl_pixelformat_argb8888(void) { return SDL_PIXELFORMAT_ARGB8888; }
static inline Uint32 hp_sdl_pixelformat_rgba32(void) { return SDL_PIXELFORMAT_RGBA32; }
