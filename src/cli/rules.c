/* SPDX-License-Identifier: MIT */
/*
 * slubtrace rules: the checker's rules and the SLUB transition table, as
 * text or as a Graphviz DOT graph (`slubtrace rules --dot | dot -Tsvg`).
 * Both come from analysis/model/table.c, the tables the checker runs on.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "slub_model.h"

void cmd_rules_usage(FILE *f)
{
	fprintf(f,
		"Usage: slubtrace rules [--dot]\n"
		"\n"
		"Print the rules the checker enforces (stable id, meaning, kernel function)\n"
		"and the table of allowed slab state transitions with their conditions.\n"
		"\n"
		"  --dot       the transition table as a Graphviz graph instead\n"
		"  -h, --help  show this help\n");
}

static void print_text(void)
{
	char cond[96];

	printf("Rules (the invariant families of doc/design.md; R0 is the transition table itself):\n\n");
	for (unsigned r = 0; r < slub_rule_count(); r++)
		printf("  %-20s %s\n  %-20s   kernel: %s\n", slub_rule_id(r), slub_rule_meaning(r), "",
		       slub_rule_kernel_fn(r));
	printf("\nTransitions (state before, event [at site] -> state after; list after;\n"
	       "conditions: owner = acting cpu owns the slab, locked = node list_lock held,\n"
	       "on_list = on the list named, empty = inuse 0, flush = another slot's flush\n"
	       "may act, takes = the freelist is taken, dest = the event's destination):\n\n");
	printf("  %-12s %-18s %-18s %-12s %-11s %-24s %s\n", "before", "event", "site", "after",
	       "list", "conditions", "kernel function");
	for (unsigned i = 0; i < slub_transition_count(); i++) {
		const struct slub_transition *t = slub_transition_get(i);

		printf("  %-12s %-18s %-18s %-12s %-11s %-24s %s\n", slub_state_name(t->before),
		       slub_event_name(t->type), t->site ? slub_site_name(t->site) : "-",
		       slub_state_name(t->after), slub_model_list_name(t->list),
		       slub_cond_str(t->cond, cond, sizeof(cond)), t->kernel_fn);
		printf("  %-12s   %s\n", "", t->note);
	}
}

static void print_dot(void)
{
	static const char *const color[SLUB_STATE_NR] = {
		[SLUB_STATE_UNKNOWN] = "gray80",     [SLUB_STATE_CPU_ACTIVE] = "lightskyblue",
		[SLUB_STATE_CPU_PARTIAL] = "lightblue1", [SLUB_STATE_NODE_PARTIAL] = "palegreen",
		[SLUB_STATE_FULL] = "khaki1",         [SLUB_STATE_DISCARDED] = "lightpink",
	};
	char cond[96];

	printf("// slubtrace rules --dot: the SLUB slab state machine (analysis/model/table.c)\n");
	printf("digraph slub {\n");
	printf("\trankdir=LR;\n\tnode [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\"];\n");
	printf("\tedge [fontname=\"Helvetica\", fontsize=9];\n");
	printf("\tUNKNOWN [label=\"(new pages)\"];\n");
	for (unsigned s = 1; s < SLUB_STATE_NR; s++)
		printf("\t%s [fillcolor=%s];\n", slub_state_name(s), color[s]);
	printf("\tCPU_ACTIVE [label=<CPU_ACTIVE<br/><font point-size=\"9\">frozen, c-&gt;slab</font>>];\n");
	printf("\tCPU_PARTIAL [label=<CPU_PARTIAL<br/><font point-size=\"9\">frozen, c-&gt;partial</font>>];\n");
	printf("\tNODE_PARTIAL [label=<NODE_PARTIAL<br/><font point-size=\"9\">n-&gt;partial</font>>];\n");
	printf("\tFULL [label=<FULL<br/><font point-size=\"9\">n-&gt;full when tracked</font>>];\n");
	/* One arrow per (before, after): its label lists every event of it. */
	for (unsigned i = 0; i < slub_transition_count(); i++) {
		const struct slub_transition *t = slub_transition_get(i);
		int first = 1;

		for (unsigned j = 0; j < i; j++) {
			const struct slub_transition *u = slub_transition_get(j);

			if (u->before == t->before && u->after == t->after)
				first = 0;
		}
		if (!first)
			continue;
		printf("\t%s -> %s [style=%s, label=\"", slub_state_name(t->before),
		       slub_state_name(t->after), t->before == t->after ? "dashed" : "solid");
		for (unsigned j = i; j < slub_transition_count(); j++) {
			const struct slub_transition *u = slub_transition_get(j);

			if (u->before != t->before || u->after != t->after)
				continue;
			printf("%s%s%s [%s]\\l", slub_event_name(u->type), u->site ? " @" : "",
			       u->site ? slub_site_name(u->site) : "",
			       slub_cond_str(u->cond, cond, sizeof(cond)));
		}
		printf("\"];\n");
	}
	printf("}\n");
}

int cmd_rules(int argc, char **argv)
{
	int dot = 0;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--dot")) {
			dot = 1;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			cmd_rules_usage(stdout);
			return 0;
		} else {
			cli_err("rules: unknown option '%s'", argv[i]);
			cmd_rules_usage(stderr);
			return CLI_EXIT_USAGE;
		}
	}
	if (dot)
		print_dot();
	else
		print_text();
	return fflush(stdout) ? 1 : 0;
}
