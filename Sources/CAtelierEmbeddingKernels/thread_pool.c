#include "thread_pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <immintrin.h>
#define CPU_RELAX() _mm_pause()
#else
#define CPU_RELAX() ((void)0)
#endif

enum { MAX_HELPERS = 63, SPIN_ROUNDS = 200000 };   // ~ a few hundred microseconds of pause

static pthread_mutex_t call_lock = PTHREAD_MUTEX_INITIALIZER;   // one parallel section at a time
static pthread_mutex_t sleep_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER;

static atomic_int wanted_threads = 0;   // 0: not set yet, use every online core
static int helpers_started = 0;         // guarded by call_lock

// The current section, written by the caller only while every helper waits for a new generation.
static aek_task section_task;
static void *section_context;
static int section_count;
static atomic_uint generation;
static atomic_int acknowledged;
static atomic_int sleepers;

int aek_pool_threads(void) {
    int wanted = atomic_load_explicit(&wanted_threads, memory_order_relaxed);
    if (wanted <= 0) {
        long online = sysconf(_SC_NPROCESSORS_ONLN);
        wanted = online > 0 ? (int)online : 1;
    }
    return wanted > MAX_HELPERS + 1 ? MAX_HELPERS + 1 : wanted;
}

void aek_pool_set_threads(int threads) {
    atomic_store_explicit(&wanted_threads, threads < 1 ? 1 : threads, memory_order_relaxed);
}

static unsigned wait_for_section(unsigned seen) {
    unsigned current;
    for (int spin = 0; spin < SPIN_ROUNDS; spin++) {
        current = atomic_load_explicit(&generation, memory_order_acquire);
        if (current != seen) return current;
        CPU_RELAX();
    }
    pthread_mutex_lock(&sleep_lock);
    atomic_fetch_add(&sleepers, 1);
    while ((current = atomic_load(&generation)) == seen) pthread_cond_wait(&wake, &sleep_lock);
    atomic_fetch_sub(&sleepers, 1);
    pthread_mutex_unlock(&sleep_lock);
    return current;
}

static void *helper(void *argument) {
    const int index = (int)(long)argument;   // helper i runs task index i + 1; the caller runs 0
    unsigned seen = 0;
    for (;;) {
        seen = wait_for_section(seen);
        if (index + 1 < section_count) section_task(section_context, index + 1, section_count);
        atomic_fetch_add_explicit(&acknowledged, 1, memory_order_acq_rel);
    }
    return NULL;
}

void aek_parallel(int count, aek_task task, void *context) {
    if (count <= 1 || pthread_mutex_trylock(&call_lock) != 0) {
        for (int i = 0; i < count; i++) task(context, i, count);
        return;
    }
    while (helpers_started < count - 1) {
        pthread_t thread;
        pthread_attr_t attributes;
        pthread_attr_init(&attributes);
        pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
        pthread_attr_setstacksize(&attributes, 256 * 1024);
        const int failed = pthread_create(&thread, &attributes, helper, (void *)(long)helpers_started);
        pthread_attr_destroy(&attributes);
        if (failed) break;
        helpers_started++;
    }
    if (count > helpers_started + 1) count = helpers_started + 1;   // could not start more threads
    const int helpers = helpers_started;
    section_task = task;
    section_context = context;
    section_count = count;
    atomic_store_explicit(&acknowledged, 0, memory_order_relaxed);
    atomic_fetch_add(&generation, 1);                                  // publishes the section (seq_cst)
    if (atomic_load(&sleepers) > 0) {
        pthread_mutex_lock(&sleep_lock);
        pthread_cond_broadcast(&wake);
        pthread_mutex_unlock(&sleep_lock);
    }
    task(context, 0, count);
    // Every helper acknowledges every section, so none can still be reading this one's fields
    // when the next caller writes them.
    while (atomic_load_explicit(&acknowledged, memory_order_acquire) < helpers) CPU_RELAX();
    pthread_mutex_unlock(&call_lock);
}
