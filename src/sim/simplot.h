/*
 * simplot.h - the simulator's figure: gnuplot, run as a subprocess.
 *
 * The data file holds whitespace-separated rows
 *   policy_index t replicas demand queue shed
 * (sim samples, all policies in one file).  simplot_render writes a
 * gnuplot script to `gnuplot` (from PATH, e.g. Debian's gnuplot-nox) on
 * its standard input and makes one PNG with three panels sharing the time
 * axis (minutes for runs under two hours, else hours): replicas of every
 * policy with the ideal demand (the axis reaches the highest value
 * plotted, or replicas_max when that is higher, so nothing is cut),
 * queue depth and requests shed per sample step (both + 1, on a log
 * scale).  One legend, above the first panel, names the lines of all
 * three; the colours are colour-blind safe and readable on white (no
 * yellow).  Returns 0, or -1 with err (gnuplot missing or failing, a
 * name with control characters).
 */
#ifndef STAFFER_SIMPLOT_H
#define STAFFER_SIMPLOT_H

#include <stddef.h>

int simplot_render(const char *data_path, const char *png_path,
		   const char *title, const char *const *names,
		   size_t npolicies, double replicas_max, char *err,
		   size_t errlen);

#endif
