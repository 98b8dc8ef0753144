/*
 * health.c - `staffer health ADDR`: ask a staffer (or any gRPC server)
 * grpc.health.v1.Health/Check, as the kubelet's gRPC probe does, from
 * the image itself: the chart's `helm test` hook and a container
 * HEALTHCHECK need no other client.
 *
 *   staffer health [--timeout S] [--service NAME]
 *                  [--tls-ca FILE [--tls-cert FILE --tls-key FILE]
 *                  [--server-name NAME]] HOST:PORT
 *
 * Prints SERVING (exit 0), or what came back instead: another serving
 * status, a gRPC status with its message, or no answer within the
 * timeout (exit 1).  Bad usage: exit 2.  One call, one completion
 * queue, everything released before it returns.
 */
#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/support/time.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "health.pb-c.h"
#include "opt.h"
#include "pb.h"
#include "slurp.h"

#define HEALTH_REPLY_MAX 4096      /* bytes of a HealthCheckResponse */
#define HEALTH_PEM_MAX (1 << 20)   /* bytes of one PEM file */

static void usage(FILE *fp)
{
	fprintf(fp,
"usage: staffer health [options] HOST:PORT\n"
"  Ask grpc.health.v1.Health/Check at HOST:PORT, as the kubelet's gRPC\n"
"  probe does.  Prints SERVING and exits 0, else says what came back and\n"
"  exits 1.\n"
"  --timeout S           give up after S seconds (default 5, 0.1 to 300)\n"
"  --service NAME        the service to ask about (default: the server)\n"
"  --tls-ca FILE         use TLS, trusting the CA certificates in FILE\n"
"  --tls-cert FILE --tls-key FILE\n"
"                        with --tls-ca: a client certificate (mTLS)\n"
"  --server-name NAME    with --tls-ca: the name the certificate must\n"
"                        have (default: HOST)\n");
}

/* The whole file, NUL-terminated, or NULL with a message on stderr (a
 * PEM over the cap is refused, not cut: a cut PEM fails later, unclearly). */
static char *health_read(const char *path)
{
	char why[512];
	char *buf;
	size_t n;

	buf = slurp_file(path, HEALTH_PEM_MAX - 1, &n, NULL, why, sizeof(why));
	if (!buf)
		fprintf(stderr, "staffer health: %s\n", why);
	return buf;
}

static const char *health_status_name(int s)
{
	switch (s) {
	case GRPC__HEALTH__V1__HEALTH_CHECK_RESPONSE__SERVING_STATUS__SERVING:
		return "SERVING";
	case GRPC__HEALTH__V1__HEALTH_CHECK_RESPONSE__SERVING_STATUS__NOT_SERVING:
		return "NOT_SERVING";
	case GRPC__HEALTH__V1__HEALTH_CHECK_RESPONSE__SERVING_STATUS__SERVICE_UNKNOWN:
		return "SERVICE_UNKNOWN";
	}
	return "UNKNOWN";
}

/* The command line. */
struct health_args {
	const char *addr, *service, *ca_path, *cert_path, *key_path;
	const char *server_name;
	double timeout_s;
};

/* HOST:PORT, once. */
static int health_arg(void *ctx, const char *prog, const char *a)
{
	struct health_args *ha = ctx;

	if (ha->addr) {
		fprintf(stderr, "%s: one address, not '%s' too\n", prog, a);
		return 2;
	}
	ha->addr = a;
	return 0;
}

#define HA(f) offsetof(struct health_args, f)

static const struct opt health_opts[] = {
	OPT_D("--timeout", HA(timeout_s), 0.1, 300, "seconds", 0),
	OPT_S("--service", HA(service), 0),
	OPT_S("--tls-ca", HA(ca_path), 0),
	OPT_S("--tls-cert", HA(cert_path), 0),
	OPT_S("--tls-key", HA(key_path), 0),
	OPT_S("--server-name", HA(server_name), 0),
	OPT_END,
};

static const struct opt_spec health_spec = {
	"staffer health", health_opts, usage, health_arg
};

int cmd_health(int argc, char **argv)
{
	enum opt_rc r;
	const char *addr = NULL, *service = "", *ca_path = NULL;
	const char *cert_path = NULL, *key_path = NULL, *server_name = NULL;
	char *ca = NULL, *cert = NULL, *key = NULL;
	struct health_args ha;
	double timeout_s;
	Grpc__Health__V1__HealthCheckRequest req =
		GRPC__HEALTH__V1__HEALTH_CHECK_REQUEST__INIT;
	Grpc__Health__V1__HealthCheckResponse *resp = NULL;
	grpc_channel_credentials *creds = NULL;
	grpc_channel *ch = NULL;
	grpc_completion_queue *cq = NULL;
	grpc_call *call = NULL;
	grpc_byte_buffer *send = NULL, *recv = NULL;
	grpc_metadata_array md_init, md_trail;
	grpc_status_code status = GRPC_STATUS_UNKNOWN;
	grpc_slice details = grpc_empty_slice(), method;
	grpc_ssl_pem_key_cert_pair pair;
	grpc_arg arg;
	grpc_channel_args args = { 0, NULL };
	grpc_op ops[6];
	grpc_event ev;
	gpr_timespec deadline;
	int rc = 2, up = 0;

	memset(&ha, 0, sizeof(ha));
	ha.service = "";
	ha.timeout_s = 5;
	r = opt_parse(&health_spec, argc, argv, &ha);
	if (r != OPT_OK)
		return opt_status(r);
	addr = ha.addr;
	service = ha.service;
	ca_path = ha.ca_path;
	cert_path = ha.cert_path;
	key_path = ha.key_path;
	server_name = ha.server_name;
	timeout_s = ha.timeout_s;
	if (!addr) {
		fprintf(stderr, "staffer health: no address given\n");
		usage(stderr);
		return 2;
	}
	if ((cert_path || key_path || server_name) && !ca_path) {
		fprintf(stderr, "staffer health: --tls-cert, --tls-key and "
			"--server-name need --tls-ca\n");
		return 2;
	}
	if (!cert_path != !key_path) {
		fprintf(stderr, "staffer health: --tls-cert and --tls-key go "
			"together\n");
		return 2;
	}

	grpc_metadata_array_init(&md_init);
	grpc_metadata_array_init(&md_trail);
	grpc_init();
	up = 1;
	rc = 1;
	if (ca_path) {
		ca = health_read(ca_path);
		cert = ca && cert_path ? health_read(cert_path) : NULL;
		key = cert ? health_read(key_path) : NULL;
		if (!ca || (cert_path && !key))
			goto out;
		pair.cert_chain = cert;
		pair.private_key = key;
		creds = grpc_ssl_credentials_create(ca, cert ? &pair : NULL,
						    NULL, NULL);
		if (server_name) {
			arg.type = GRPC_ARG_STRING;
			arg.key = (char *)GRPC_SSL_TARGET_NAME_OVERRIDE_ARG;
			arg.value.string = (char *)server_name;
			args.num_args = 1;
			args.args = &arg;
		}
	} else {
		creds = grpc_insecure_credentials_create();
	}
	ch = creds ? grpc_channel_create(addr, creds, &args) : NULL;
	if (!ch) {
		fprintf(stderr, "staffer health: cannot use '%.100s' or the "
			"TLS files\n", addr);
		goto out;
	}
	req.service = (char *)service;
	send = pb_pack(&req.base);
	cq = grpc_completion_queue_create_for_next(NULL);
	deadline = gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC),
				gpr_time_from_millis((int64_t)(timeout_s * 1000),
						     GPR_TIMESPAN));
	method = grpc_slice_from_static_string("/grpc.health.v1.Health/Check");
	call = grpc_channel_create_call(ch, NULL, GRPC_PROPAGATE_DEFAULTS, cq,
					method, NULL, deadline, NULL);
	if (!send || !call) {
		fprintf(stderr, "staffer health: out of memory\n");
		goto out;
	}
	memset(ops, 0, sizeof(ops));
	ops[0].op = GRPC_OP_SEND_INITIAL_METADATA;
	ops[1].op = GRPC_OP_SEND_MESSAGE;
	ops[1].data.send_message.send_message = send;
	ops[2].op = GRPC_OP_SEND_CLOSE_FROM_CLIENT;
	ops[3].op = GRPC_OP_RECV_INITIAL_METADATA;
	ops[3].data.recv_initial_metadata.recv_initial_metadata = &md_init;
	ops[4].op = GRPC_OP_RECV_MESSAGE;
	ops[4].data.recv_message.recv_message = &recv;
	ops[5].op = GRPC_OP_RECV_STATUS_ON_CLIENT;
	ops[5].data.recv_status_on_client.trailing_metadata = &md_trail;
	ops[5].data.recv_status_on_client.status = &status;
	ops[5].data.recv_status_on_client.status_details = &details;
	if (grpc_call_start_batch(call, ops, 6, call, NULL) != GRPC_CALL_OK) {
		fprintf(stderr, "staffer health: cannot start the call\n");
		goto out;
	}
	/* The call's own deadline ends it: the one batch completes. */
	ev = grpc_completion_queue_next(cq, gpr_inf_future(GPR_CLOCK_REALTIME),
					NULL);
	if (ev.type != GRPC_OP_COMPLETE || !ev.success) {
		fprintf(stderr, "staffer health: %s: the call did not "
			"complete\n", addr);
		goto out;
	}
	if (status != GRPC_STATUS_OK) {
		fprintf(stderr, "staffer health: %s: %s: %.*s\n", addr,
			status == GRPC_STATUS_DEADLINE_EXCEEDED ?
			"no answer within the timeout" :
			status == GRPC_STATUS_UNAVAILABLE ? "unavailable" :
			"error status",
			(int)(GRPC_SLICE_LENGTH(details) > 300 ? 300 :
			      GRPC_SLICE_LENGTH(details)),
			(const char *)GRPC_SLICE_START_PTR(details));
		goto out;
	}
	resp = (Grpc__Health__V1__HealthCheckResponse *)pb_unpack(
		&grpc__health__v1__health_check_response__descriptor, recv,
		HEALTH_REPLY_MAX, NULL);
	if (!resp) {
		fprintf(stderr, "staffer health: %s: not a "
			"HealthCheckResponse\n", addr);
		goto out;
	}
	printf("%s\n", health_status_name(resp->status));
	rc = resp->status ==
	     GRPC__HEALTH__V1__HEALTH_CHECK_RESPONSE__SERVING_STATUS__SERVING ?
	     0 : 1;
out:
	if (resp)
		grpc__health__v1__health_check_response__free_unpacked(resp,
									NULL);
	if (send)
		grpc_byte_buffer_destroy(send);
	if (recv)
		grpc_byte_buffer_destroy(recv);
	grpc_slice_unref(details);
	grpc_metadata_array_destroy(&md_init);
	grpc_metadata_array_destroy(&md_trail);
	if (call)
		grpc_call_unref(call);
	if (cq) {
		grpc_completion_queue_shutdown(cq);
		while (grpc_completion_queue_next(cq, gpr_inf_future(
			GPR_CLOCK_REALTIME), NULL).type != GRPC_QUEUE_SHUTDOWN)
			;
		grpc_completion_queue_destroy(cq);
	}
	if (ch)
		grpc_channel_destroy(ch);
	if (creds)
		grpc_channel_credentials_release(creds);
	free(ca);
	free(cert);
	free(key);
	if (up)
		grpc_shutdown();
	return rc;
}
