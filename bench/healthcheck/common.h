// What floor.c and sink.c (bench/healthcheck/run.py, tcp-scale) share: the member addresses, the
// clock, and stopping on SIGTERM or SIGINT. Both include it as "common.h": cc finds it next to
// them. C17 and Linux only.
#ifndef VIGIL_BENCH_HEALTHCHECK_COMMON_H
#define VIGIL_BENCH_HEALTHCHECK_COMMON_H

#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

static volatile sig_atomic_t stop_flag;
static void on_signal(int sig) {
  (void)sig;
  stop_flag = 1;
}

// stop_flag becomes 1 on SIGTERM or SIGINT.
static void stop_on_signals(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
}

// Member i's address 127.0.X.Y (X = 1 + i / 250, Y = 1 + i % 250), host byte order; run.py's
// member_address() computes the same.
static uint32_t member_addr(uint64_t i) {
  return (127u << 24) | ((uint32_t)(1 + i / 250) << 8) | (uint32_t)(1 + i % 250);
}

// CLOCK_MONOTONIC in ns: the clock of Python's time.monotonic_ns().
static uint64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif
