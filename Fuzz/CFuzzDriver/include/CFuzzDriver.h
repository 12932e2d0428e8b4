#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver, for a program whose main is its own: SwiftPM names an executable's entry
/// point MODULE_main, so libFuzzer's main is never linked and the entry point calls this.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
