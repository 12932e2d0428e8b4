#include "CALSAQuiet.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stddef.h>

typedef void (*alsa_error_handler)(const char *file, int line, const char *function, int err, const char *fmt, ...);

static void ignore(const char *file, int line, const char *function, int err, const char *fmt, ...) {
    (void)file; (void)line; (void)function; (void)err; (void)fmt;
}

void hp_alsa_quiet(void) {
    // Kept loaded for the life of the process, as SDL keeps it.
    void *library = dlopen("libasound.so.2", RTLD_NOW | RTLD_GLOBAL);
    if (library == NULL) return;
    int (*set_handler)(alsa_error_handler) = (int (*)(alsa_error_handler))dlsym(library, "snd_lib_error_set_handler");
    if (set_handler != NULL) set_handler(ignore);
}
