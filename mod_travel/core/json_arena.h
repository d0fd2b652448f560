/* Jansson's memory for one request drawn from an arena instead of malloc.
 *
 * Why: the profile of a hotel search (docs/performance.md) is Jansson and
 * malloc/free: every supplier answer becomes a tree of one malloc per
 * value, key and hashtable, freed value by value at the end. An arena
 * hands out those pieces by moving a pointer and frees them all at once.
 *
 * How it stays safe in a process where other code uses Jansson with the
 * default allocator (mod_md, the sandbox, background jobs):
 *  - json_set_alloc_funcs is process-global, so the functions installed
 *    (trv_json_arena_install, in each httpd child before its threads start)
 *    behave as malloc/free unless the calling thread has an arena open;
 *  - arena blocks come from one region reserved per process, and free()
 *    recognises an arena piece by its address alone (a no-op for it, libc
 *    free for anything else), whichever thread frees it and whenever;
 *  - an arena is opened only around a request handler (trv_json_arena_open)
 *    and its blocks go back to the region when the request's pool is
 *    destroyed, after every tree bound to that pool and its subpools;
 *  - trv_fanout gives each call thread an arena of its own, owned by the
 *    request's (threads never share a bump pointer);
 *  - what outlives the request is copied out of the arena first
 *    (trv_json_arena_detach: the content cache), and text Jansson returns
 *    (json_dumps) is freed with trv_json_free, not libc free;
 *  - a piece too big for a block, or a region used up, is malloc'd.
 * Not for code that keeps a tree past its request in any other way. */
#ifndef TRV_CORE_JSON_ARENA_H
#define TRV_CORE_JSON_ARENA_H

#include <apr_pools.h>
#include <jansson.h>

typedef struct trv_json_arena trv_json_arena;

/* Reserves the process's region and installs the allocator (once; later
 * calls do nothing). Call before the process starts threads. Returns 0, or
 * -1 when the region cannot be reserved (Jansson then keeps malloc). */
int trv_json_arena_install(void);

/* The calling thread's open arena, or NULL. */
trv_json_arena *trv_json_arena_current(void);

/* Opens an arena on this thread, owned by pool (its blocks go back when
 * pool is destroyed: open it before binding anything to pool that the
 * arena's trees may join), and returns the thread's previous arena, to be
 * given back to trv_json_arena_enter when the handler is done. Without the
 * allocator installed it opens nothing and returns the current one. */
trv_json_arena *trv_json_arena_open(apr_pool_t *pool);

/* For trv_fanout: an arena for a call thread, owned by parent (released
 * with it). Made on parent's thread before the call thread starts. */
trv_json_arena *trv_json_arena_child(trv_json_arena *parent);

/* Makes a the calling thread's arena (NULL: none); returns the previous. */
trv_json_arena *trv_json_arena_enter(trv_json_arena *a);

/* A copy of v made with malloc, for a tree kept past the request (a new
 * reference; v itself is untouched). */
json_t *trv_json_arena_detach(const json_t *v);

/* Frees what Jansson returned (json_dumps' text), arena or not. */
void trv_json_free(void *p);

#endif
