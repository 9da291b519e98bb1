/*
 * The output of `gpuscope profile`: the steps of a trace and where their
 * time goes (profile/profile.h), for a person, as JSON and as CSV, written
 * from the result's field tables.
 */
#ifndef GPUSCOPE_VIEW_PROFILE_H
#define GPUSCOPE_VIEW_PROFILE_H

#include <stdio.h>

#include "profile/profile.h"
#include "profile/target.h"
#include "report/table.h"

struct json_t;

/* The trace line, the step table, the class breakdown of all steps and the bottleneck. */
void view_profile_print(FILE *out, const struct profile_result *r);
/* The class rows of every step and of the total, as CSV (profile-class fields). */
void view_profile_csv(FILE *out, const struct profile_result *r);
/*
 * {"trace": {profile-trace}, "steps": [{profile-step, "classes": [{profile-class}]}],
 * "total": {profile-step, "classes": [...]}}.  A new reference the caller owns.
 */
struct json_t *view_profile_json(const struct profile_result *r);

/*
 * The result in the format asked for: the functions above, JSON printed
 * through report_json_print().  With a target (or NULL) its prediction
 * follows: a table, or "target": {profile-target, "classes": [...]} in JSON,
 * or its class rows as CSV instead of the profile's.
 */
void view_profile_write(FILE *out, const struct profile_result *r, const struct profile_target *t,
			enum output_format fmt);
/*
 * A trace against the model (profile_calibrate()): a table of the parts,
 * {profile-calib, "parts": [...]} as JSON, or the part rows as CSV.
 */
void view_profile_calib_write(FILE *out, const struct profile_calib *k, enum output_format fmt);

/*
 * A job of several ranks: the job line, one row per rank and the verdict;
 * {"job": {profile-job}, "ranks": [{profile-rank, "profile": {...}}]} in
 * JSON; the rank rows as CSV.
 */
void view_profile_job_write(FILE *out, const struct profile_job *j, enum output_format fmt);

/*
 * A self-contained HTML page at path (view/profile_report.c): the bottleneck
 * and its remedy, each step as a stacked bar (kernel classes, exposed
 * communication, the idle parts), the class breakdown, the step and class
 * tables; for a job, a bar per rank and then each rank's sections.  Written
 * whole or not at all: 0, or -1 with err set.
 */
int view_profile_report(const struct profile_result *r, const char *path, struct diag *err);
int view_profile_job_report(const struct profile_job *j, const char *path, struct diag *err);

#endif
