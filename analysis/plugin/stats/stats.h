/* SPDX-License-Identifier: MIT */
/*
 * sink.slub.stats: the `slabinfo -r` page of each cache, redos per site,
 * list_lock figures, retry storms, top-N views and normalised rates,
 * rebuilt from a slubtrace trace (analysis/stats).
 */
#ifndef SLUB_PLUGIN_STATS_H
#define SLUB_PLUGIN_STATS_H

#include <babeltrace2/babeltrace.h>

bt_component_class_initialize_method_status
slub_stats_init(bt_self_component_sink *self, bt_self_component_sink_configuration *config,
		const bt_value *params, void *init_data);
bt_component_class_sink_graph_is_configured_method_status
slub_stats_graph_is_configured(bt_self_component_sink *self);
bt_component_class_sink_consume_method_status slub_stats_consume(bt_self_component_sink *self);
void slub_stats_finalize(bt_self_component_sink *self);

#endif /* SLUB_PLUGIN_STATS_H */
