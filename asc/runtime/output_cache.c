/* output_cache.c: the memory of asc kernels' NumPy outputs (the allocator launch.c hands NumPy as its
 * PyDataMem_Handler). Plain C, no Python: compiled with launch.c into the _asc_launch module.
 *
 * A freshly mapped output page-faults on first touch (about a microsecond per 4 KiB page); a kernel that returns a
 * new 64 MB array every call would spend more time faulting than computing. Large outputs therefore come from
 * blocks that are kept when NumPy frees them and handed out again for the next output of the same size: already
 * mapped, on transparent huge pages where the OS allows. The cache is bounded (asc_oc_set_limit); a block is in it
 * only after NumPy freed it, so it is never handed out twice. Small blocks use malloc.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "output_cache.h"

#define BIG (1u << 20)          /* outputs of at least 1 MiB use the cache */
#define HUGE_PAGE (2u << 20)
#define MAXCACHED 64

typedef struct { void *ptr; size_t size; } Block;
static Block cached[MAXCACHED];
static int ncached = 0;
static size_t cached_bytes = 0, cache_limit = (size_t)1 << 30;
static Block *live = NULL;       /* big blocks handed out, by address */
static size_t nlive = 0, cap_live = 0;
static long long stat_hits = 0, stat_maps = 0;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static size_t round_big(size_t n) { return (n + HUGE_PAGE - 1) & ~(size_t)(HUGE_PAGE - 1); }

static void *map_block(size_t size) {
    /* over-map by one huge page, then trim, so that the block is 2 MiB aligned (huge-page eligible) */
    size_t span = size + HUGE_PAGE;
    char *p = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return NULL;
    uintptr_t a = ((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
    if (a > (uintptr_t)p) munmap(p, a - (uintptr_t)p);
    char *end = p + span;
    if ((char *)a + size < end) munmap((char *)a + size, (size_t)(end - ((char *)a + size)));
#ifdef MADV_HUGEPAGE
    madvise((void *)a, size, MADV_HUGEPAGE);
#endif
    stat_maps++;
    return (void *)a;
}

static int live_add(void *p, size_t size) {
    if (nlive == cap_live) {
        size_t cap = cap_live ? 2 * cap_live : 64;
        Block *n = realloc(live, cap * sizeof(Block));
        if (!n) return -1;
        live = n; cap_live = cap;
    }
    live[nlive].ptr = p; live[nlive].size = size; nlive++;
    return 0;
}

static size_t live_remove(void *p) {  /* the block's size, or 0 when p is not a big block */
    for (size_t i = nlive; i-- > 0;) {
        if (live[i].ptr == p) { size_t s = live[i].size; live[i] = live[--nlive]; return s; }
    }
    return 0;
}

static void *big_alloc(size_t n, int zero) {
    size_t size = round_big(n);
    void *p = NULL;
    pthread_mutex_lock(&lock);
    for (int i = ncached - 1; i >= 0; --i) {           /* the most recently freed block of this size */
        if (cached[i].size == size) {
            p = cached[i].ptr;
            cached[i] = cached[--ncached];
            cached_bytes -= size;
            stat_hits++;
            break;
        }
    }
    int fresh = p == NULL;
    if (fresh) p = map_block(size);
    if (p && live_add(p, size) < 0) { munmap(p, size); p = NULL; }
    pthread_mutex_unlock(&lock);
    if (p && zero && !fresh) memset(p, 0, n);
    return p;
}

static void big_free(void *p, size_t size) {
    pthread_mutex_lock(&lock);
    if (size <= cache_limit) {
        while (ncached && (ncached == MAXCACHED || cached_bytes + size > cache_limit)) {  /* drop the oldest */
            munmap(cached[0].ptr, cached[0].size);
            cached_bytes -= cached[0].size;
            memmove(&cached[0], &cached[1], sizeof(Block) * (size_t)(--ncached));
        }
    }
    if (size <= cache_limit && cached_bytes + size <= cache_limit && ncached < MAXCACHED) {
        cached[ncached].ptr = p; cached[ncached].size = size; ncached++;
        cached_bytes += size;
        p = NULL;
    }
    pthread_mutex_unlock(&lock);
    if (p) munmap(p, size);
}

ASC_OC_API void *asc_oc_malloc(void *ctx, size_t n) { return n >= BIG ? big_alloc(n, 0) : malloc(n ? n : 1); }
ASC_OC_API void *asc_oc_calloc(void *ctx, size_t k, size_t n) {
    size_t total = k * n;
    if (n && total / n != k) return NULL;
    return total >= BIG ? big_alloc(total, 1) : calloc(k ? k : 1, n ? n : 1);
}
ASC_OC_API void asc_oc_free(void *ctx, void *p, size_t n) {
    if (!p) return;
    pthread_mutex_lock(&lock);
    size_t size = live_remove(p);
    pthread_mutex_unlock(&lock);
    if (size) big_free(p, size);
    else free(p);
}
ASC_OC_API void *asc_oc_realloc(void *ctx, void *p, size_t n) {
    if (!p) return asc_oc_malloc(ctx, n);
    pthread_mutex_lock(&lock);
    size_t old = 0;
    for (size_t i = 0; i < nlive; ++i) if (live[i].ptr == p) { old = live[i].size; break; }
    pthread_mutex_unlock(&lock);
    if (!old && n < BIG) return realloc(p, n ? n : 1);
    void *q = asc_oc_malloc(ctx, n);
    if (!q) return NULL;
    if (old) memcpy(q, p, old < n ? old : n);
    else memcpy(q, p, n);   /* a small block grows into a big one: its size is at most n */
    asc_oc_free(ctx, p, 0);
    return q;
}


ASC_OC_API void asc_oc_set_limit(size_t limit) {
    pthread_mutex_lock(&lock);
    cache_limit = limit;
    while (ncached && cached_bytes > cache_limit) {
        munmap(cached[0].ptr, cached[0].size);
        cached_bytes -= cached[0].size;
        memmove(&cached[0], &cached[1], sizeof(Block) * (size_t)(--ncached));
    }
    pthread_mutex_unlock(&lock);
}

ASC_OC_API void asc_oc_stats(AscOcStats *st) {
    pthread_mutex_lock(&lock);
    st->cached_blocks = (size_t)ncached;
    st->cached_bytes = cached_bytes;
    st->live_blocks = nlive;
    st->reuses = stat_hits;
    st->maps = stat_maps;
    st->limit = cache_limit;
    pthread_mutex_unlock(&lock);
}
