/* The plain runs of a JSON string's text: bytes both the reader
 * (core/jval.c) and the writer (core/json_text.c) pass through as they are
 * (ASCII from the space up, but the quote and the backslash).
 *
 * Why: strings are most of a supplier's answer (a flight search's 148 kB)
 * and of ours; testing each byte for the quote, the backslash, a control
 * byte and the high bit one by one was the largest single cost of reading
 * them (docs/performance.md). Sixteen bytes are tested at once with SSE2
 * (every x86-64 has it): the reader scans from a string's start to the
 * end of the answer, so even a short string is found in one step; a
 * table, four bytes a step, does the rest and other machines. (Eight
 * bytes at a time in a 64-bit word was tried: more instructions.) */
#ifndef TRV_CORE_JSON_SCAN_H
#define TRV_CORE_JSON_SCAN_H

#include <apr.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* 1 for a plain byte, else 0. */
extern const unsigned char trv_json_plain[256];

/* The length of s's longest prefix of plain bytes (at most n). */
static inline apr_size_t trv_json_plain_len(const char *s, apr_size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    apr_size_t i = 0;
#if defined(__SSE2__)
    {
        const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\');
        const __m128i below_space = _mm_set1_epi8(0x1F);
        while (i + 16 <= n) {
            __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(u + i));
            /* v <= 0x1F unsigned: min(v, 0x1F) == v; the high bit is
             * movemask's own. */
            __m128i stop = _mm_or_si128(
                _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
                _mm_cmpeq_epi8(_mm_min_epu8(v, below_space), v));
            unsigned mask = (unsigned)_mm_movemask_epi8(stop) | (unsigned)_mm_movemask_epi8(v);
            if (mask) {
                return i + (apr_size_t)__builtin_ctz(mask);
            }
            i += 16;
        }
    }
#endif
    /* Four bytes a step: one bound check and one jump back for four (a
     * hotel search reads 14,000 strings; docs/performance.md, "The hotel
     * search's gateway CPU"). */
    while (i + 4 <= n) {
        if (!trv_json_plain[u[i]]) {
            return i;
        }
        if (!trv_json_plain[u[i + 1]]) {
            return i + 1;
        }
        if (!trv_json_plain[u[i + 2]]) {
            return i + 2;
        }
        if (!trv_json_plain[u[i + 3]]) {
            return i + 3;
        }
        i += 4;
    }
    while (i < n && trv_json_plain[u[i]]) {
        i++;
    }
    return i;
}

#endif
