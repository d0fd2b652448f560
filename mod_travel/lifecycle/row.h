/* The columns every domain's booking row has (flight_bookings,
 * hotel_bookings): who it belongs to, its key, its amount, where the
 * lifecycle stands (the book step's owner and attempt, the cancel attempt)
 * and its revision. A domain's booking struct starts with TRV_LIFECYCLE_ROW,
 * so its code reads b->id as before and the shared code reads b->row; its
 * SELECT lists TRV_LIFECYCLE_ROW_COLS and its row decoder calls
 * trv_lifecycle_row_read, then reads what is its own (status and phase
 * are the domain's enums: it decodes them). */
#ifndef TRV_LIFECYCLE_ROW_H
#define TRV_LIFECYCLE_ROW_H

#include "core/db.h"
#include "core/list_page.h"
#include "core/transit.h"

#include <apr_tables.h>
#include <jansson.h>
#include <stddef.h>

/* One list for the named struct and the anonymous one, so both lay out alike. */
#define TRV_LIFECYCLE_ROW_FIELDS \
    const char *id, *org_id, *user_id, *supplier; \
    const char *idempotency_key, *request_hash, *offer_reference; \
    const char *currency, *total_amount; /* exact decimal text, major units */ \
    int past_expiry;           /* READY_FOR_COMPLETE and its expiry has passed */ \
    int use_payment_sdk; \
    const char *sdk_token; \
    json_t *contact, *cancellation_policy, *supplier_data; /* or NULL */ \
    json_t *failure;           /* {code, description} or NULL */ \
    const char *phase_owner; \
    int phase_due;             /* phase_deadline has passed */ \
    int book_attempt; \
    const char *payment_instrument_id; \
    int cancel_attempt; \
    const char *confirmed_at, *canceled_at, *created_at, *updated_at; \
    const char *revision;      /* raised by every change to the booking or its parts */ \
    apr_array_header_t *payments; /* trv_payment_record, oldest first; NULL until loaded */ \
    const char *list_doc;      /* list: its stored rendering for this revision, if any */

typedef struct trv_lifecycle_row {
    TRV_LIFECYCLE_ROW_FIELDS
} trv_lifecycle_row;

/* The first member of a domain's booking struct: the row's fields by name
 * (b->id) and as one (b->row). */
#define TRV_LIFECYCLE_ROW \
    union { \
        trv_lifecycle_row row; \
        struct { \
            TRV_LIFECYCLE_ROW_FIELDS \
        }; \
    }

/* The SELECT list of the shared columns (status and book_phase included)
 * from a booking aliased b whose READY_FOR_COMPLETE expires at column
 * `expires`. */
#define TRV_LIFECYCLE_ROW_COLS(expires) \
    "b.id, b.org_id, b.user_id, b.supplier, b.status, b.idempotency_key, b.request_hash, " \
    "b.offer_reference, b.currency, b.total_amount::text AS total_amount, " \
    "(b.status = 'READY_FOR_COMPLETE' AND b." expires " <= trv_now()) AS past_expiry, " \
    "b.use_payment_sdk, b.sdk_token, b.contact::text AS contact, " \
    "b.cancellation_policy::text AS cancellation_policy, " \
    "b.supplier_data::text AS supplier_data, b.failure::text AS failure, " \
    "b.book_phase, b.phase_owner, (b.phase_deadline <= clock_timestamp()) AS phase_due, " \
    "b.book_attempt, b.payment_instrument_id, b.cancel_attempt, " \
    "trv_ts(b.confirmed_at) AS confirmed_at, trv_ts(b.canceled_at) AS canceled_at, " \
    "trv_ts(b.created_at) AS created_at, trv_ts(b.updated_at) AS updated_at, b.revision"

/* What every domain's new booking row is inserted with (its prebook
 * row's first member is TRV_LIFECYCLE_ROW_NEW: r.id as before, r.head as
 * one; lifecycle/prebook.h fills it). */
#define TRV_LIFECYCLE_ROW_NEW_FIELDS \
    const char *id, *org_id, *user_id, *supplier, *idempotency_key, *request_hash; \
    const char *offer_reference; \
    int use_payment_sdk;

typedef struct trv_lifecycle_row_new {
    TRV_LIFECYCLE_ROW_NEW_FIELDS
} trv_lifecycle_row_new;

#define TRV_LIFECYCLE_ROW_NEW \
    union { \
        trv_lifecycle_row_new head; \
        struct { \
            TRV_LIFECYCLE_ROW_NEW_FIELDS \
        }; \
    }

/* The head of a domain's INSERT of a new booking: its columns and values
 * (TRV_LIFECYCLE_ROW_NEW_FIELDS' placeholders, in that order; status
 * PREBOOK_IN_PROGRESS), followed by the domain's own. */
#define TRV_LIFECYCLE_ROW_NEW_COLS \
    "id, org_id, user_id, supplier, idempotency_key, request_hash, offer_reference, " \
    "use_payment_sdk, status"
#define TRV_LIFECYCLE_ROW_NEW_VALUES \
    "%s, %s, %s, %s, %s, %s, %s, %s::boolean, 'PREBOOK_IN_PROGRESS'"

/* Runs st, an INSERT of a new booking whose placeholders are head's
 * (TRV_LIFECYCLE_ROW_NEW_VALUES), then own's, returning a row when it
 * inserted one: *inserted 1 then, 0 when a conflict left it out. */
apr_status_t trv_lifecycle_row_insert(trv_dbc *c, apr_pool_t *p, const trv_stmt *st,
                                      const trv_lifecycle_row_new *head, int *inserted,
                                      int nown, const char *const *own);

/* Row i's shared columns into row (its payments and list_doc untouched). */
void trv_lifecycle_row_read(apr_pool_t *p, const trv_rows *r, int i, trv_lifecycle_row *row);

/* A column of a domain's own (beyond the shared ones): its name in the
 * SELECT list, which is its field's name, how it is read (text, JSON or
 * boolean) and where its field is. A table of them ends with a NULL name. */
typedef enum {
    TRV_LIFECYCLE_ROW_TEXT,
    TRV_LIFECYCLE_ROW_JSON,
    TRV_LIFECYCLE_ROW_BOOL
} trv_lifecycle_row_kind;
typedef struct trv_lifecycle_row_col {
    const char *name;
    trv_lifecycle_row_kind kind;
    size_t off;
} trv_lifecycle_row_col;
#define TRV_LIFECYCLE_ROW_COL(type, kind, field) \
    {#field, TRV_LIFECYCLE_ROW_##kind, offsetof(type, field)}

/* What a domain's booking row is, for trv_lifecycle_row_at: its struct
 * (of type `type`, TRV_LIFECYCLE_ROW first), its status and book_phase
 * fields decoded by its status and phase tables (core/transit.h; the
 * columns' CHECK constraints admit only the tables' texts) and its own
 * columns. The status and phase enums must be int-sized: the domain's store
 * asserts it (TRV_LIFECYCLE_ROW_ENUMS_ASSERT). */
typedef struct trv_lifecycle_row_shape {
    size_t size, row_off, status_off, phase_off;
    const trv_transit_table *statuses, *phases;
    const trv_lifecycle_row_col *cols;
} trv_lifecycle_row_shape;
#define TRV_LIFECYCLE_ROW_SHAPE(type, statuses, phases, cols) \
    {sizeof(type), offsetof(type, row), offsetof(type, status), offsetof(type, book_phase), \
     statuses, phases, cols}
#define TRV_LIFECYCLE_ROW_ENUMS_ASSERT(type) \
    _Static_assert(sizeof(((type *)0)->status) == sizeof(int) && \
                   sizeof(((type *)0)->book_phase) == sizeof(int), \
                   #type "'s status and book_phase are int-sized")

/* Row i as a new (zeroed) booking of the shape: the shared columns, status,
 * book_phase and the domain's own. */
void *trv_lifecycle_row_at(apr_pool_t *p, const trv_rows *r, int i,
                           const trv_lifecycle_row_shape *s);

/* Where a domain's booking of type `type` keeps what a listed booking
 * with a stored rendering needs (core/list_page.h). */
#define TRV_LIFECYCLE_ROW_STUB(type) \
    {sizeof(type), offsetof(type, row) + offsetof(trv_lifecycle_row, id), \
     offsetof(type, row) + offsetof(trv_lifecycle_row, revision), \
     offsetof(type, row) + offsetof(trv_lifecycle_row, list_doc)}

#endif
