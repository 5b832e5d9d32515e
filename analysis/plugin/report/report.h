/* SPDX-License-Identifier: MIT */
/*
 * sink.slub.report: the data `slubtrace report` draws, written as JSON in
 * two passes over the trace (scan, then the swimlanes of chosen slabs).
 */
#ifndef SLUB_PLUGIN_REPORT_H
#define SLUB_PLUGIN_REPORT_H

#include <babeltrace2/babeltrace.h>

bt_component_class_initialize_method_status
slub_report_init(bt_self_component_sink *self, bt_self_component_sink_configuration *config,
		 const bt_value *params, void *init_data);
bt_component_class_sink_graph_is_configured_method_status
slub_report_graph_is_configured(bt_self_component_sink *self);
bt_component_class_sink_consume_method_status slub_report_consume(bt_self_component_sink *self);
void slub_report_finalize(bt_self_component_sink *self);

#endif /* SLUB_PLUGIN_REPORT_H */
