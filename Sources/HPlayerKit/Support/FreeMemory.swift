import CHPlayerShim

/// Memory the process has freed but malloc still holds.
package enum FreeMemory {
    /// Hands it back to the system. Each file's threads free into malloc arenas of their own,
    /// which glibc keeps: called between files, so resident memory does not creep up over many.
    package static func release() { hp_release_free_memory() }

    /// Two malloc arenas instead of glibc's eight a core. Threads share them, which costs nothing
    /// here (the hot path allocates nothing per frame), and freed memory is found again instead of
    /// stranded in an arena of a thread long gone: over 1,000 `loadfile` replacements, resident
    /// memory otherwise creeps up by 6 to 30 MiB (scripts/soak.py). Call before any thread starts.
    package static func limitArenas() { hp_limit_malloc_arenas(2) }
}
