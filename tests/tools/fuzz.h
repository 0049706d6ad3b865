/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the fuzzers of tests/tools share: a seeded pseudo-random generator
 * (one seed, one sequence of inputs, whatever the host), the integers and
 * strings worth trying, and tallies of what was sent and what came back.
 */
#ifndef SMARTIO_TESTS_FUZZ_H
#define SMARTIO_TESTS_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* xorshift64*: small, fast, and the same on every host. */
struct fuzz_rng {
	uint64_t state;
};

void fuzz_seed(struct fuzz_rng *r, uint64_t seed);
uint64_t fuzz_u64(struct fuzz_rng *r);
/* Uniform in [0, n); 0 when n is 0. */
uint64_t fuzz_below(struct fuzz_rng *r, uint64_t n);
/* True with probability num / den. */
bool fuzz_chance(struct fuzz_rng *r, unsigned int num, unsigned int den);
void fuzz_bytes(struct fuzz_rng *r, void *buf, size_t len);

/*
 * An integer of BITS bits (8 to 64) worth trying: 0, 1, small, all ones,
 * the sign bit, powers of two and their neighbours, or random bits.
 */
uint64_t fuzz_int(struct fuzz_rng *r, unsigned int bits);

/* The seed a fuzzer's -s option names ("0x..." or decimal); false if not. */
bool fuzz_parse_u64(const char *s, uint64_t *out);

/*
 * Tallies: fuzz_count(WHAT, OUTCOME) counts one input WHAT (a command, an
 * op) that met OUTCOME (an errno name, "ok"); fuzz_tally_print() prints
 * every pair as "count: WHAT OUTCOME N", sorted, and per WHAT its total.
 */
void fuzz_count(const char *what, const char *outcome);
void fuzz_tally_print(FILE *out);

#endif /* SMARTIO_TESTS_FUZZ_H */
