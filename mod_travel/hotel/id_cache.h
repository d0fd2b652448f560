/* A process's memory of the htl_ ids of hotels whose every supplier id is
 * mapped already, keyed by those supplier ids (a group's members as
 * hotel_store.c sends them to hotel_map_known: a JSON array of
 * {"supplier","id"}).
 *
 * Why it is safe: a supplier id's row in hotel_supplier_ids is only ever
 * inserted (ON CONFLICT DO NOTHING), never changed or removed, and a
 * hotel's created_at never changes, so the id hotel_map_known answers for
 * a group all of whose members are mapped (the oldest of their hotels) is
 * the same forever, in every process and node. Only such answers are
 * kept; a group with a member not yet mapped is always asked of
 * PostgreSQL. Why: the lookup was two thirds of PostgreSQL's CPU in a hotel
 * search (docs/performance.md, "The fourteenth pass").
 *
 * The cache has a fixed number of slots, each holding one group (the slot
 * its key hashes to): a new group replaces the one in its slot. Shared by
 * the threads of the process; every call is NULL-safe (no cache). */
#ifndef TRV_HOTEL_ID_CACHE_H
#define TRV_HOTEL_ID_CACHE_H

#include <apr_pools.h>

typedef struct trv_hotel_id_cache trv_hotel_id_cache;

/* A cache of `slots` groups (rounded up to a power of two), freed with p;
 * NULL when slots < 1 or its lock cannot be made. */
trv_hotel_id_cache *trv_hotel_id_cache_create(apr_pool_t *p, int slots);

/* The htl_ id kept for the members' text key[0..len), copied into p, or
 * NULL. */
const char *trv_hotel_id_cache_get(trv_hotel_id_cache *c, apr_pool_t *p, const char *key,
                                   apr_size_t len);

/* Keeps id for key[0..len) (both copied). */
void trv_hotel_id_cache_put(trv_hotel_id_cache *c, const char *key, apr_size_t len,
                            const char *id);

#endif
