/*
 * The calibration in use, as a person reads it and as JSON (view/calib.h).
 */
#include <jansson.h>

#include "model/fields.h"
#include "report/fmt.h"
#include "report/table.h"
#include "view/calib.h"

json_t *view_calibration_json(const struct model_calibration *c)
{
	struct model_ceiling e[MODEL_CEILINGS_MAX];
	struct report_row *row;
	json_t *o, *arr;
	size_t i, n;
	if (!c)
		return json_null();
	row = report_row_new(model_calibration_schema());
	model_calibration_row(c, row);
	o = report_row_json(row);
	report_row_free(row);
	arr = json_array();
	row = report_row_new(model_ceiling_schema());
	n = model_calibration_ceilings(c, e);
	for (i = 0; i < n; i++) {
		model_ceiling_row(&e[i], row);
		json_array_append_new(arr, report_row_json(row));
	}
	report_row_free(row);
	json_object_set_new(o, "ceilings", arr);
	return o;
}

void view_calibration_print(FILE *out, const struct model_calibration *c)
{
	static const char *const columns[] = {"ceiling", "measured", "catalog", "of_catalog", "time_factor"};
	struct model_ceiling e[MODEL_CEILINGS_MAX];
	const struct report_schema *s = model_ceiling_schema();
	struct report_row *row;
	struct table *tb;
	char b[FMT_LEN];
	size_t i, k, n;
	long col[5];
	if (!c)
		return;
	fprintf(out, "\ncalibration: %s (%s, %s measured %s)\n", c->file ? c->file : "?", c->gpu->row.key,
		c->gpu_name ? c->gpu_name : "?", c->date ? c->date : "?");
	tb = table_new();
	for (k = 0; k < 5; k++) {
		col[k] = report_field_index(s, columns[k]);
		table_column(tb,
			     k == 3 ? "of catalog" :
			     k == 4 ? "time x" :
				      columns[k],
			     k ? ALIGN_RIGHT : ALIGN_LEFT);
	}
	row = report_row_new(s);
	n = model_calibration_ceilings(c, e);
	for (i = 0; i < n; i++) {
		model_ceiling_row(&e[i], row);
		table_row(tb);
		table_cell(tb, e[i].name);
		/* measured and catalog share the ceiling's own unit, which the field table cannot name */
		table_cellf(tb, "%s %s", fmt_grouped(e[i].measured, 1, b, sizeof(b)), e[i].unit);
		table_cellf(tb, "%s %s", fmt_grouped(e[i].catalog, 1, b, sizeof(b)), e[i].unit);
		for (k = 3; k < 5; k++)
			table_cell(tb, k == 4 ? fmt_num(report_num(row, (size_t)col[k]), 2, b, sizeof(b)) :
						report_value_text(row, (size_t)col[k], b, sizeof(b)));
	}
	report_row_free(row);
	table_print(tb, out, 0);
	table_free(tb);
}
