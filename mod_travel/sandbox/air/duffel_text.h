/* SUPPLIER_A's offers, airlines and airports as Duffel writes them, made
 * as JSON text directly (core/json_text.h) rather than as Jansson trees.
 *
 * Why: an offer request's answer is every offer of the search, about
 * 150 kB for 40 offers; built as a tree it cost the sandbox more CPU per
 * flight search than the gateway spent reading it (docs/performance.md).
 * The text is the same: the members and their order are those of
 * @duffel/api's Offer, Airline and Place types as the sandbox always
 * wrote them. The few places that change an offer before answering (a
 * single offer with its passengers' names, an order made from an offer)
 * read this text back into a tree (sbx_dtext_tree): one writer for every
 * answer. */
#ifndef SBX_DUFFEL_TEXT_H
#define SBX_DUFFEL_TEXT_H

#include "air.h"
#include "core/json_text.h"

#define SBX_DTEXT_KEPT 16

typedef struct sbx_dtext_kept {
    int i;
    const char *s;
    apr_size_t n;
} sbx_dtext_kept;

/* One answer being written. An airport's or airline's text is made once
 * per answer and copied where it appears again (an answer names a few of
 * each, each many times). */
typedef struct sbx_dtext {
    trv_jtext t;
    const sbx_world *w;
    sbx_dtext_kept places[SBX_DTEXT_KEPT], airlines[SBX_DTEXT_KEPT];
    int n_places, n_airlines;
    /* The instants written (every offer of a search has the same
     * created_at, expires_at and payment_required_by). */
    apr_int64_t at[4];
    const char *at_text[4];
    int n_at;
} sbx_dtext;

void sbx_dtext_init(sbx_dtext *d, apr_pool_t *p, const sbx_world *w, apr_size_t cap);
/* Place (type airport) of w->airports[i]. */
void sbx_dtext_place(sbx_dtext *d, int i);
/* Airline of w->airlines[i]. */
void sbx_dtext_airline(sbx_dtext *d, int i);

/* Which available_services an offer carries. */
typedef enum {
    SBX_DTEXT_NO_SERVICES,   /* no member (an offer request's offers) */
    SBX_DTEXT_SERVICES_NONE, /* [] */
    SBX_DTEXT_SERVICES       /* the bags for sale */
} sbx_dtext_services;

/* The Offer; created: when its search ran (unix seconds); hold: how long
 * a hold order of it waits for payment (seconds). */
void sbx_dtext_offer(sbx_dtext *d, const sbx_offer *o, apr_int64_t created,
                     apr_int64_t hold, sbx_dtext_services services);

/* What the text written so far reads as (a new reference), for the
 * answers that change an offer before sending it; NULL when the text is
 * not whole. */
json_t *sbx_dtext_tree(sbx_dtext *d);

/* A passenger's id in an offer and its offer request: the search's
 * (its nonce), so every offer of one offer request names them alike. */
const char *sbx_dtext_pax_id(apr_pool_t *p, const sbx_offer *o, int i);
const char *sbx_dtext_pax_type(int t);
/* A segment's id: the offer's tag, journey j, segment k. */
const char *sbx_dtext_seg_id(apr_pool_t *p, const sbx_offer *o, int j, int k);
/* Duffel writes cabin classes in lower case. */
const char *sbx_dtext_cabin(apr_pool_t *p, int cabin);

#endif
