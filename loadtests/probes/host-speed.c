// How fast this host runs the same work, by kind, in one process: a probe for host-speed.sh.
//
// Three kinds of fixed work, each timed on the thread's own CPU clock (what cpu.csv and /proc
// count), so time the hypervisor takes from the vCPU and reports as steal is not in it:
//   compute  a register-only loop (xorshift), no memory touched: the core's own speed;
//   touch    first writes to fresh anonymous memory, one per 4 KiB page: what a heap that grows
//            pays to the guest's and the host's page-fault paths;
//   walk     a random pointer chase over memory already touched, one cache line a step: what a
//            working set larger than the caches pays to the TLB, and to the host's page tables
//            under the guest's.
// Prints one line a round: round, then ns per unit of each kind.
//
// Usage: host-speed <rounds> <touch-MiB> <walk-MiB>
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

static const uint64_t COMPUTE_ITERATIONS = 200u * 1000u * 1000u;
static const uint64_t WALK_STEPS = 5u * 1000u * 1000u;
static const size_t PAGE_BYTES = 4096;
static const size_t LINE_BYTES = 64;

static double cpu_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static uint64_t xorshift(uint64_t x) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
}

// ns an iteration of a loop that keeps its state in a register.
static double compute(void) {
    volatile uint64_t sink;
    uint64_t x = 88172645463325252ull;
    double from = cpu_ns();
    for (uint64_t i = 0; i < COMPUTE_ITERATIONS; i++) x = xorshift(x);
    sink = x;
    (void)sink;
    return (cpu_ns() - from) / (double)COMPUTE_ITERATIONS;
}

// ns a page of the first write to each page of `bytes` of fresh anonymous memory.
static double touch(size_t bytes) {
    char *memory = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED) {
        perror("host-speed: mmap");
        exit(1);
    }
    double from = cpu_ns();
    for (size_t at = 0; at < bytes; at += PAGE_BYTES) memory[at] = 1;
    double ns = (cpu_ns() - from) / (double)(bytes / PAGE_BYTES);
    munmap(memory, bytes);
    return ns;
}

// A random cycle through every cache line of `bytes`: each line holds the index of the next.
static uint64_t *walk_cycle(size_t bytes) {
    size_t lines = bytes / LINE_BYTES, stride = LINE_BYTES / sizeof(uint64_t);
    uint64_t *memory = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    uint64_t *order = malloc(lines * sizeof(uint64_t));
    if (memory == MAP_FAILED || order == NULL) {
        perror("host-speed: walk's memory");
        exit(1);
    }
    for (size_t i = 0; i < lines; i++) order[i] = i;
    uint64_t x = 2463534242ull;
    for (size_t i = lines - 1; i > 0; i--) {
        x = xorshift(x);
        size_t j = x % (i + 1), kept = order[i];
        order[i] = order[j];
        order[j] = kept;
    }
    for (size_t i = 0; i < lines; i++) memory[order[i] * stride] = order[(i + 1) % lines] * stride;
    free(order);
    return memory;
}

// ns a step of the chase.
static double walk(const uint64_t *memory) {
    volatile uint64_t sink;
    uint64_t at = 0;
    double from = cpu_ns();
    for (uint64_t i = 0; i < WALK_STEPS; i++) at = memory[at];
    sink = at;
    (void)sink;
    return (cpu_ns() - from) / (double)WALK_STEPS;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: host-speed <rounds> <touch-MiB> <walk-MiB>\n");
        return 2;
    }
    int rounds = atoi(argv[1]);
    size_t touch_bytes = (size_t)atol(argv[2]) << 20, walk_bytes = (size_t)atol(argv[3]) << 20;
    if (rounds < 1 || touch_bytes == 0 || walk_bytes == 0) {
        fprintf(stderr, "host-speed: rounds and sizes must be positive\n");
        return 2;
    }
    uint64_t *cycle = walk_cycle(walk_bytes);
    for (int round = 1; round <= rounds; round++) {
        printf("%d,%.3f,%.1f,%.2f\n", round, compute(), touch(touch_bytes), walk(cycle));
        fflush(stdout);
    }
    return 0;
}
