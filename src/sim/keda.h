/*
 * keda.h - KEDA's scale loop for one ScaledObject: activation 0 <-> 1.
 *
 * Follows kedacore/keda pkg/scaling/executor/scale_scaledobjects.go
 * (docs/deploy.md, "Polling, cooldown, push", says the same for users).  Every pollingInterval
 * (default 30 s) KEDA asks the scaler IsActive (after GetMetrics):
 *  - active: lastActiveTime = now; with 0 replicas it scales the target
 *    to max(minReplicaCount, 1);
 *  - inactive with minReplicaCount 0: once cooldownPeriod (default 300 s)
 *    has passed since lastActiveTime (or at once, if it was never active:
 *    initialCooldownPeriod 0) it scales the target to 0;
 *  - below minReplicaCount: back to minReplicaCount.
 * Everything else is the HPA's job (its minReplicas is
 * max(minReplicaCount, 1), so it never goes to 0 itself, and does nothing
 * while the target has 0 replicas).  Plain data, no I/O.
 */
#ifndef STAFFER_KEDA_H
#define STAFFER_KEDA_H

#include <stdint.h>

struct keda_config {
	int32_t min_replica_count;  /* >= 0 (0 enables scale to zero) */
	double cooldown_s;          /* cooldownPeriod, default 300 */
	double poll_s;              /* pollingInterval, default 30 */
};

struct keda {
	struct keda_config cfg;
	double last_active_s;
	int ever_active;
};

void keda_config_init(struct keda_config *c);
void keda_init(struct keda *k, const struct keda_config *c);

/* One poll at time now with the scaler's answer and the target's current
 * replicas.  Returns the replicas KEDA sets, or -1 when it leaves the
 * target to the HPA. */
int32_t keda_poll(struct keda *k, double now, int active, int32_t current);

#endif
