/* SPDX-License-Identifier: MIT */
/*
 * babeltrace-plugin-slub.so: the component classes, and nothing else.
 *
 *   sink.slub.check     invariant violations of the SLUB state machine
 *   sink.slub.timeline  per-slab timelines, text or JSON lines
 *   sink.slub.stats     slabinfo -r rebuilt from events, redos, locks, storms
 *   sink.slub.report    the data of `slubtrace report` (JSON, two passes)
 */
#include <babeltrace2/babeltrace.h>

#include "check/check.h"
#include "report/report.h"
#include "stats/stats.h"
#include "timeline/timeline.h"

BT_PLUGIN_MODULE();

BT_PLUGIN(slub);
BT_PLUGIN_DESCRIPTION("slubtrace: SLUB slab state timelines and invariant checks");
BT_PLUGIN_AUTHOR("slubtrace");
BT_PLUGIN_LICENSE("MIT");

BT_PLUGIN_SINK_COMPONENT_CLASS(check, slub_check_consume);
BT_PLUGIN_SINK_COMPONENT_CLASS_DESCRIPTION(check,
	"Replay a slubtrace trace against the SLUB state model and report every "
	"transition that breaks an invariant, then a one-line verdict.");
BT_PLUGIN_SINK_COMPONENT_CLASS_HELP(check,
	"Parameters: history=N (events of the slab shown, default 8), max-reports=N "
	"(default 100, 0 = all), fail-on-violation=yes (error when violations exist), "
	"reorder-ns=NS, reorder-events=N (the reorder window).");
BT_PLUGIN_SINK_COMPONENT_CLASS_INITIALIZE_METHOD(check, slub_check_init);
BT_PLUGIN_SINK_COMPONENT_CLASS_GRAPH_IS_CONFIGURED_METHOD(check, slub_check_graph_is_configured);
BT_PLUGIN_SINK_COMPONENT_CLASS_FINALIZE_METHOD(check, slub_check_finalize);

BT_PLUGIN_SINK_COMPONENT_CLASS(timeline, slub_timeline_consume);
BT_PLUGIN_SINK_COMPONENT_CLASS_DESCRIPTION(timeline,
	"Print each slab's state transitions, one line per transition, as text or JSON lines, "
	"or write them as a Trace Event Format trace (Perfetto UI, chrome://tracing).");
BT_PLUGIN_SINK_COMPONENT_CLASS_HELP(timeline,
	"Parameters: slab=\"0xADDR\", cache=\"NAME\", tid=N, begin=NS|\"SEC.FRAC\", "
	"end=NS|\"SEC.FRAC\", format=\"text\"|\"json\"|\"chrome\" (Trace Event Format for "
	"Perfetto UI), json=yes, reorder-ns=NS, reorder-events=N.");
BT_PLUGIN_SINK_COMPONENT_CLASS_INITIALIZE_METHOD(timeline, slub_timeline_init);
BT_PLUGIN_SINK_COMPONENT_CLASS_GRAPH_IS_CONFIGURED_METHOD(timeline,
	slub_timeline_graph_is_configured);
BT_PLUGIN_SINK_COMPONENT_CLASS_FINALIZE_METHOD(timeline, slub_timeline_finalize);

BT_PLUGIN_SINK_COMPONENT_CLASS(stats, slub_stats_consume);
BT_PLUGIN_SINK_COMPONENT_CLASS_DESCRIPTION(stats,
	"Rebuild each cache's slabinfo -r page, redos per site, list_lock figures and "
	"retry storms (each failed CAS attributed to the update that beat it) from the trace.");
BT_PLUGIN_SINK_COMPONENT_CLASS_HELP(stats,
	"Parameters: format=\"text\"|\"json\"|\"none\", sections=\"slabinfo,sites,locks,storms,top,rates\", "
	"cache=\"NAME\", json-path=\"FILE\", procname=\"NAME\", run-attempts=N, window-failures=N, window-ns=NS, "
	"lookback=N, pending-ns=NS, top=N, max-storms=N.");
BT_PLUGIN_SINK_COMPONENT_CLASS_INITIALIZE_METHOD(stats, slub_stats_init);
BT_PLUGIN_SINK_COMPONENT_CLASS_GRAPH_IS_CONFIGURED_METHOD(stats, slub_stats_graph_is_configured);
BT_PLUGIN_SINK_COMPONENT_CLASS_FINALIZE_METHOD(stats, slub_stats_finalize);

BT_PLUGIN_SINK_COMPONENT_CLASS(report, slub_report_consume);
BT_PLUGIN_SINK_COMPONENT_CLASS_DESCRIPTION(report,
	"Write the data of slubtrace's HTML report as JSON: verdict, violations, storms over "
	"time, top slabs (pass=scan), then the chosen slabs' swimlanes (pass=lanes).");
BT_PLUGIN_SINK_COMPONENT_CLASS_HELP(report,
	"Parameters: pass=\"scan\"|\"lanes\", data-path=\"FILE\", slabs-path=\"FILE\", "
	"stats-path=\"FILE\" (scan), top=N, max-violations=N, history=N, reorder-ns=NS, "
	"reorder-events=N.");
BT_PLUGIN_SINK_COMPONENT_CLASS_INITIALIZE_METHOD(report, slub_report_init);
BT_PLUGIN_SINK_COMPONENT_CLASS_GRAPH_IS_CONFIGURED_METHOD(report, slub_report_graph_is_configured);
BT_PLUGIN_SINK_COMPONENT_CLASS_FINALIZE_METHOD(report, slub_report_finalize);
