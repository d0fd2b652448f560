/* The search deadline: hotel search and offers ask their suppliers at once
 * and wait at most TravelSearchDeadline for them. A supplier that has not
 * answered by then (or whose own timeout came first) is left out and named
 * in meta.unanswered_suppliers, as long as another one answered; so is a
 * supplier over its own rate limit (core/upstream_limit.h). A supplier
 * that answered with an error still fails the request, and so does a
 * deadline that no supplier met. */
#ifndef TRV_HOTEL_DEADLINE_H
#define TRV_HOTEL_DEADLINE_H

#include "core/api.h"
#include "core/upstream.h"

/* When a search starting now stops waiting. */
apr_time_t trv_hotel_deadline(const trv_env *env);

/* One supplier's part of a fan-out, as it ended. */
typedef struct trv_hotel_part {
    const char *supplier;
    trv_up_status st;
    const char *message;
} trv_hotel_part;

/* Sorts the parts: 1 to go on with the parts that are TRV_UP_OK, with
 * *unanswered the names of those that did not answer in time (a new JSON
 * array, NULL when every part answered); 0 when resp holds the failure
 * (an error, or no part answering in time, or a late part while
 * all_needed). */
int trv_hotel_parts_settle(trv_req *req, trv_resp *resp, const trv_hotel_part *parts, int n,
                           int all_needed, json_t **unanswered);

#endif
