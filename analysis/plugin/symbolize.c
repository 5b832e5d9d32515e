/* SPDX-License-Identifier: MIT */
/*
 * Stacks to function and file:line.
 *
 * The trace names every object mapped in a process: the statedump at
 * registration (lttng_ust_statedump:bin_info, build_id), then each
 * dlopen/dlclose (lttng_ust_dl:*, lttng_ust_lib:*).  An object's `baddr` is
 * where its first loadable segment was mapped, which is the base libdwfl
 * takes for a module reported with add_p_vaddr false; a non-PIC executable
 * is reported at 0 and looked up by absolute address.
 *
 * Nothing is read from disk until a stack is printed; then one Dwfl per
 * process holds the modules looked up so far.
 */
#define _GNU_SOURCE
#include <elfutils/libdwfl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize.h"

struct sym_obj {
	uint64_t baddr, memsz;
	char *path;
	bool pic;
	bool tried;		/* reported to libdwfl (mod may still be NULL) */
	bool mismatch;
	uint8_t build_id[64];
	size_t build_id_len;
	Dwfl_Module *mod;
};

struct sym_proc {
	uint32_t vpid;
	struct sym_obj *objs;
	size_t nr, cap;
	Dwfl *dwfl;
};

struct slub_symbolizer {
	struct sym_proc *procs;
	size_t nr, cap;
	size_t last;
};

static char *debuginfo_path;

static const Dwfl_Callbacks offline_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

struct slub_symbolizer *slub_symbolizer_create(void)
{
	return calloc(1, sizeof(struct slub_symbolizer));
}

static void clear_proc(struct sym_proc *p)
{
	for (size_t i = 0; i < p->nr; i++)
		free(p->objs[i].path);
	p->nr = 0;
	if (p->dwfl)
		dwfl_end(p->dwfl);
	p->dwfl = NULL;
}

void slub_symbolizer_destroy(struct slub_symbolizer *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nr; i++) {
		clear_proc(&s->procs[i]);
		free(s->procs[i].objs);
	}
	free(s->procs);
	free(s);
}

static struct sym_proc *find_proc(struct slub_symbolizer *s, uint32_t vpid, bool create)
{
	if (s->last < s->nr && s->procs[s->last].vpid == vpid)
		return &s->procs[s->last];
	for (size_t i = 0; i < s->nr; i++) {
		if (s->procs[i].vpid == vpid) {
			s->last = i;
			return &s->procs[i];
		}
	}
	if (!create)
		return NULL;
	if (s->nr == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 8;
		struct sym_proc *n = realloc(s->procs, cap * sizeof(*n));

		if (!n)
			return NULL;
		s->procs = n;
		s->cap = cap;
	}
	memset(&s->procs[s->nr], 0, sizeof(s->procs[0]));
	s->procs[s->nr].vpid = vpid;
	s->last = s->nr;
	return &s->procs[s->nr++];
}

bool slub_sym_known(const struct slub_symbolizer *s, uint32_t vpid)
{
	for (size_t i = 0; i < s->nr; i++)
		if (s->procs[i].vpid == vpid)
			return s->procs[i].nr > 0;
	return false;
}

void slub_sym_reset(struct slub_symbolizer *s, uint32_t vpid)
{
	struct sym_proc *p = find_proc(s, vpid, false);

	if (p)
		clear_proc(p);
}

void slub_sym_load(struct slub_symbolizer *s, uint32_t vpid, uint64_t baddr, uint64_t memsz,
		   const char *path, bool is_pic)
{
	struct sym_proc *p = find_proc(s, vpid, true);
	struct sym_obj *o;

	if (!p || !path || !*path)
		return;
	/* The statedump repeats objects dlopen already named. */
	for (size_t i = 0; i < p->nr; i++)
		if (p->objs[i].baddr == baddr && !strcmp(p->objs[i].path, path))
			return;
	if (p->nr == p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 16;
		struct sym_obj *n = realloc(p->objs, cap * sizeof(*n));

		if (!n)
			return;
		p->objs = n;
		p->cap = cap;
	}
	o = &p->objs[p->nr];
	memset(o, 0, sizeof(*o));
	o->path = strdup(path);
	if (!o->path)
		return;
	o->baddr = baddr;
	o->memsz = memsz;
	o->pic = is_pic;
	p->nr++;
}

void slub_sym_build_id(struct slub_symbolizer *s, uint32_t vpid, uint64_t baddr,
		       const uint8_t *id, size_t len)
{
	struct sym_proc *p = find_proc(s, vpid, false);

	if (!p || len > sizeof(p->objs[0].build_id))
		return;
	for (size_t i = p->nr; i-- > 0;) {
		if (p->objs[i].baddr == baddr) {
			memcpy(p->objs[i].build_id, id, len);
			p->objs[i].build_id_len = len;
			return;
		}
	}
}

void slub_sym_unload(struct slub_symbolizer *s, uint32_t vpid, uint64_t baddr)
{
	struct sym_proc *p = find_proc(s, vpid, false);

	if (!p)
		return;
	for (size_t i = p->nr; i-- > 0;) {
		if (p->objs[i].baddr == baddr) {
			/* Its Dwfl_Module stays in the Dwfl until the process's
			 * next reset; only the mapping is forgotten. */
			free(p->objs[i].path);
			memmove(&p->objs[i], &p->objs[i + 1], (p->nr - i - 1) * sizeof(p->objs[0]));
			p->nr--;
			return;
		}
	}
}

static void report(struct sym_proc *p, struct sym_obj *o)
{
	const unsigned char *bits;
	GElf_Addr vaddr;
	int n;

	o->tried = true;
	if (!p->dwfl) {
		p->dwfl = dwfl_begin(&offline_callbacks);
		if (!p->dwfl)
			return;
	}
	dwfl_report_begin_add(p->dwfl);
	o->mod = dwfl_report_elf(p->dwfl, o->path, o->path, -1, o->pic ? o->baddr : 0, false);
	dwfl_report_end(p->dwfl, NULL, NULL);
	if (!o->mod || !o->build_id_len)
		return;
	n = dwfl_module_build_id(o->mod, &bits, &vaddr);
	if (n > 0 && ((size_t)n != o->build_id_len || memcmp(bits, o->build_id, (size_t)n)))
		o->mismatch = true;
}

int slub_sym_lookup(struct slub_symbolizer *s, uint32_t vpid, uint64_t ip, struct slub_frame *f)
{
	struct sym_proc *p = find_proc(s, vpid, false);
	struct sym_obj *o = NULL;
	GElf_Off off;
	GElf_Sym sym;
	const char *name;
	Dwfl_Line *line;
	Dwarf_Addr addr;

	memset(f, 0, sizeof(*f));
	if (!p)
		return -1;
	for (size_t i = p->nr; i-- > 0;) {
		if (ip >= p->objs[i].baddr && ip - p->objs[i].baddr < p->objs[i].memsz) {
			o = &p->objs[i];
			break;
		}
	}
	if (!o)
		return -1;
	f->path = o->path;
	f->offset = ip - o->baddr;
	if (!o->tried)
		report(p, o);
	f->build_id_mismatch = o->mismatch;
	if (!o->mod || o->mismatch)
		return 0;
	/* A return address points after the call: look up the call. */
	addr = ip ? ip - 1 : ip;
	name = dwfl_module_addrinfo(o->mod, addr, &off, &sym, NULL, NULL, NULL);
	if (name) {
		snprintf(f->function, sizeof(f->function), "%s", name);
		f->function_off = off + 1;
	}
	line = dwfl_module_getsrc(o->mod, addr);
	if (line) {
		int lineno = 0;
		const char *file = dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL);

		if (file) {
			snprintf(f->file, sizeof(f->file), "%s", file);
			f->line = lineno;
		}
	}
	return 0;
}
