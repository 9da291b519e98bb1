#include "util/suggest.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

#include "util/xalloc.h"

int suggest_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	int *prev2, *prev, *cur, d;
	if (la > 256)
		la = 256;
	if (lb > 256)
		lb = 256;
	prev2 = xcalloc(lb + 1, sizeof(int));
	prev = xcalloc(lb + 1, sizeof(int));
	cur = xcalloc(lb + 1, sizeof(int));
	for (j = 0; j <= lb; j++)
		prev[j] = (int)j;
	for (i = 1; i <= la; i++) {
		cur[0] = (int)i;
		for (j = 1; j <= lb; j++) {
			int ca = tolower((unsigned char)a[i - 1]);
			int cb = tolower((unsigned char)b[j - 1]);
			int cost = ca != cb;
			int best = prev[j] + 1;
			if (cur[j - 1] + 1 < best)
				best = cur[j - 1] + 1;
			if (prev[j - 1] + cost < best)
				best = prev[j - 1] + cost;
			if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) &&
			    tolower((unsigned char)a[i - 2]) == cb && prev2[j - 2] + 1 < best)
				best = prev2[j - 2] + 1;
			cur[j] = best;
		}
		int *t = prev2;
		prev2 = prev;
		prev = cur;
		cur = t;
	}
	d = prev[lb];
	free(prev2);
	free(prev);
	free(cur);
	return d;
}

static int contains_ci(const char *hay, const char *needle)
{
	size_t n = strlen(needle);
	if (!n)
		return 0;
	for (; *hay; hay++)
		if (!strncasecmp(hay, needle, n))
			return 1;
	return 0;
}

size_t suggest_closest(const char *word, const char *const *cands, size_t n, size_t *out, size_t max, int always)
{
	size_t i, k, got = 0;
	int *score = xcalloc(n, sizeof(int));
	int limit = (int)strlen(word) / 3 + 1;
	for (i = 0; i < n; i++) {
		score[i] = suggest_distance(word, cands[i]);
		/* "h100x" is closer to "h100-sxm5-80gb" than to "t4-16gb": also
		 * compare with the candidate's start, of the word's length */
		if (strlen(cands[i]) > strlen(word)) {
			char *head = xstrndup(cands[i], strlen(word));
			int d = suggest_distance(word, head) + 1;
			free(head);
			if (d < score[i])
				score[i] = d;
		}
		/* a candidate that contains the word, or is contained in it, is close */
		if (contains_ci(cands[i], word) || contains_ci(word, cands[i]))
			score[i] = score[i] < 1 ? score[i] : 1;
	}
	while (got < max) {
		long best = -1;
		for (i = 0; i < n; i++) {
			int taken = 0;
			for (k = 0; k < got; k++)
				taken |= out[k] == i;
			if (taken || (!always && score[i] > limit))
				continue;
			if (best < 0 || score[i] < score[best])
				best = (long)i;
		}
		if (best < 0)
			break;
		/* without `always`, only the equally close ones: one clear answer */
		if (!always && got && score[best] > score[out[0]])
			break;
		out[got++] = (size_t)best;
	}
	free(score);
	return got;
}

const char *suggest_hint(const char *word, const char *const *cands, size_t n, char *buf, size_t len)
{
	size_t idx[3], got = suggest_closest(word, cands, n, idx, 3, 0), i;
	size_t used;
	buf[0] = '\0';
	if (!got)
		return buf;
	used = (size_t)snprintf(buf, len, got == 1 ? "; did you mean '%s'" : "; did you mean one of '%s'",
				cands[idx[0]]);
	for (i = 1; i < got && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, ", '%s'", cands[idx[i]]);
	if (used < len)
		snprintf(buf + used, len - used, "?");
	return buf;
}
