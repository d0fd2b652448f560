/* The exact text of the real numbers of a request body. Jansson reads every
 * number with a fraction or an exponent into a double, so 50.000000000000001
 * and 50 are the same value once parsed, and an amount checked through the
 * double is silently rounded. The body's text is kept with its parsed root;
 * the first time a number's text is asked for, the body is scanned once and
 * its real-number tokens paired, in document order, with the real values
 * of the tree (Jansson keeps object members in their order, and a body has
 * no duplicate keys: trv_json_parse refuses them). Nothing is scanned for a
 * request that never asks. */
#ifndef TRV_JSON_NUMBERS_H
#define TRV_JSON_NUMBERS_H

#include <apr_pools.h>
#include <jansson.h>

/* Keeps buf[0..len), the text root was parsed from (trv_json_parse on p),
 * for trv_json_numbers_text on p. buf must live as long as p. */
void trv_json_numbers_keep(apr_pool_t *p, const json_t *root, const char *buf,
                           apr_size_t len);

/* The token a real number of a kept document was written as ("50.0e0",
 * "1.0000000000000000000001"), or NULL when num is not a real or not from a
 * document kept on p (a value made in code). */
const char *trv_json_numbers_text(apr_pool_t *p, const json_t *num);

#endif
