/* SPDX-License-Identifier: MIT */
/*
 * babeltrace-plugin-slub.so: the component classes, and nothing else.
 *
 *   sink.slub.check     invariant violations of the SLUB state machine
 *   sink.slub.timeline  per-slab timelines, text or JSON lines
 *   sink.slub.stats     slabinfo -r rebuilt from events, redos, locks, storms
 *   sink.slub.report    the data of `slubtrace report` (JSON, two passes)
 *   sink.slub.top       per interval: rates, redos, storms, locks (slubtrace top)
 */
#include <babeltrace2/babeltrace.h>

#include "check/check.h"
#include "report/report.h"
#include "stats/stats.h"
#include "timeline/timeline.h"
#include "top/top.h"

BT_PLUGIN_MODULE();

BT_PLUGIN(slub);
BT_PLUGIN_DESCRIPTION("slubtrace: SLUB slab state timelines and invariant checks");
BT_PLUGIN_AUTHOR("the slubtrace developers");
BT_PLUGIN_LICENSE("MIT");
BT_PLUGIN_VERSION(SLUBTRACE_VERSION_MAJOR, SLUBTRACE_VERSION_MINOR, SLUBTRACE_VERSION_PATCH, "");

/*
 * Each component's help is one parameter a line, "  NAME=VALUE  meaning";
 * `babeltrace2 help sink.slub.NAME` prints it and the manual pages
 * babeltrace2-sink.slub.NAME(7) are made from it (`slubtrace help --man`).
 */
#define P(name_value, meaning) "  " name_value "\n      " meaning "\n"
#define REORDER_PARAMS \
	P("reorder-ns=NS", "how long an event may wait for its predecessor in seq order " \
	  "(default 1000000000, 1 s; measured worst delay 39 ms on 2 cores)") \
	P("reorder-events=N", "events that may wait at once before the oldest gap is given " \
	  "up (default 262144)") \
	P("window-begin=NS", "the input is a window cut out of a longer run, read from NS " \
	  "(ns from the clock's origin; slubtrace gives a flight-recorder snapshot's): a " \
	  "slab's seq gap whose updates may have been traced before it is counted, not " \
	  "judged (default 0, not cut)") \
	P("window-end=NS", "... read up to NS: a seq gap still open at the end whose updates " \
	  "may have been traced after it is counted, not judged (default 0, not cut)") \
	P("window-lag-ns=NS", "how far from the window's edges such a gap may be (default: " \
	  "the longest CAS-to-event delay the input shows, at least 50000000, 50 ms)")

BT_PLUGIN_SINK_COMPONENT_CLASS(check, slub_check_consume);
BT_PLUGIN_SINK_COMPONENT_CLASS_DESCRIPTION(check,
	"Replay a slubtrace trace against the SLUB state model and report every "
	"transition that breaks an invariant, then a one-line verdict.");
BT_PLUGIN_SINK_COMPONENT_CLASS_HELP(check,
	"Parameters:\n"
	P("history=N", "events of the slab shown before a violation (default 8)")
	P("max-reports=N", "violations printed in full, the others counted (default 100, "
	  "0 = all)")
	P("fail-on-violation=BOOL", "end the graph with an error when violations exist, so "
	  "that babeltrace2 exits non-zero (default no)")
	P("cache=\"NAME\"", "report only the violations of this cache; the model still reads "
	  "every event, and the verdict counts the events and violations of the filter and "
	  "names it (a cache the trace does not announce is an error naming those it does)")
	P("procname=\"NAME\"", "report only the violations of the processes of this name "
	  "(their main thread's LTTng procname, or its threads' when the main thread emits "
	  "no event), as cache does")
	P("hosts=BOOL", "prefix every line of a report with [HOST], the trace environment's "
	  "hostname, and end with a verdict per host (default no; done anyway once a second "
	  "host is seen)")
	REORDER_PARAMS);
BT_PLUGIN_SINK_COMPONENT_CLASS_INITIALIZE_METHOD(check, slub_check_init);
BT_PLUGIN_SINK_COMPONENT_CLASS_GRAPH_IS_CONFIGURED_METHOD(check, slub_check_graph_is_configured);
BT_PLUGIN_SINK_COMPONENT_CLASS_FINALIZE_METHOD(check, slub_check_finalize);

BT_PLUGIN_SINK_COMPONENT_CLASS(timeline, slub_timeline_consume);
BT_PLUGIN_SINK_COMPONENT_CLASS_DESCRIPTION(timeline,
	"Print each slab's state transitions, one line per transition, as text or JSON lines, "
	"or write them as a Trace Event Format trace (Perfetto UI, chrome://tracing).");
BT_PLUGIN_SINK_COMPONENT_CLASS_HELP(timeline,
	"Parameters (all optional; every filter given must match):\n"
	P("slab=\"0xADDR\"", "only this slab (an address string, or an integer)")
	P("cache=\"NAME\"", "only slabs of this cache")
	P("tid=N", "only transitions made by this thread (vtid)")
	P("procname=\"NAME\"", "only transitions made by the processes of this name (their "
	  "main thread's LTTng procname, or its threads'; a name no process has is an error)")
	P("begin=NS|\"SEC.FRAC\"", "only transitions at or after this time: ns from the "
	  "clock's origin, or seconds with a fraction")
	P("end=NS|\"SEC.FRAC\"", "only transitions at or before this time")
	P("format=\"text\"|\"json\"|\"chrome\"", "text lines (default), one JSON object "
	  "per line, or Trace Event Format JSON for Perfetto UI (there tid selects the "
	  "thread tracks and counters)")
	P("json=BOOL", "the same as format=\"json\"")
	REORDER_PARAMS);
BT_PLUGIN_SINK_COMPONENT_CLASS_INITIALIZE_METHOD(timeline, slub_timeline_init);
BT_PLUGIN_SINK_COMPONENT_CLASS_GRAPH_IS_CONFIGURED_METHOD(timeline,
	slub_timeline_graph_is_configured);
BT_PLUGIN_SINK_COMPONENT_CLASS_FINALIZE_METHOD(timeline, slub_timeline_finalize);

BT_PLUGIN_SINK_COMPONENT_CLASS(stats, slub_stats_consume);
BT_PLUGIN_SINK_COMPONENT_CLASS_DESCRIPTION(stats,
	"Rebuild each cache's slabinfo -r page, redos per site, list_lock figures and "
	"retry storms (each failed CAS attributed to the update that beat it) from the trace.");
BT_PLUGIN_SINK_COMPONENT_CLASS_HELP(stats,
	"Parameters:\n"
	P("format=\"text\"|\"json\"|\"none\"", "the report as text (default), the whole "
	  "result as JSON (schema slubtrace-stats/1), or nothing (with json-path)")
	P("sections=LIST", "text sections, comma-separated: slabinfo, sites, locks, storms, "
	  "top, rates, all (default all)")
	P("cache=\"NAME\"", "only this cache (text; a cache the trace does not announce is an "
	  "error naming those it does)")
	P("procname=\"NAME\"", "only the events of processes of this name (a name no "
	  "process has is an error naming those the trace holds)")
	P("json-path=\"FILE\"", "also write the JSON result to FILE")
	P("run-attempts=N", "a run storm: N consecutive failed attempts of one operation "
	  "(default 4)")
	P("window-failures=N", "a window storm: N failures on one slab or cpu chain, or N "
	  "contended acquisitions of one list_lock, within window-ns (default 16)")
	P("window-ns=NS", "the window of a window storm (default 10000000, 10 ms)")
	P("lookback=N", "updates kept per slab to find a failure's winner (default 8)")
	P("pending-ns=NS", "how long an event waits for the one before it in the model's "
	  "order, a failure for the update that beat it (default 1000000000, 1 s)")
	P("top=N", "rows of the top-N views (default 10)")
	P("max-storms=N", "storms shown in detail, the largest (default 50)"));
BT_PLUGIN_SINK_COMPONENT_CLASS_INITIALIZE_METHOD(stats, slub_stats_init);
BT_PLUGIN_SINK_COMPONENT_CLASS_GRAPH_IS_CONFIGURED_METHOD(stats, slub_stats_graph_is_configured);
BT_PLUGIN_SINK_COMPONENT_CLASS_FINALIZE_METHOD(stats, slub_stats_finalize);

BT_PLUGIN_SINK_COMPONENT_CLASS(report, slub_report_consume);
BT_PLUGIN_SINK_COMPONENT_CLASS_DESCRIPTION(report,
	"Write the data of slubtrace's HTML report as JSON: verdict, violations, storms over "
	"time, top slabs, the generation, sheaf and barn lanes (sheaves), slabs and pages made "
	"and discarded (pass=scan), then the chosen slabs' swimlanes (pass=lanes).");
BT_PLUGIN_SINK_COMPONENT_CLASS_HELP(report,
	"Parameters:\n"
	P("pass=\"scan\"|\"lanes\"", "scan: the verdict, violations, statistics, the "
	  "slabs worth drawing, and for the sheaves generation each cpu slot's main and "
	  "spare sheaf sizes and each node's barn counts over time; lanes: the swimlanes "
	  "of the slabs slabs-path names")
	P("data-path=\"FILE\"", "where the pass writes its JSON")
	P("slabs-path=\"FILE\"", "the slabs to draw, one per line (written by scan, read "
	  "by lanes)")
	P("stats-path=\"FILE\"", "(scan) where the trace statistics are written as JSON")
	P("top=N", "rows per top-N table (default 5)")
	P("max-violations=N", "violations shown in detail (default 20)")
	P("history=N", "events shown before a violation (default 8)")
	P("cache=\"NAME\"", "(scan) the violations, statistics, series and top slabs of this "
	  "cache only; the verdict counts its events and violations and names the filter (the "
	  "model still reads every event); a cache the trace does not announce is an error")
	P("procname=\"NAME\"", "(scan) the same for the processes of this name")
	REORDER_PARAMS);
BT_PLUGIN_SINK_COMPONENT_CLASS_INITIALIZE_METHOD(report, slub_report_init);
BT_PLUGIN_SINK_COMPONENT_CLASS_GRAPH_IS_CONFIGURED_METHOD(report, slub_report_graph_is_configured);
BT_PLUGIN_SINK_COMPONENT_CLASS_FINALIZE_METHOD(report, slub_report_finalize);

BT_PLUGIN_SINK_COMPONENT_CLASS(top, slub_top_consume);
BT_PLUGIN_SINK_COMPONENT_CLASS_DESCRIPTION(top,
	"Per interval of trace time, each cache's allocations, frees, slow-path operations and "
	"failed CAS (redos) per second, the storms that ended, list_lock acquisitions, wait and "
	"longest hold, and the threads with the most redos and lock wait (slubtrace top).");
BT_PLUGIN_SINK_COMPONENT_CLASS_HELP(top,
	"Parameters:\n"
	P("format=\"text\"|\"screen\"", "each interval's table as lines starting with the "
	  "interval's start time (default), or redrawn in place on a terminal (ANSI home and "
	  "clear)")
	P("interval-ns=NS", "the interval, in ns of trace time (default 1000000000, 1 s)")
	P("sort=\"KEY\"", "the caches' order: redo (default), slow, alloc, free, storms, locks, "
	  "wait, hold or name")
	P("top=N", "cache rows per table (default 10)")
	P("threads=N", "thread rows per table, the most redos then lock wait first (default 5)")
	P("counts=BOOL", "counts per interval instead of rates per second (default no)")
	P("quit-fd=FD", "a descriptor to watch: a byte or its end quits after printing the "
	  "interval so far (default -1, none)")
	P("realtime=BOOL", "with format=\"screen\", keep each table up for its interval's "
	  "length, replaying a trace at its own pace (default no)")
	P("hosts=BOOL", "a HOST column (the trace environment's hostname) in both tables; "
	  "the rows are per host and cache anyway (default no; shown once a second host is "
	  "seen)")
	P("cache=\"NAME\"", "count only this cache (its rows, storms and threads); a cache "
	  "the trace does not announce is an error naming those it does")
	P("procname=\"NAME\"", "count only the processes of this name (their main thread's, "
	  "or threads', LTTng procname); a name no process has is an error"));
BT_PLUGIN_SINK_COMPONENT_CLASS_INITIALIZE_METHOD(top, slub_top_init);
BT_PLUGIN_SINK_COMPONENT_CLASS_GRAPH_IS_CONFIGURED_METHOD(top, slub_top_graph_is_configured);
BT_PLUGIN_SINK_COMPONENT_CLASS_FINALIZE_METHOD(top, slub_top_finalize);
