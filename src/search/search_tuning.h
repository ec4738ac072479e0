/* The search's tuning constants in one place: the layouts' sizes, the AUTO
 * rule's threshold and the kernels' launch shapes. The values were set on
 * compute capability 9.0 (the only architecture measured so far); the
 * results file that justified a value is named beside it. Every value here
 * is read by the host as well as by a kernel (grids follow the queries a
 * thread takes), so none is keyed by architecture. */
#ifndef TESSERA_SEARCH_TUNING_H
#define TESSERA_SEARCH_TUNING_H

/* ---- layouts (search_layout.c) and AUTO (search_plan.c) ---- */

/* Bytes of one B+-tree node: two 32-byte sectors, read as four 16-byte
 * loads (search-batched-h200.md). */
#define TSI_SEARCH_NODE_BYTES 64
/* Shared-memory table of the top of a tree, in bytes (Eytzinger prefix or
 * B+-tree top levels): 32 KiB leaves room for several blocks per SM; not
 * tuned. */
#define TSI_SEARCH_TOP_BYTES 32768
/* The radix table: at most 2^TSI_SEARCH_RADIX_MAX_BITS buckets, about
 * TSI_SEARCH_RADIX_PER_KEY a key, so that about one bucket in five needs a
 * probe (search-batched-radix-h200.csv). */
#define TSI_SEARCH_RADIX_MAX_BITS 12
#define TSI_SEARCH_RADIX_PER_KEY 4
/* AUTO takes the radix table up to this many bytes of keys (4,096 4-byte
 * keys: at least a bucket a key; table and keys fit shared memory), for
 * sorted queries too (search-batched-radix-h200.csv,
 * search-batched-packs-20261201-h200.csv). */
#define TSI_SEARCH_RADIX_AUTO_BYTES 16384

/* ---- CPU backend (search_cpu.c) ---- */

/* Fewer queries than this are answered on the calling thread: waking a team
 * costs more than such a batch of binary searches, a scheduler slice when
 * the other cores are busy (bench/notes/python.md). */
#define TSI_SEARCH_CPU_PARALLEL_MIN 32768

/* ---- kernels (search_cuda_*.cu): threads a block, queries a thread ---- */

/* Binary search, the baseline: one query a thread (as thrust::lower_bound);
 * at most TSI_SEARCH_BINARY_MAX_GRID blocks, grid-stride beyond. */
#define TSI_SEARCH_BINARY_THREADS 256
#define TSI_SEARCH_BINARY_MAX_GRID (65535 * 64)
/* Eytzinger: each thread descends for several queries at once, so that
 * their independent loads overlap (search-batched-h200.md). */
#define TSI_SEARCH_EYTZINGER_THREADS 256
#define TSI_SEARCH_EYTZINGER_QUERIES_PER_THREAD 4
/* K-ary: four threads a query, each reading one 16-byte quarter of a node
 * (one L1 wavefront a node), and several queries a group in flight
 * (search-batched-h200.md). */
#define TSI_SEARCH_KARY_THREADS 256
#define TSI_SEARCH_KARY_LANES (TSI_SEARCH_NODE_BYTES / 16)
#define TSI_SEARCH_KARY_QUERIES_PER_GROUP 4
/* Merge-path (sorted queries): a block takes a tile of threads x items
 * queries and searches the keys its path crosses in a shared-memory window
 * of this many keys (larger windows are searched in global memory); not
 * tuned. */
#define TSI_SEARCH_MERGE_PATH_THREADS 256
#define TSI_SEARCH_MERGE_PATH_ITEMS 8
#define TSI_SEARCH_MERGE_PATH_WINDOW 4096
/* Radix: queries a thread carries, in 16-byte packs, and the shared memory
 * (the default 48 KiB a block gets without opting in) under which the keys
 * are copied beside the table (search-batched-radix-h200.csv,
 * search-batched-packs-20261201-h200.csv). */
#define TSI_SEARCH_RADIX_THREADS 256
#define TSI_SEARCH_RADIX_QUERIES_PER_THREAD 8
#define TSI_SEARCH_RADIX_SHARED_LIMIT (48 * 1024)

/* ---- ts_search_batched (search_cuda_batched.cu) ---- */

/* A block per array (grid-stride beyond TSI_SEARCH_BATCHED_MAX_GRID); the
 * conflict-limited search keeps four queries a thread in flight, eight gave
 * no more overlap (search-batched-shared-q4-20261202-h200.csv against
 * search-batched-shared-q8-20261202-h200.csv). */
#define TSI_SEARCH_BATCHED_THREADS 256
#define TSI_SEARCH_BATCHED_MAX_GRID (65535 * 32)
#define TSI_SEARCH_CONFLICT_LIMITED_QUERIES 4

#endif
