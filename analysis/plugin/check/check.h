/* SPDX-License-Identifier: MIT */
/*
 * sink.slub.check: replays a slubtrace trace against the SLUB state model
 * and reports every transition that breaks an invariant, then a one-line
 * verdict.
 */
#ifndef SLUB_PLUGIN_CHECK_H
#define SLUB_PLUGIN_CHECK_H

#include <babeltrace2/babeltrace.h>

bt_component_class_initialize_method_status
slub_check_init(bt_self_component_sink *self, bt_self_component_sink_configuration *config,
		const bt_value *params, void *init_data);
bt_component_class_sink_graph_is_configured_method_status
slub_check_graph_is_configured(bt_self_component_sink *self);
bt_component_class_sink_consume_method_status slub_check_consume(bt_self_component_sink *self);
void slub_check_finalize(bt_self_component_sink *self);

#endif /* SLUB_PLUGIN_CHECK_H */
