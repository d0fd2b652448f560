/* A flight search's offers as API JSON text (flight/supplier.h, search).
 * The adapter writes each offer's members straight from the supplier's
 * answer into one text; beside each, what the gateway reads without
 * parsing it: the supplier's reference and expiry (for the wrapped
 * offer_reference, flight/offer_ref.h) and the stops and carriers its
 * filters test (flight/offer_filter.h). The gateway then writes the
 * answer around the members (trv_foffer_text_write).
 *
 * Why: building each offer as a Jansson tree, printing the tree and
 * freeing it was more than a third of a flight offers request's
 * instructions (docs/performance.md, "The thirteenth pass"). */
#ifndef TRV_FLIGHT_OFFER_TEXT_H
#define TRV_FLIGHT_OFFER_TEXT_H

#include "core/json_text.h"

#include <apr_tables.h>
#include <jansson.h>

typedef struct trv_foffer_text {
    const char *ref;            /* the supplier's offer reference */
    const char *expires_at;     /* RFC 3339, or NULL when the supplier gave none */
    /* The API offer's members after offer_reference, as JSON text without
     * the braces ("\"total_amount\":{...},...,\"total_duration_minutes\":445"). */
    const char *members;
    apr_size_t members_len;
    int stops;                  /* the most stops of any of its journeys */
    /* const char *: every segment's marketing carrier code, NULL where the
     * supplier named none. */
    apr_array_header_t *carriers;
    apr_size_t start;           /* the list's own: where the members begin */
} trv_foffer_text;

/* The adapter's side: the offers of one search written one after another
 * into one growing text. */
typedef struct trv_foffer_list {
    apr_pool_t *p;
    trv_jtext text;
    apr_array_header_t *offers; /* trv_foffer_text */
} trv_foffer_list;

void trv_foffer_list_init(trv_foffer_list *l, apr_pool_t *p);
/* Begins an offer: its members follow, written on l->text (an object is
 * open), and its stops and carriers are set on the answer, which is valid
 * until trv_foffer_list_close. */
trv_foffer_text *trv_foffer_list_open(trv_foffer_list *l, const char *ref,
                                      const char *expires_at);
/* One segment's marketing carrier code (NULL when not named). */
void trv_foffer_text_carrier(trv_foffer_text *o, const char *code);
void trv_foffer_list_close(trv_foffer_list *l);
/* The offers (trv_foffer_text), or NULL when something could not be
 * written as JSON (a string that is not UTF-8, an offer left open). */
apr_array_header_t *trv_foffer_list_done(trv_foffer_list *l);

/* The offer as the API's value: offer_reference (the one given: the
 * wrapped reference), then its members. */
void trv_foffer_text_write(trv_jtext *t, const trv_foffer_text *o, const char *reference);

/* The offers (trv_foffer_text) as a Jansson array (a new reference), each
 * under the supplier's own reference, or NULL: for the conformance kit and
 * the tests, which read offers as trees. */
json_t *trv_foffer_text_tree(apr_pool_t *p, const apr_array_header_t *offers);

#endif
