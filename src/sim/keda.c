/* keda.c - see keda.h. */
#include "keda.h"

#include <string.h>

void keda_config_init(struct keda_config *c)
{
	c->min_replica_count = 1;
	c->cooldown_s = 300;
	c->poll_s = 30;
}

void keda_init(struct keda *k, const struct keda_config *c)
{
	memset(k, 0, sizeof(*k));
	k->cfg = *c;
}

int32_t keda_poll(struct keda *k, double now, int active, int32_t current)
{
	int32_t min = k->cfg.min_replica_count;

	if (active) {
		k->last_active_s = now;
		k->ever_active = 1;
		if (current == 0)
			return min > 0 ? min : 1;
		return -1;
	}
	if (min == 0 && current > 0) {
		if (!k->ever_active ||
		    now - k->last_active_s > k->cfg.cooldown_s)
			return 0;
		return -1;
	}
	if (current < min)
		return min;
	return -1;
}
