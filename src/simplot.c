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

/* One panel: column col of every policy against time. */
static void simplot_panel(FILE *fp, const char *data, int col,
			  size_t npolicies, const char *const *names,
			  int with_demand)
{
	size_t i;

	fprintf(fp, "plot ");
	if (with_demand) {
		simplot_quote(fp, data);
		fprintf(fp, " using ($1 == 0 ? $2 / 3600.0 : 1/0):4 with "
			"lines lw 3 lc rgb '#999999' title 'demand (ideal "
			"concurrency / slots)', ");
	}
	for (i = 0; i < npolicies; i++) {
		simplot_quote(fp, data);
		fprintf(fp, " using ($1 == %zu ? $2 / 3600.0 : 1/0):($%d%s) "
			"with steps lw 1.5 lt %zu title ", i, col,
			with_demand ? "" : " + 1", i + 1);
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
	fprintf(fp, "set terminal pngcairo size 1400,1100 font ',10'\n"
		"set termoption noenhanced\nset output ");
	simplot_quote(fp, png_path);
	fprintf(fp, "\nset multiplot layout 3,1 title ");
	simplot_quote(fp, title);
	fprintf(fp, "\nset grid\nset key outside right top\n"
		"set lmargin 10\nset rmargin 48\n"
		"set ylabel 'replicas'\n");
	if (replicas_max > 0)
		fprintf(fp, "set yrange [0:%g]\n", replicas_max);
	simplot_panel(fp, data_path, 3, npolicies, names, 1);
	fprintf(fp, "set autoscale y\nset logscale y\n"
		"set ylabel 'queue depth + 1'\n");
	simplot_panel(fp, data_path, 5, npolicies, names, 0);
	fprintf(fp, "set ylabel 'shed per step + 1'\nset xlabel 'hours'\n");
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
