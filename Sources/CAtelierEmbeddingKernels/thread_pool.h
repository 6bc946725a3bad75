// A small process-wide pool for the embedding kernels: helpers spin briefly between the many
// short parallel sections of one forward pass (a futex wake-up per section cost more than the
// section at batch 1), then sleep.
#ifndef ATELIER_THREAD_POOL_H
#define ATELIER_THREAD_POOL_H

typedef void (*aek_task)(void *context, int index, int count);

// Runs task(context, i, count) for i in [0, count) with count ≤ aek_pool_threads(), each index on
// its own thread (the caller runs one). While another call holds the pool, runs them all here.
void aek_parallel(int count, aek_task task, void *context);

// Threads a parallel section may use, the caller included (at least 1).
int aek_pool_threads(void);

void aek_pool_set_threads(int threads);

#endif
