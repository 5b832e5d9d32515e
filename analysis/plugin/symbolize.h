/* SPDX-License-Identifier: MIT */
/*
 * The symbolizer: return addresses of a `slub:stack` event to function and
 * file:line, from the objects the trace says were loaded in that process
 * (lttng_ust_statedump:bin_info, lttng_ust_dl:dlopen, lttng_ust_lib:load,
 * with their build ids), read with elfutils' libdwfl.  ELF files are opened
 * only when a stack is printed, once per process and object.
 */
#ifndef SLUB_PLUGIN_SYMBOLIZE_H
#define SLUB_PLUGIN_SYMBOLIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct slub_symbolizer;

struct slub_frame {
	const char *path;	/* the object holding ip, NULL when none does */
	uint64_t offset;	/* ip relative to the object's base */
	char function[256];	/* "" when unknown */
	uint64_t function_off;	/* ip - function start */
	char file[512];		/* "" when there is no line information */
	int line;
	bool build_id_mismatch;	/* the file on disk is not the one traced */
};

struct slub_symbolizer *slub_symbolizer_create(void);
void slub_symbolizer_destroy(struct slub_symbolizer *s);

/* A new statedump of vpid (exec, or the first one): forget its objects. */
void slub_sym_reset(struct slub_symbolizer *s, uint32_t vpid);
void slub_sym_load(struct slub_symbolizer *s, uint32_t vpid, uint64_t baddr, uint64_t memsz,
		   const char *path, bool is_pic);
void slub_sym_build_id(struct slub_symbolizer *s, uint32_t vpid, uint64_t baddr,
		       const uint8_t *id, size_t len);
void slub_sym_unload(struct slub_symbolizer *s, uint32_t vpid, uint64_t baddr);
/* A forked child starts with its parent's objects. */
bool slub_sym_known(const struct slub_symbolizer *s, uint32_t vpid);

/* Fills f for a return address ip of vpid; returns 0, or -1 when no object
 * the trace named holds ip (f->path is then NULL). */
int slub_sym_lookup(struct slub_symbolizer *s, uint32_t vpid, uint64_t ip, struct slub_frame *f);

#endif /* SLUB_PLUGIN_SYMBOLIZE_H */
