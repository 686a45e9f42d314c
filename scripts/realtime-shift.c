/*
 * realtime-shift.c: an LD_PRELOAD shim that moves only the wall clock (RELIABILITY.md M4).
 *
 * CLOCK_REALTIME (and CLOCK_REALTIME_COARSE, gettimeofday, time) read the real clock plus the number of milliseconds
 * written in the file named by REALTIME_SHIFT_FILE (a signed decimal, e.g. -3600000); the file is re-read at most
 * every 20 ms, so a test jumps the clock of a running process by rewriting it. CLOCK_MONOTONIC and CLOCK_BOOTTIME are
 * left alone, so timers keep firing on time (libfaketime also moves timer deadlines and hangs Swift's Task.sleep).
 *
 *   cc -shared -fPIC -O2 -o realtime-shift.so scripts/realtime-shift.c -ldl
 *   echo -3600000 > /tmp/shift; REALTIME_SHIFT_FILE=/tmp/shift LD_PRELOAD=$PWD/realtime-shift.so corkd serve ...
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

typedef int (*clock_gettime_fn)(clockid_t, struct timespec *);

static _Atomic(clock_gettime_fn) real_clock_gettime;
static _Atomic long long shift_ms;
static _Atomic long long next_check_ns;

static clock_gettime_fn real(void) {
    clock_gettime_fn fn = atomic_load(&real_clock_gettime);
    if (!fn) {
        fn = (clock_gettime_fn)dlsym(RTLD_NEXT, "clock_gettime");
        atomic_store(&real_clock_gettime, fn);
    }
    return fn;
}

/* Reads the shift file without allocating (this runs inside clock_gettime). */
static long long read_shift(const char *path, long long fallback) {
    char text[32];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return fallback;
    ssize_t count = read(fd, text, sizeof text - 1);
    close(fd);
    if (count <= 0) return fallback;
    text[count] = 0;
    char *end = NULL;
    long long value = strtoll(text, &end, 10);
    return end == text ? fallback : value;
}

static long long current_shift(void) {
    const char *path = getenv("REALTIME_SHIFT_FILE");
    if (!path) return 0;
    struct timespec mono;
    if (real()(CLOCK_MONOTONIC, &mono) != 0) return atomic_load(&shift_ms);
    long long now = (long long)mono.tv_sec * 1000000000LL + mono.tv_nsec;
    if (now >= atomic_load(&next_check_ns)) {
        atomic_store(&shift_ms, read_shift(path, atomic_load(&shift_ms)));
        atomic_store(&next_check_ns, now + 20000000LL);
    }
    return atomic_load(&shift_ms);
}

static void shift(struct timespec *ts) {
    long long ns = (long long)ts->tv_sec * 1000000000LL + ts->tv_nsec + current_shift() * 1000000LL;
    ts->tv_sec = (time_t)(ns / 1000000000LL);
    ts->tv_nsec = (long)(ns % 1000000000LL);
    if (ts->tv_nsec < 0) {
        ts->tv_nsec += 1000000000L;
        ts->tv_sec -= 1;
    }
}

int clock_gettime(clockid_t id, struct timespec *ts) {
    int result = real()(id, ts);
    if (result == 0 && (id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE)) shift(ts);
    return result;
}

int gettimeofday(struct timeval *restrict tv, void *restrict tz) {
    (void)tz;
    struct timespec ts;
    int result = clock_gettime(CLOCK_REALTIME, &ts);
    if (result == 0) {
        tv->tv_sec = ts.tv_sec;
        tv->tv_usec = ts.tv_nsec / 1000;
    }
    return result;
}

time_t time(time_t *out) {
    struct timespec ts;
    if (clock_gettime(CLOCK_REALTIME, &ts) != 0) return (time_t)-1;
    if (out) *out = ts.tv_sec;
    return ts.tv_sec;
}
