/* SPDX-License-Identifier: MIT */
/*
 * SANITIZED: defined when this test is built with ASan or TSan (gcc says so
 * with __SANITIZE_*__, clang with __has_feature), whose runtimes make each
 * step of a stress test some ten times slower.
 */
#ifndef HWBP_TESTS_SANITIZED_H
#define HWBP_TESTS_SANITIZED_H

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif

#endif /* HWBP_TESTS_SANITIZED_H */
