/* The guarded moves of a booking that every domain's store makes the same
 * way over its own table: prebook failed or abandoned, expiry, book
 * started, its phase moved, book failed, an order read. Each is one
 * prepared UPDATE (or DELETE) guarded by the status it moves from
 * (... WHERE status = <from> RETURNING), so of two racing requests or jobs
 * one gets the row back and the other gets nothing (*out NULL) and
 * re-reads. The domain gives its statements (lifecycle/moves_sql.h), how
 * a row becomes its booking and how a booking is made whole (payments,
 * rooms); its store (flight/booking_store.c, hotel/booking_store.c) gets
 * its typed functions over these from TRV_LIFECYCLE_MOVES_DECLARE/_DEFINE
 * (below) and writes only the moves that are its own (prebook done,
 * confirm, revert, cancel). */
#ifndef TRV_LIFECYCLE_MOVES_H
#define TRV_LIFECYCLE_MOVES_H

#include "core/db.h"
#include "core/log.h"
#include "core/transit.h"
#include "lifecycle/row.h"

#include <apr_time.h>

typedef struct trv_lifecycle_moves_sql {
    trv_stmt book_start, phase, book_failed, prebook_failed, prebook_abandon, expire_one,
        synced, expire_offer, get, get_any, by_key;
} trv_lifecycle_moves_sql;

typedef struct trv_lifecycle_moves {
    const trv_lifecycle_moves_sql *sql;
    const trv_transit_table *phases; /* the domain's book phases (state.h) */
    int user_scope;                  /* its scope has the user beside the organization */
    int nrefs;                       /* the references a phase move sets (at most 2) */
    int failed_whole;                /* book_failed answers the booking whole */
    const trv_lifecycle_row_shape *row; /* a row as the domain's booking */
    /* Makes a booking just read whole (its payments, rooms...). */
    apr_status_t (*whole)(trv_dbc *c, apr_pool_t *p, void *b);
} trv_lifecycle_moves;

/* Runs st, a statement returning booking rows: *out the first (made whole
 * when whole), or NULL. */
apr_status_t trv_lifecycle_moves_one(const trv_lifecycle_moves *m, trv_dbc *c, apr_pool_t *p,
                                     const trv_stmt *st, int whole, void **out, int nargs,
                                     const char *const *args);

/* PREBOOK_IN_PROGRESS -> FAILED with failure_json. */
apr_status_t trv_lifecycle_moves_prebook_failed(const trv_lifecycle_moves *m, trv_dbc *c,
                                                apr_pool_t *p, const char *id,
                                                const char *failure_json, int whole,
                                                void **out);
/* Removes a PREBOOK_IN_PROGRESS booking (its key may be used again). */
apr_status_t trv_lifecycle_moves_prebook_abandon(const trv_lifecycle_moves *m, trv_dbc *c,
                                                 apr_pool_t *p, const char *id, int *deleted);
/* READY_FOR_COMPLETE past its expiry -> EXPIRED. */
apr_status_t trv_lifecycle_moves_expire_one(const trv_lifecycle_moves *m, trv_dbc *c,
                                            apr_pool_t *p, const char *id, int whole,
                                            void **out);
/* READY_FOR_COMPLETE (in time) -> COMPLETE_IN_PROGRESS in phase, owned by
 * owner until deadline from now; book_attempt + 1. user_id: when the
 * domain's scope has it. */
apr_status_t trv_lifecycle_moves_book_start(const trv_lifecycle_moves *m, trv_dbc *c,
                                            apr_pool_t *p, const char *org_id,
                                            const char *user_id, const char *id, int phase,
                                            const char *owner, apr_interval_time_t deadline,
                                            const char *instrument, int whole, void **out);
/* Phase from held by owner_was -> phase to held by owner, refs (m->nrefs
 * of them: the supplier's references, each set when not NULL; refs NULL:
 * none set). A move the
 * phase table does not have is refused and logged (trv_transit_check):
 * *out NULL, as when the booking moved on meanwhile. */
apr_status_t trv_lifecycle_moves_phase(const trv_lifecycle_moves *m, trv_dbc *c, apr_pool_t *p,
                                       const trv_log *log, const char *request_id,
                                       const char *id, int from, const char *owner_was,
                                       int to, const char *owner,
                                       apr_interval_time_t deadline,
                                       const char *const *refs, int whole, void **out);
/* COMPLETE_IN_PROGRESS -> FAILED with failure_json. */
apr_status_t trv_lifecycle_moves_book_failed(const trv_lifecycle_moves *m, trv_dbc *c,
                                             apr_pool_t *p, const char *id,
                                             const char *failure_json, int whole, void **out);
/* Every booking of the supplier's offer left READY_FOR_COMPLETE past its
 * expiry -> EXPIRED (so that none holds an offer the supplier sells once). */
apr_status_t trv_lifecycle_moves_expire_offer(const trv_lifecycle_moves *m, trv_dbc *c,
                                              apr_pool_t *p, const char *supplier,
                                              const char *offer_reference);
/* The booking by id in the request's scope (user_id: when the domain's
 * scope has it), by id alone (background jobs), or by the prebook key in
 * the scope; *out NULL when there is none. */
apr_status_t trv_lifecycle_moves_get(const trv_lifecycle_moves *m, trv_dbc *c, apr_pool_t *p,
                                     const char *org_id, const char *user_id, const char *id,
                                     int whole, void **out);
apr_status_t trv_lifecycle_moves_get_any(const trv_lifecycle_moves *m, trv_dbc *c,
                                         apr_pool_t *p, const char *id, int whole, void **out);
apr_status_t trv_lifecycle_moves_by_key(const trv_lifecycle_moves *m, trv_dbc *c, apr_pool_t *p,
                                        const char *org_id, const char *user_id,
                                        const char *key, int whole, void **out);
/* Records that the supplier was read (synced_at). */
apr_status_t trv_lifecycle_moves_synced(const trv_lifecycle_moves *m, trv_dbc *c,
                                        apr_pool_t *p, const char *id);

/* ---- a domain store's typed functions over its moves ----
 *
 * The moves above with the domain's booking type and phase enum, as
 * <pfx>_prebook_failed, _prebook_abandon, _expire_one, _book_start, _phase,
 * _book_failed, _synced, _get, _get_any and _by_key (what each does: the
 * shared function of that name), over the store's static
 * trv_lifecycle_moves m. _book_start, _get and _by_key take
 * the request's scope as the domain's requests have it: org_id, then
 * user_params (TRV_LIFECYCLE_SCOPE_USER where its scope has the user, else
 * nothing), handed on as user_arg (user_id, or NULL). The store's header
 * declares them (how: TRV_LIFECYCLE_DECLARED), its booking_store.c defines
 * them (TRV_LIFECYCLE_DEFINED): one list for both and for every domain, so
 * no domain writes them again. The booking comes back whole (payments,
 * rooms), but from book_failed where m.failed_whole is 0. The shared move
 * gives a void *; it is handed on as the domain's type. */
#define TRV_LIFECYCLE_MOVES_TYPED(pfx, type, phase_t, m, how, user_params, user_arg) \
    apr_status_t pfx##_prebook_failed(trv_dbc *c, apr_pool_t *p, const char *id, \
                                      const char *failure_json, type **out) \
    how(void *b; \
        apr_status_t rv = trv_lifecycle_moves_prebook_failed(&(m), c, p, id, failure_json, 1, \
                                                             &b); \
        *out = b; return rv;) \
    apr_status_t pfx##_prebook_abandon(trv_dbc *c, apr_pool_t *p, const char *id, \
                                       int *deleted) \
    how(return trv_lifecycle_moves_prebook_abandon(&(m), c, p, id, deleted);) \
    apr_status_t pfx##_expire_one(trv_dbc *c, apr_pool_t *p, const char *id, type **out) \
    how(void *b; apr_status_t rv = trv_lifecycle_moves_expire_one(&(m), c, p, id, 1, &b); \
        *out = b; return rv;) \
    apr_status_t pfx##_book_start(trv_dbc *c, apr_pool_t *p, const char *org_id user_params, \
                                  const char *id, phase_t phase, const char *owner, \
                                  apr_interval_time_t deadline, const char *instrument, \
                                  type **out) \
    how(void *b; \
        apr_status_t rv = trv_lifecycle_moves_book_start(&(m), c, p, org_id, user_arg, id, \
                                                         (int)phase, owner, deadline, \
                                                         instrument, 1, &b); \
        *out = b; return rv;) \
    apr_status_t pfx##_phase(trv_dbc *c, apr_pool_t *p, const trv_log *log, \
                             const char *request_id, const char *id, phase_t from, \
                             const char *owner_was, phase_t to, const char *owner, \
                             apr_interval_time_t deadline, const char *const *refs, \
                             type **out) \
    how(void *b; \
        apr_status_t rv = trv_lifecycle_moves_phase(&(m), c, p, log, request_id, id, (int)from, \
                                                    owner_was, (int)to, owner, deadline, refs, \
                                                    1, &b); \
        *out = b; return rv;) \
    apr_status_t pfx##_book_failed(trv_dbc *c, apr_pool_t *p, const char *id, \
                                   const char *failure_json, type **out) \
    how(void *b; \
        apr_status_t rv = trv_lifecycle_moves_book_failed(&(m), c, p, id, failure_json, \
                                                          (m).failed_whole, &b); \
        *out = b; return rv;) \
    apr_status_t pfx##_synced(trv_dbc *c, apr_pool_t *p, const char *id) \
    how(return trv_lifecycle_moves_synced(&(m), c, p, id);) \
    apr_status_t pfx##_get(trv_dbc *c, apr_pool_t *p, const char *org_id user_params, \
                           const char *id, type **out) \
    how(void *b; \
        apr_status_t rv = trv_lifecycle_moves_get(&(m), c, p, org_id, user_arg, id, 1, &b); \
        *out = b; return rv;) \
    apr_status_t pfx##_get_any(trv_dbc *c, apr_pool_t *p, const char *id, type **out) \
    how(void *b; apr_status_t rv = trv_lifecycle_moves_get_any(&(m), c, p, id, 1, &b); \
        *out = b; return rv;) \
    apr_status_t pfx##_by_key(trv_dbc *c, apr_pool_t *p, const char *org_id user_params, \
                              const char *key, type **out) \
    how(void *b; \
        apr_status_t rv = trv_lifecycle_moves_by_key(&(m), c, p, org_id, user_arg, key, 1, &b); \
        *out = b; return rv;)

/* The user_params of a domain whose scope has the user. */
#define TRV_LIFECYCLE_SCOPE_USER , const char *user_id

/* A store's static name(c, p, st, whole, out, nargs, args): runs st, a
 * statement returning its booking rows (trv_lifecycle_moves_one over m),
 * *out the first as type (made whole when whole) or NULL. */
#define TRV_LIFECYCLE_MOVES_ONE(name, type, m) \
    static apr_status_t name(trv_dbc *c, apr_pool_t *p, const trv_stmt *st, int whole, \
                             type **out, int nargs, const char *const *args) \
    { \
        void *b; \
        apr_status_t rv = trv_lifecycle_moves_one(&(m), c, p, st, whole, &b, nargs, args); \
        *out = b; \
        return rv; \
    }

/* The how of TRV_LIFECYCLE_MOVES_TYPED: a declaration, or a definition
 * with that body. */
#define TRV_LIFECYCLE_DECLARED(...) ;
#define TRV_LIFECYCLE_DEFINED(...) { __VA_ARGS__ }

#endif
