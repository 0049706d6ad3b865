// SPDX-License-Identifier: GPL-2.0
/*
 * The fuzzers' shared parts (fuzz.h): the generator, integers worth
 * trying, and tallies.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

void fuzz_seed(struct fuzz_rng *r, uint64_t seed)
{
	/* xorshift never leaves 0: any seed, 0 too, gives a nonzero state. */
	r->state = seed * 0x9e3779b97f4a7c15ULL + 0x2545f4914f6cdd1dULL;
	if (!r->state)
		r->state = 1;
}

uint64_t fuzz_u64(struct fuzz_rng *r)
{
	uint64_t x = r->state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	r->state = x;
	return x * 0x2545f4914f6cdd1dULL;
}

uint64_t fuzz_below(struct fuzz_rng *r, uint64_t n)
{
	return n ? fuzz_u64(r) % n : 0;
}

bool fuzz_chance(struct fuzz_rng *r, unsigned int num, unsigned int den)
{
	return fuzz_below(r, den) < num;
}

void fuzz_bytes(struct fuzz_rng *r, void *buf, size_t len)
{
	uint8_t *p = buf;
	uint64_t x = 0;
	size_t i;

	for (i = 0; i < len; i++) {
		if (!(i % 8))
			x = fuzz_u64(r);
		p[i] = (uint8_t)x;
		x >>= 8;
	}
}

uint64_t fuzz_int(struct fuzz_rng *r, unsigned int bits)
{
	uint64_t mask = bits >= 64 ? ~0ULL : (1ULL << bits) - 1;
	uint64_t pow = 1ULL << fuzz_below(r, bits);

	switch (fuzz_below(r, 8)) {
	case 0:
		return 0;
	case 1:
		return fuzz_below(r, 8);
	case 2:
		return mask;
	case 3:
		return (mask >> 1) + fuzz_below(r, 3) - 1;	/* around the sign bit */
	case 4:
		return (pow + fuzz_below(r, 3) - 1) & mask;
	case 5:
		return fuzz_below(r, 4096);
	default:
		return fuzz_u64(r) & mask;
	}
}

bool fuzz_parse_u64(const char *s, uint64_t *out)
{
	char *end;

	errno = 0;
	*out = strtoull(s, &end, 0);
	return !errno && end != s && !*end && s[0] != '-';
}

/* ---- tallies ---- */

#define FUZZ_WHAT_MAX		48
#define FUZZ_OUTCOME_MAX	24
#define FUZZ_TALLIES		4096

struct fuzz_tally {
	char what[FUZZ_WHAT_MAX];
	char outcome[FUZZ_OUTCOME_MAX];
	unsigned long n;
};

static struct fuzz_tally tallies[FUZZ_TALLIES];
static unsigned int tally_count;

static unsigned int tally_hash(const char *what, const char *outcome)
{
	unsigned int h = 2166136261u;

	for (; *what; what++)
		h = (h ^ (unsigned char)*what) * 16777619u;
	h = (h ^ ':') * 16777619u;
	for (; *outcome; outcome++)
		h = (h ^ (unsigned char)*outcome) * 16777619u;
	return h;
}

void fuzz_count(const char *what, const char *outcome)
{
	unsigned int i = tally_hash(what, outcome) % FUZZ_TALLIES;
	struct fuzz_tally *t;

	for (;;) {
		t = &tallies[i];
		if (!t->n)
			break;
		if (!strncmp(t->what, what, FUZZ_WHAT_MAX - 1) &&
		    !strncmp(t->outcome, outcome, FUZZ_OUTCOME_MAX - 1)) {
			t->n++;
			return;
		}
		i = (i + 1) % FUZZ_TALLIES;
	}
	/* Full: the tally is for reading, the inputs go on regardless. */
	if (tally_count >= FUZZ_TALLIES - 1)
		return;
	snprintf(t->what, sizeof(t->what), "%s", what);
	snprintf(t->outcome, sizeof(t->outcome), "%s", outcome);
	t->n = 1;
	tally_count++;
}

static int tally_cmp(const void *a, const void *b)
{
	const struct fuzz_tally *x = a, *y = b;
	int c;

	/* Empty entries last. */
	if (!x->n || !y->n)
		return !x->n - !y->n;
	c = strcmp(x->what, y->what);
	return c ? c : strcmp(x->outcome, y->outcome);
}

void fuzz_tally_print(FILE *out)
{
	unsigned long total = 0;
	unsigned int i;

	qsort(tallies, FUZZ_TALLIES, sizeof(tallies[0]), tally_cmp);
	for (i = 0; i < tally_count; i++) {
		const struct fuzz_tally *t = &tallies[i];

		fprintf(out, "count: %s %s %lu\n", t->what, t->outcome, t->n);
		total += t->n;
		if (i + 1 == tally_count || strcmp(t->what, tallies[i + 1].what)) {
			fprintf(out, "count: %s total %lu\n", t->what, total);
			total = 0;
		}
	}
	/* Sorted, the table is no longer hashed: start again. */
	memset(tallies, 0, sizeof(tallies));
	tally_count = 0;
}
