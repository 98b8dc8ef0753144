/*
 * main.c - build/staffer: one binary, one subcommand per job.
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "version.h"

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *help;
} commands[] = {
	{ "serve", cmd_serve, "run the KEDA external scaler (gRPC)" },
	{ "calc", cmd_calc, "evaluate the model on numbers given as key=value" },
	{ "explain", cmd_explain,
	  "the model on live metrics: what serve answers now, and why" },
	{ "simulate", cmd_simulate,
	  "replay traffic through a simulated fleet, compare policies" },
	{ "tune", cmd_tune,
	  "tune a trigger's metadata on its own history (simulated)" },
	{ "lint", cmd_lint, "check ScaledObject YAML before it is applied" },
	{ "health", cmd_health,
	  "ask a server's gRPC health check (helm test, HEALTHCHECK)" },
};

static void usage(FILE *fp)
{
	size_t i;

	fprintf(fp, "usage: staffer COMMAND [ARGS]\n\ncommands:\n");
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(fp, "  %-10s %s\n", commands[i].name, commands[i].help);
	fprintf(fp, "  %-10s %s\n", "version", "print the version");
	fprintf(fp, "\n'staffer COMMAND --help' tells more.\n");
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 2, argv + 2);
	if (!strcmp(argv[1], "version") || !strcmp(argv[1], "--version")) {
		printf("staffer %s (revision %s)\n", version_string(),
		       version_revision());
		return 0;
	}
	if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	fprintf(stderr, "staffer: unknown command '%s'\n\n", argv[1]);
	usage(stderr);
	return 2;
}
