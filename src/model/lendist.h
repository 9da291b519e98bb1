/*
 * Input-length distributions for offline inference of a forward pass (an
 * encoder over SQuAD-like questions): a table of quantiles of the input
 * length in tokens, and the throughput of a job whose inputs follow it,
 * padded to the longest or unpadded (TensorRT's variable-length kernels).
 * docs/model.md, "Offline throughput over a length distribution".
 */
#ifndef GPUSCOPE_MODEL_LENDIST_H
#define GPUSCOPE_MODEL_LENDIST_H

#include "model/model.h"
#include "util/error.h"

struct model_lendist;

/*
 * Reads a CSV table "q,tokens" (comment lines start with '#'): cumulative
 * shares q in (0, 1], rising, the last 1; tokens a whole number 1-10000000,
 * not falling.  Returns 0 with *out owned by the caller
 * (model_lendist_free), or -1 with err naming the file, line, column and
 * field.
 */
int model_lendist_read(const char *path, struct model_lendist **out, struct diag *err);
void model_lendist_free(struct model_lendist *d);
/* The longest input (the last row's tokens) and the mean length, tokens. */
int model_lendist_max(const struct model_lendist *d);
double model_lendist_mean(const struct model_lendist *d);

/*
 * The offline job of c over inputs following d, into r: memory at the
 * longest input (the engine's buffers are sized for it); padded, every
 * input runs at the longest; unpadded, each at its own length, the time of
 * an input being that of a batch at its length over the batch.  Samples/s
 * = dp x batch / the mean batch time; tokens/s the real tokens (mean x
 * samples/s).  Sets c->prompt_len to the longest input, as the report
 * names it.  A forward pass only: -1 with err ("output-len") when c
 * generates tokens (more than 1), ("task") when c is not inference.
 */
int model_estimate_lengths(const struct workload *w, struct model_config *c, const struct model_lendist *d,
			   int padded, struct model_result *r, struct diag *err);

#endif
