/*
 * simplot.c - see simplot.h.
 */
#include "simplot.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

/* Print s as a gnuplot single-quoted string ('' stands for '). */
static void simplot_quote(FILE *fp, const char *s)
{
	fputc('\'', fp);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', fp);
		fputc(*s, fp);
	}
	fputc('\'', fp);
}

static int simplot_printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 0;
	return 1;
}

/* Line colours: Okabe and Ito's colour-blind-safe set without its
 * yellow, which is unreadable on white; then black and brown. */
static const char *const simplot_colours[] = {
	"#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9",
	"#000000", "#8c564b",
};
#define SIMPLOT_COLOURS (sizeof(simplot_colours) / sizeof(simplot_colours[0]))

/* One panel: column col of every policy against time (in gnuplot's
 * tscale, which simplot_render sets). */
static void simplot_panel(FILE *fp, const char *data, int col,
			  size_t npolicies, const char *const *names,
			  int with_demand)
{
	size_t i;

	fprintf(fp, "plot ");
	if (with_demand) {
		simplot_quote(fp, data);
		fprintf(fp, " using ($1 == 0 ? $2 / tscale : 1/0):4 with "
			"lines lw 3 lc rgb '#aaaaaa' title 'demand (ideal "
			"concurrency / slots)', ");
	}
	for (i = 0; i < npolicies; i++) {
		simplot_quote(fp, data);
		fprintf(fp, " using ($1 == %zu ? $2 / tscale : 1/0):($%d%s) "
			"with steps lw 1.8 lt %zu title ", i, col,
			with_demand ? "" : " + 1", i % SIMPLOT_COLOURS + 1);
		simplot_quote(fp, names[i]);
		fprintf(fp, "%s", i + 1 < npolicies ? ", " : "\n");
	}
}

int simplot_render(const char *data_path, const char *png_path,
		   const char *title, const char *const *names,
		   size_t npolicies, double replicas_max, char *err,
		   size_t errlen)
{
	void (*old)(int);
	FILE *fp;
	size_t i;
	int st;

	if (!simplot_printable(data_path) || !simplot_printable(png_path) ||
	    !simplot_printable(title)) {
		snprintf(err, errlen, "plot: file names and titles must not "
			 "contain control characters");
		return -1;
	}
	for (i = 0; i < npolicies; i++)
		if (!simplot_printable(names[i])) {
			snprintf(err, errlen, "plot: policy names must not "
				 "contain control characters");
			return -1;
		}
	/* A gnuplot that dies early must not kill us with SIGPIPE. */
	old = signal(SIGPIPE, SIG_IGN);
	fp = popen("gnuplot", "w");
	if (!fp) {
		signal(SIGPIPE, old);
		snprintf(err, errlen, "plot: cannot run gnuplot: %s",
			 strerror(errno));
		return -1;
	}
	fprintf(fp, "set terminal pngcairo size 1400,1100 font ',12'\n"
		"set termoption noenhanced\nset output ");
	simplot_quote(fp, png_path);
	for (i = 0; i < SIMPLOT_COLOURS; i++)
		fprintf(fp, "\nset linetype %zu lc rgb '%s'", i + 1,
			simplot_colours[i]);
	/* Time in minutes for runs under two hours, else hours; the axis
	 * top from the data, so that nothing is cut off. */
	fprintf(fp, "\nset linetype cycle %zu\nstats ", SIMPLOT_COLOURS);
	simplot_quote(fp, data_path);
	fprintf(fp, " using 2 nooutput name 'T'\nstats ");
	simplot_quote(fp, data_path);
	fprintf(fp, " using 3 nooutput name 'R'\n"
		"tscale = T_max < 7200 ? 60.0 : 3600.0\n"
		"tunit = T_max < 7200 ? 'minutes' : 'hours'\n"
		"ytop = R_max > %g ? R_max : %g\n"
		"set multiplot layout 3,1 title ",
		replicas_max > 0 ? replicas_max : 0,
		replicas_max > 0 ? replicas_max : 0);
	simplot_quote(fp, title);
	fprintf(fp, "\nset grid\nset lmargin 12\nset rmargin 4\n"
		"set xrange [0:T_max / tscale]\n"
		"set key outside top center horizontal\n"
		"set tmargin 6\n"
		"set ylabel 'replicas'\nset yrange [0:ytop * 1.05 + 1]\n");
	simplot_panel(fp, data_path, 3, npolicies, names, 1);
	/* one legend: the first panel's names the lines of all three */
	fprintf(fp, "unset key\nset tmargin 1\nset autoscale y\n"
		"set logscale y\n"
		"set ylabel 'queue depth + 1'\n");
	simplot_panel(fp, data_path, 5, npolicies, names, 0);
	fprintf(fp, "set ylabel 'shed per step + 1'\n"
		"set xlabel 'time (' . tunit . ')'\n");
	simplot_panel(fp, data_path, 6, npolicies, names, 0);
	fprintf(fp, "unset multiplot\n");
	st = pclose(fp);
	signal(SIGPIPE, old);
	if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		snprintf(err, errlen, "plot: gnuplot failed (exit status %d; "
			 "is gnuplot installed? Debian: gnuplot-nox)",
			 st != -1 && WIFEXITED(st) ? WEXITSTATUS(st) : -1);
		return -1;
	}
	return 0;
}
