/* SPDX-License-Identifier: MIT */
/*
 * sink.slub.top: per interval of trace time, each cache's allocation,
 * slow path, CAS redo, storm and list_lock figures and the threads most
 * involved, as plain text lines or as a screen refreshed in place.
 */
#ifndef SLUB_PLUGIN_TOP_H
#define SLUB_PLUGIN_TOP_H

#include <babeltrace2/babeltrace.h>

bt_component_class_initialize_method_status
slub_top_init(bt_self_component_sink *self, bt_self_component_sink_configuration *config,
	      const bt_value *params, void *init_data);
bt_component_class_sink_graph_is_configured_method_status
slub_top_graph_is_configured(bt_self_component_sink *self);
bt_component_class_sink_consume_method_status slub_top_consume(bt_self_component_sink *self);
void slub_top_finalize(bt_self_component_sink *self);

#endif /* SLUB_PLUGIN_TOP_H */
