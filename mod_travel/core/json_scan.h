/* The plain runs of a JSON string's text: bytes both the reader
 * (core/jval.c) and the writer (core/json_text.c) pass through as they are
 * (ASCII from the space up, but the quote and the backslash).
 *
 * Why: strings are most of a supplier's answer (a flight search's 148 kB)
 * and of ours; testing each byte for the quote, the backslash, a control
 * byte and the high bit one by one was the largest single cost of reading
 * them (docs/performance.md). A table answers in one load. (Eight bytes
 * at a time was tried: more instructions, the strings being short.) */
#ifndef TRV_CORE_JSON_SCAN_H
#define TRV_CORE_JSON_SCAN_H

#include <apr.h>

/* 1 for a plain byte, else 0. */
extern const unsigned char trv_json_plain[256];

/* The length of s's longest prefix of plain bytes (at most n). */
static inline apr_size_t trv_json_plain_len(const char *s, apr_size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    apr_size_t i = 0;
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
