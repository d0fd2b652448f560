/* A process's memory of short texts under exact keys: a fixed number of
 * slots, each holding one entry (the slot its key hashes to), a new entry
 * replacing the one in its slot. Shared by the threads of the process;
 * every call is NULL-safe (no cache: nothing kept, nothing found).
 *
 * A flush forgets every entry at once, and an answer read from the
 * database before a flush is not kept after it: the caller takes a stamp
 * before it asks the database and puts with that stamp (as
 * account/key_cache.h does). A cache nothing flushes (hotel ids that
 * cannot change) puts with the stamp of the moment.
 *
 * Users: the htl_ ids of fully mapped hotel groups (hotel_store.c,
 * never flushed) and who sells each hotel (flushed on every change to
 * hotel_supplier_ids, account/key_listener.h). */
#ifndef TRV_CORE_TEXT_CACHE_H
#define TRV_CORE_TEXT_CACHE_H

#include <apr_pools.h>

typedef struct trv_text_cache trv_text_cache;
typedef apr_uint64_t trv_text_stamp;

/* A cache of `slots` entries (rounded up to a power of two), freed with p;
 * NULL when slots < 1 or its lock cannot be made. */
trv_text_cache *trv_text_cache_create(apr_pool_t *p, int slots);

/* The text kept under key[0..len), copied into p, or NULL. */
const char *trv_text_cache_get(trv_text_cache *c, apr_pool_t *p, const char *key,
                               apr_size_t len);

/* The cache's state now, for a put of what is read after it. */
trv_text_stamp trv_text_cache_stamp(trv_text_cache *c);

/* Keeps text under key[0..len) (both copied), unless a flush came after
 * stamp was taken. */
void trv_text_cache_put(trv_text_cache *c, const char *key, apr_size_t len, const char *text,
                        trv_text_stamp stamp);

/* Forgets every entry. */
void trv_text_cache_flush(trv_text_cache *c);

#endif
