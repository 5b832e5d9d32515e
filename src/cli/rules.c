/* SPDX-License-Identifier: MIT */
/*
 * slubtrace rules: the checker's rules and the SLUB transition table, as
 * text or as a Graphviz DOT graph (`slubtrace rules --dot | dot -Tsvg`),
 * of the classic generation or (--generation sheaves) of Linux 7.0's
 * sheaves.  They come from analysis/model/table.c and sheaves.c, the
 * tables the checker runs on.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "slub_model.h"

void cmd_rules_usage(FILE *f)
{
	fprintf(f,
		"Usage: slubtrace rules [--generation classic|sheaves] [--dot]\n"
		"\n"
		"Print the rules the checker enforces (stable id, meaning, kernel function)\n"
		"and the table of allowed slab state transitions with their conditions.\n"
		"\n"
		"  --generation G  the rules and table of generation G: classic (the\n"
		"                  default, cpu slabs and cpu partial lists) or sheaves\n"
		"                  (Linux 7.0's percpu sheaves and barns: slabs never\n"
		"                  frozen, the S rules)\n"
		"  --dot           the transition table as a Graphviz graph instead\n"
		"  -h, --help      show this help\n");
}

/* The table of the generation asked for. */
struct table {
	int sheaves;
	unsigned (*count)(void);
	const struct slub_transition *(*get)(unsigned i);
};

static void print_rules(const struct table *tb)
{
	unsigned skip = tb->sheaves ? SLUB_RULE_GEN_CLASSIC : SLUB_RULE_GEN_SHEAVES;

	if (tb->sheaves)
		printf("Rules of the sheaves generation (S0 is its transition table itself; the\n"
		       "slabs are never frozen: being off every list, where a refill puts them,\n"
		       "is what freezing was), then the classic rules that judge it too:\n\n");
	else
		printf("Rules (the invariant families of doc/design.md; R0 is the transition table "
		       "itself):\n\n");
	for (unsigned pass = 0; pass < 2; pass++)
		for (unsigned r = 0; r < slub_rule_count(); r++) {
			unsigned g = slub_rule_generation(r);

			if (g == skip || (tb->sheaves && (g == SLUB_RULE_GEN_SHEAVES) != !pass) ||
			    (!tb->sheaves && pass))
				continue;
			printf("  %-20s %s\n  %-20s   kernel: %s\n", slub_rule_id(r),
			       slub_rule_meaning(r), "", slub_rule_kernel_fn(r));
		}
}

static void print_text(const struct table *tb)
{
	char cond[96];

	print_rules(tb);
	printf("\nTransitions (state before, event [at site] -> state after; list after;\n"
	       "conditions: owner = acting cpu owns the slab, locked = node list_lock held,\n"
	       "on_list = on the list named, empty = inuse 0, flush = another slot's flush\n"
	       "may act, takes = the freelist is taken, dest = the event's destination%s):\n\n",
	       tb->sheaves ? ",\noff_list = on no list" : "");
	printf("  %-12s %-18s %-18s %-12s %-11s %-24s %s\n", "before", "event", "site", "after",
	       "list", "conditions", "kernel function");
	for (unsigned i = 0; i < tb->count(); i++) {
		const struct slub_transition *t = tb->get(i);

		printf("  %-12s %-18s %-18s %-12s %-11s %-24s %s\n", slub_state_name(t->before),
		       slub_event_name(t->type), t->site ? slub_site_name(t->site) : "-",
		       slub_state_name(t->after), slub_model_list_name(t->list),
		       slub_cond_str(t->cond, cond, sizeof(cond)), t->kernel_fn);
		printf("  %-12s   %s\n", "", t->note);
	}
}

static void print_dot(const struct table *tb)
{
	static const char *const color[SLUB_STATE_NR] = {
		[SLUB_STATE_UNKNOWN] = "gray80",     [SLUB_STATE_CPU_ACTIVE] = "lightskyblue",
		[SLUB_STATE_CPU_PARTIAL] = "lightblue1", [SLUB_STATE_NODE_PARTIAL] = "palegreen",
		[SLUB_STATE_FULL] = "khaki1",         [SLUB_STATE_DISCARDED] = "lightpink",
	};
	char cond[96];

	if (tb->sheaves)
		printf("// slubtrace rules --generation sheaves --dot: the sheaves generation's slab "
		       "state machine (analysis/model/sheaves.c)\n");
	else
		printf("// slubtrace rules --dot: the SLUB slab state machine "
		       "(analysis/model/table.c)\n");
	printf("digraph slub {\n");
	printf("\trankdir=LR;\n\tnode [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\"];\n");
	printf("\tedge [fontname=\"Helvetica\", fontsize=9];\n");
	printf("\tUNKNOWN [label=\"(new pages)\"];\n");
	for (unsigned s = 1; s < SLUB_STATE_NR; s++)
		if (!tb->sheaves || (s != SLUB_STATE_CPU_ACTIVE && s != SLUB_STATE_CPU_PARTIAL))
			printf("\t%s [fillcolor=%s];\n", slub_state_name(s), color[s]);
	if (tb->sheaves) {
		printf("\tNODE_PARTIAL [label=<NODE_PARTIAL<br/><font point-size=\"9\">n-&gt;partial, "
		       "or off it for a refill</font>>];\n");
		printf("\tFULL [label=<FULL<br/><font point-size=\"9\">objects allocated or in "
		       "sheaves</font>>];\n");
	} else {
		printf("\tCPU_ACTIVE [label=<CPU_ACTIVE<br/><font point-size=\"9\">frozen, c-&gt;slab</font>>];\n");
		printf("\tCPU_PARTIAL [label=<CPU_PARTIAL<br/><font point-size=\"9\">frozen, c-&gt;partial</font>>];\n");
		printf("\tNODE_PARTIAL [label=<NODE_PARTIAL<br/><font point-size=\"9\">n-&gt;partial</font>>];\n");
		printf("\tFULL [label=<FULL<br/><font point-size=\"9\">n-&gt;full when tracked</font>>];\n");
	}
	/* One arrow per (before, after): its label lists every event of it. */
	for (unsigned i = 0; i < tb->count(); i++) {
		const struct slub_transition *t = tb->get(i);
		int first = 1;

		for (unsigned j = 0; j < i; j++) {
			const struct slub_transition *u = tb->get(j);

			if (u->before == t->before && u->after == t->after)
				first = 0;
		}
		if (!first)
			continue;
		printf("\t%s -> %s [style=%s, label=\"", slub_state_name(t->before),
		       slub_state_name(t->after), t->before == t->after ? "dashed" : "solid");
		for (unsigned j = i; j < tb->count(); j++) {
			const struct slub_transition *u = tb->get(j);

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
	struct table tb = { 0, slub_transition_count, slub_transition_get };
	int dot = 0;

	for (int i = 1; i < argc; i++) {
		const char *g = NULL;

		if (!strcmp(argv[i], "--generation") && i + 1 < argc)
			g = argv[++i];
		else if (!strncmp(argv[i], "--generation=", 13))
			g = argv[i] + 13;
		if (g) {
			if (!strcmp(g, "sheaves")) {
				tb = (struct table){ 1, slub_sheaves_transition_count,
						     slub_sheaves_transition_get };
			} else if (strcmp(g, "classic")) {
				cli_err("rules: unknown generation '%s' (classic, sheaves)", g);
				return CLI_EXIT_USAGE;
			}
		} else if (!strcmp(argv[i], "--dot")) {
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
		print_dot(&tb);
	else
		print_text(&tb);
	return fflush(stdout) ? 1 : 0;
}
