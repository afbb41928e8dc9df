// The body of StreamCopy, included by each instruction set's translation unit inside its namespace:
// StoreLine(to, from) copies one 64-byte line to a 64-byte aligned destination with non-temporal stores.
// A destination on a 16-byte boundary but not a 64-byte one (a cache whose base is only 16-byte aligned)
// takes 16-byte non-temporal stores up to the next line: an ordinary store into a line that non-temporal
// stores also write would read that line first. Lines of the source ahead of the one being copied are
// requested so that the loads find them on their way; only lines of this copy: a compressed cache's rows are
// one head's channels of each token, and the lines past them hold other heads', read by later tasks.
inline constexpr size_t kPrefetchBytes = 1024;

inline void StoreChunk(char* to, const char* from) {
    _mm_stream_si128(reinterpret_cast<__m128i*>(to), _mm_loadu_si128(reinterpret_cast<const __m128i*>(from)));
}

inline void StreamCopyLines(char* to, const char* from, size_t bytes) {
    size_t done = std::min(bytes, (16 - reinterpret_cast<uintptr_t>(to) % 16) % 16);
    std::memcpy(to, from, done);
    for (; done + 16 <= bytes && reinterpret_cast<uintptr_t>(to + done) % 64 != 0; done += 16)
        StoreChunk(to + done, from + done);
    for (; done + 64 <= bytes; done += 64) {
        if (done + kPrefetchBytes < bytes) _mm_prefetch(from + done + kPrefetchBytes, _MM_HINT_T0);
        StoreLine(to + done, from + done);
    }
    for (; done + 16 <= bytes; done += 16)
        StoreChunk(to + done, from + done);
    std::memcpy(to + done, from + done, bytes - done);
}
