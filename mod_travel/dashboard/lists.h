/* The dashboard's lists: flight and hotel bookings, watches and events.
 * Each is a section of the page (its latest few) and a page of its own
 * (?list=<id>): a search box, filters by status (or type), supplier where
 * it has one and creation dates, and pages of TRV_DASH_LIST_PAGE (`limit`
 * 1..100 otherwise) with Previous / Next. The form is a GET of the page: a
 * list's address can be bookmarked and shared, and nothing changes. */
#ifndef TRV_DASHBOARD_LISTS_H
#define TRV_DASHBOARD_LISTS_H

#include "context.h"
#include "html.h"

#include <apr_tables.h>

#define TRV_DASH_LIST_PAGE 25

/* What a list shows: every field checked by lists.c before it gets here
 * (NULL: no filter). */
typedef struct trv_dash_filter {
    const char *q;        /* search text: the list says which fields */
    const char *status;   /* one of the list's statuses (or types) */
    const char *supplier;
    const char *from, *to; /* YYYY-MM-DD, inclusive, UTC */
    long offset, limit;
} trv_dash_filter;

typedef struct trv_dash_list {
    const char *id;      /* the section's HTML id and ?list= value: "flight-bookings" */
    const char *title;   /* "Flight bookings" */
    const char *searches; /* what its search box searches */
    const char *status_label; /* "Status", "Type" */
    const char *item;    /* one of them, with its article: "a booking" */
    /* The values its status filter takes (NULL-terminated). */
    const char *const *(*statuses)(const trv_dash_ctx *x);
    int suppliers;       /* it has a supplier filter */
    long shown;          /* how many the dashboard's page shows */
    /* Writes the table of the rows f selects, *total every match;
     * APR_EGENERAL when the database failed. */
    apr_status_t (*render)(const trv_dash_ctx *x, trv_dbc *c, trv_html *h,
                           const trv_dash_filter *f, long *total);
} trv_dash_list;

/* For the renderers: runs a list's statement (its rows carry a "total"
 * column, count(*) OVER ()). APR_EGENERAL on a database failure;
 * APR_ENOENT when nothing matched (the page then says `empty`); else
 * APR_SUCCESS with *rows, *total and the table opened with the header
 * cells `head`, to be closed by trv_dash_table_end. */
apr_status_t trv_dash_list_rows(const trv_dash_ctx *x, trv_dbc *c, trv_html *h,
                                const trv_stmt *st, int nargs, const char *const *args,
                                const char *empty, const char *head, trv_rows **rows,
                                long *total);
void trv_dash_table_end(trv_html *h);
/* What an event is about: a booking (linked to its page), a watch, or "-". */
void trv_dash_subject(trv_html *h, const char *subject);

/* Ends at a NULL id. */
extern const trv_dash_list trv_dash_lists[];

/* The list page the query asks for, or NULL when it asks for none; *status
 * is 200, 404 (no such list), 422 (a filter it cannot read; the form says
 * which) or 503. */
const char *trv_dash_list_page(const trv_dash_ctx *x, apr_table_t *query, int *status);

#endif
