/* The guarded moves of a booking that every domain's store makes the same
 * way over its own table: prebook failed or abandoned, expiry, book
 * started, its phase moved, book failed, an order read. Each is one
 * prepared UPDATE (or DELETE) guarded by the status it moves from
 * (... WHERE status = <from> RETURNING), so of two racing requests or jobs
 * one gets the row back and the other gets nothing (*out NULL) and
 * re-reads. The domain gives its statements (lifecycle/moves_sql.h), how
 * a row becomes its booking and how a booking is made whole (payments,
 * rooms); its store (flight/booking_store.c, hotel/booking_store.c) keeps
 * its own typed functions over these and the moves that are its own
 * (confirm, revert, cancel). */
#ifndef TRV_LIFECYCLE_MOVES_H
#define TRV_LIFECYCLE_MOVES_H

#include "core/db.h"
#include "core/log.h"
#include "core/transit.h"

#include <apr_time.h>

typedef struct trv_lifecycle_moves_sql {
    trv_stmt book_start, phase, book_failed, prebook_failed, prebook_abandon, expire_one,
        synced;
} trv_lifecycle_moves_sql;

typedef struct trv_lifecycle_moves {
    const trv_lifecycle_moves_sql *sql;
    const trv_transit_table *phases; /* the domain's book phases (state.h) */
    int user_scope;                  /* its scope has the user beside the organization */
    int nrefs;                       /* the references a phase move sets (at most 2) */
    /* Row i as the domain's booking. */
    void *(*row)(apr_pool_t *p, const trv_rows *r, int i);
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
 * of them: the supplier's references, each set when not NULL). A move the
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
/* Records that the supplier was read (synced_at). */
apr_status_t trv_lifecycle_moves_synced(const trv_lifecycle_moves *m, trv_dbc *c,
                                        apr_pool_t *p, const char *id);

#endif
