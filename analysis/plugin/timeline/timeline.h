/* SPDX-License-Identifier: MIT */
/*
 * sink.slub.timeline: the life of each slab, one line (text or JSON) per
 * transition, filtered by slab, cache, thread and time range.
 */
#ifndef SLUB_PLUGIN_TIMELINE_H
#define SLUB_PLUGIN_TIMELINE_H

#include <babeltrace2/babeltrace.h>

bt_component_class_initialize_method_status
slub_timeline_init(bt_self_component_sink *self, bt_self_component_sink_configuration *config,
		const bt_value *params, void *init_data);
bt_component_class_sink_graph_is_configured_method_status
slub_timeline_graph_is_configured(bt_self_component_sink *self);
bt_component_class_sink_consume_method_status slub_timeline_consume(bt_self_component_sink *self);
void slub_timeline_finalize(bt_self_component_sink *self);

#endif /* SLUB_PLUGIN_TIMELINE_H */
