/*
 * configcheck.c - run staffer's own config loader on files, nothing else.
 *
 * tests/packaging/check.py links this against build/libstaffer.a to check
 * that the config.json the Helm chart renders is one `staffer serve` would
 * accept, without starting a server.
 *
 *   configcheck FILE...    exit 0 if every file loads; else print the
 *                          loader's message for each bad one and exit 1
 */
#include <stdio.h>

#include "config.h"

int main(int argc, char **argv)
{
	int i, rc = 0;

	for (i = 1; i < argc; i++) {
		struct config c;
		char err[CONFIG_ERR_MAX];

		config_init(&c);
		if (config_load_file(&c, argv[i], err)) {
			fprintf(stderr, "%s\n", err);
			rc = 1;
		} else {
			printf("%s: %zu backend(s), default '%s'\n", argv[i],
			       c.n_backends,
			       c.backends[c.default_backend].name);
		}
		config_release(&c);
	}
	return rc;
}
