/*
 * cmd.h - the subcommands of build/staffer.  Each takes argc/argv after the
 * subcommand name and returns the process exit status: 0 success, 1 a
 * runtime failure, 2 bad usage or input.
 */
#ifndef STAFFER_CMD_H
#define STAFFER_CMD_H

int cmd_serve(int argc, char **argv);
int cmd_calc(int argc, char **argv);
int cmd_explain(int argc, char **argv);
int cmd_simulate(int argc, char **argv);
/* `staffer simulate --split`: a prefill and a decode pool (splitcmd.c) */
int cmd_simulate_split(int argc, char **argv);
int cmd_tune(int argc, char **argv);
int cmd_lint(int argc, char **argv);
int cmd_health(int argc, char **argv);

#endif
