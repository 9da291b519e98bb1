/*
 * Floating-point operations of one operator from the shapes the profiler
 * recorded (record_shapes=True: args "Input Dims", "Concrete Inputs").
 * docs/profile.md "Achieved FLOP/s" derives each count; a multiply-add is
 * two operations, and the bias, scaling and softmax terms (O(MN), not
 * O(MNK)) are left out.
 */
#include <math.h>
#include <string.h>

#include "profile/profile.h"
#include "profile/trace.h"

/* Input i's dim d counted from the end (1: the last), or NaN. */
static double dim_end(const struct trace_event *ev, int i, int d)
{
	if (i >= ev->ninputs || i >= TRACE_MAX_INPUTS || ev->ndims[i] < d || d < 1)
		return NAN;
	return ev->dims[i][ev->ndims[i] - d];
}

/* The product of input i's dims but its last `keep`, or NaN. */
static double lead(const struct trace_event *ev, int i, int keep)
{
	double p = 1;
	int d;
	if (i >= ev->ninputs || i >= TRACE_MAX_INPUTS || ev->ndims[i] < keep)
		return NAN;
	for (d = 0; d < ev->ndims[i] - keep; d++)
		p *= ev->dims[i][d];
	return p;
}

/* 2 b M N K for A = input a [.., M, K] times B = input b [.., K, N]; batch b from A's leading dims. */
static double matmul(const struct trace_event *ev, int a, int b)
{
	double m = dim_end(ev, a, 2), k = dim_end(ev, a, 1), n = dim_end(ev, b, 1), batch = lead(ev, a, 2);
	if (ev->ndims[b] == 1) /* matrix times vector */
		n = 1;
	else if (dim_end(ev, b, 2) != k)
		return NAN;
	if (ev->ndims[b] > 2 && lead(ev, b, 2) > batch) /* B broadcast over more batches */
		batch = lead(ev, b, 2);
	return 2 * batch * m * n * k;
}

/* A concrete list argument's element d (a single value stands for every dim), or def. */
static double concrete(const struct trace_event *ev, int idx, int d, double def)
{
	if (idx < 0 || idx >= 12 || ev->nconcrete[idx] <= 0)
		return def;
	return (double)ev->concrete[idx][d < ev->nconcrete[idx] ? d : 0];
}

/*
 * Convolution, input x [N, C, s1..] and weight w [K, C/g, k1..]:
 * 2 N K (C/g) prod(k) prod(out), each output extent
 * floor((s + 2 p - dl (k - 1) - 1) / st) + 1 from the stride, padding and
 * dilation at Concrete Inputs positions ist, ipad, idil; unknown (NaN) when
 * the trace has no stride.  grad, when >= 0, is the input holding the
 * output's gradient (convolution_backward), whose extents are the output's.
 */
static double conv(const struct trace_event *ev, int x, int w, int grad, int ist, int ipad, int idil)
{
	int nd, d;
	double n, k, cg, f = 1;
	if (x >= ev->ninputs || w >= ev->ninputs || x >= TRACE_MAX_INPUTS || w >= TRACE_MAX_INPUTS)
		return NAN;
	nd = ev->ndims[x] - 2;
	if (nd < 1 || ev->ndims[w] != nd + 2)
		return NAN;
	n = ev->dims[x][0];
	k = ev->dims[w][0];
	cg = ev->dims[w][1];
	for (d = 0; d < nd; d++) {
		double kd = ev->dims[w][2 + d], out;
		if (grad >= 0) {
			if (grad >= ev->ninputs || ev->ndims[grad] != nd + 2)
				return NAN;
			out = ev->dims[grad][2 + d];
		} else {
			double st = concrete(ev, ist, d, NAN), pad = concrete(ev, ipad, d, 0),
			       dl = concrete(ev, idil, d, 1);
			if (!(st > 0))
				return NAN;
			out = floor((ev->dims[x][2 + d] + 2 * pad - dl * (kd - 1) - 1) / st) + 1;
		}
		if (!(out > 0))
			return NAN;
		f *= kd * out;
	}
	return 2 * n * k * cg * f;
}

/*
 * Attention q [B, H, L, E], k [B, H, S, E], v [B, H, S, Ev]: the scores
 * Q K^T (2 B H L S E) and their product with V (2 B H L S Ev).
 */
static double attention(const struct trace_event *ev, int q)
{
	double l = dim_end(ev, q, 2), e = dim_end(ev, q, 1), s = dim_end(ev, q + 1, 2),
	       ev_ = dim_end(ev, q + 2, 1);
	double bh = lead(ev, q, 2);
	return 2 * bh * l * s * e + 2 * bh * l * s * ev_;
}

double profile_op_flops(const struct trace_event *ev)
{
	const char *n = ev->name;
	double f = NAN;
	if (strncmp(n, "aten::", 6) || ev->ninputs < 2)
		return NAN;
	n += 6;
	if (!strcmp(n, "mm") || !strcmp(n, "bmm") || !strcmp(n, "matmul"))
		f = matmul(ev, 0, 1);
	else if (!strcmp(n, "addmm") || !strcmp(n, "baddbmm"))
		f = matmul(ev, 1, 2);
	else if (!strcmp(n, "linear")) /* input [.., K] times weight [N, K] transposed */
		f = dim_end(ev, 1, 2) > 0 && dim_end(ev, 0, 1) == dim_end(ev, 1, 1) ?
			    2 * lead(ev, 0, 1) * dim_end(ev, 0, 1) * dim_end(ev, 1, 2) :
			    NAN;
	else if (!strcmp(n, "conv1d") || !strcmp(n, "conv2d") || !strcmp(n, "conv3d"))
		f = conv(ev, 0, 1, -1, 3, 4, 5); /* (input, weight, bias, stride, padding, dilation, groups) */
	else if (!strcmp(n, "convolution") || !strcmp(n, "_convolution"))
		f = conv(ev, 0, 1, -1, 3, 4,
			 5); /* (input, weight, bias, stride, padding, dilation, transposed ..) */
	else if (!strcmp(n, "cudnn_convolution"))
		f = conv(ev, 0, 1, -1, 3, 2, 4);     /* (input, weight, padding, stride, dilation, groups ..) */
	else if (!strcmp(n, "convolution_backward")) /* (grad_out, input, weight ..): data and weight gradients */
		f = 2 * conv(ev, 1, 2, 0, -1, -1, -1);
	else if (!strncmp(n, "_scaled_dot_product", 19) && strstr(n, "backward"))
		f = 2.5 * attention(ev, 1); /* (grad_out, q, k, v ..): recomputed scores, dQ, dK, dV */
	else if (!strncmp(n, "_scaled_dot_product", 19) || !strcmp(n, "scaled_dot_product_attention"))
		f = attention(ev, 0);
	return isfinite(f) && f > 0 ? f : NAN;
}
