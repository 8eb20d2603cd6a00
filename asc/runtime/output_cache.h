/* output_cache.h: the allocator of asc kernels' NumPy outputs (output_cache.c), as launch.c calls it: the four
 * functions of a PyDataMem_Handler, the limit of the kept blocks, and the counters. */
#ifndef ASC_OUTPUT_CACHE_H
#define ASC_OUTPUT_CACHE_H

#include <stddef.h>

#define ASC_OC_API __attribute__((visibility("hidden")))

typedef struct {
    size_t cached_blocks, cached_bytes, live_blocks, limit;
    long long reuses, maps;
} AscOcStats;

ASC_OC_API void *asc_oc_malloc(void *ctx, size_t n);
ASC_OC_API void *asc_oc_calloc(void *ctx, size_t k, size_t n);
ASC_OC_API void *asc_oc_realloc(void *ctx, void *p, size_t n);
ASC_OC_API void asc_oc_free(void *ctx, void *p, size_t n);
ASC_OC_API void asc_oc_set_limit(size_t limit);     /* the most bytes of freed blocks kept for reuse */
ASC_OC_API void asc_oc_stats(AscOcStats *st);

#endif
