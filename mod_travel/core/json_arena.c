#include "json_arena.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* A block: what an arena bumps through. A piece larger than BIG is
 * malloc'd (a hashtable's bucket array of a large object, a long string),
 * so a block wastes at most BIG at its end. */
#define BLOCK ((size_t)256 * 1024)
#define BIG (BLOCK / 8)
/* The region of one process: virtual address space, touched only as
 * blocks are used (MAP_NORESERVE); past it arenas fall back to malloc. */
#define REGION_BLOCKS 1024
#define ALIGN 16

struct trv_json_arena {
    char *next, *end;                /* the current block's free part */
    void *blocks;                    /* used blocks, linked by their first word */
    trv_json_arena *children;        /* call threads' arenas (trv_fanout) */
    trv_json_arena *sibling;
};

static char *region, *region_end;
static size_t untouched;             /* blocks of the region never handed out */
static void *free_blocks;            /* handed back, linked by their first word */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static __thread trv_json_arena *current;

static int in_region(const void *p)
{
    return (const char *)p >= region && (const char *)p < region_end;
}

static void *block_take(void)
{
    void *b = NULL;
    pthread_mutex_lock(&lock);
    if (free_blocks) {
        b = free_blocks;
        free_blocks = *(void **)b;
    }
    else if (untouched < REGION_BLOCKS) {
        b = region + untouched++ * BLOCK;
    }
    pthread_mutex_unlock(&lock);
    return b;
}

static void *arena_malloc(size_t n)
{
    trv_json_arena *a = current;
    size_t need = (n + ALIGN - 1) & ~(size_t)(ALIGN - 1);
    char *b;
    if (!a || need > BIG || need == 0) {
        return malloc(n);
    }
    if ((size_t)(a->end - a->next) < need) {
        if (!(b = block_take())) {
            return malloc(n);
        }
        *(void **)b = a->blocks;
        a->blocks = b;
        a->next = b + ALIGN;         /* past the link */
        a->end = b + BLOCK;
    }
    b = a->next;
    a->next += need;
    return b;
}

/* An arena's pieces are freed with their arena (release), not one by one. */
static void arena_free(void *p)
{
    if (p && !in_region(p)) {
        free(p);
    }
}

void trv_json_free(void *p)
{
    arena_free(p);
}

int trv_json_arena_install(void)
{
    void *r;
    if (region) {
        return 0;
    }
    r = mmap(NULL, BLOCK * REGION_BLOCKS, PROT_READ | PROT_WRITE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (r == MAP_FAILED) {
        return -1;
    }
    region = r;
    region_end = region + BLOCK * REGION_BLOCKS;
    json_set_alloc_funcs(arena_malloc, arena_free);
    return 0;
}

trv_json_arena *trv_json_arena_current(void)
{
    return current;
}

trv_json_arena *trv_json_arena_enter(trv_json_arena *a)
{
    trv_json_arena *prev = current;
    current = a;
    return prev;
}

/* Every block of a and its children back to the region; the structs freed. */
static void release(trv_json_arena *a)
{
    while (a) {
        trv_json_arena *next = a->sibling;
        void *b = a->blocks, *last = NULL;
        release(a->children);
        if (b) {
            for (last = b; *(void **)last; last = *(void **)last) {
            }
            pthread_mutex_lock(&lock);
            *(void **)last = free_blocks;
            free_blocks = b;
            pthread_mutex_unlock(&lock);
        }
        free(a);
        a = next;
    }
}

static apr_status_t release_cleanup(void *v)
{
    trv_json_arena *a = v;
    /* A thread still in this arena (it cannot be: the handler left it)
     * would bump into released blocks: leave it first. */
    if (current == a) {
        current = NULL;
    }
    release(a);
    return APR_SUCCESS;
}

trv_json_arena *trv_json_arena_open(apr_pool_t *pool)
{
    trv_json_arena *a;
    if (!region || !(a = calloc(1, sizeof(*a)))) {
        return current;
    }
    apr_pool_cleanup_register(pool, a, release_cleanup, apr_pool_cleanup_null);
    return trv_json_arena_enter(a);
}

trv_json_arena *trv_json_arena_child(trv_json_arena *parent)
{
    trv_json_arena *a;
    if (!parent || !(a = calloc(1, sizeof(*a)))) {
        return NULL;
    }
    a->sibling = parent->children;
    parent->children = a;
    return a;
}

json_t *trv_json_arena_detach(const json_t *v)
{
    trv_json_arena *prev = trv_json_arena_enter(NULL);
    json_t *copy = json_deep_copy(v);
    trv_json_arena_enter(prev);
    return copy;
}
