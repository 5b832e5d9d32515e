/* SPDX-License-Identifier: MIT */
/*
 * Logging of the slub components at the level their graph gave them
 * (bt_component_get_logging_level()), on standard error, in the layout of
 * Babeltrace's own log lines: date, pid, tid, level letter, tag, component
 * name, message.  The decoder logs through the same state (it is also
 * built without a component, in the tests and the fuzzers: level NONE).
 */
#ifndef SLUB_PLUGIN_LOG_H
#define SLUB_PLUGIN_LOG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <babeltrace2/babeltrace.h>

struct slub_log {
	bt_logging_level level;	/* the component's; NONE: nothing is logged */
	char tag[48];		/* PLUGIN/SINK.SLUB.CHECK */
	char name[64];		/* the component's name in its graph */
};

static inline bool slub_log_on(const struct slub_log *l, bt_logging_level level)
{
	return l && l->level != BT_LOGGING_LEVEL_NONE && level >= l->level;
}

static inline __attribute__((format(printf, 3, 4)))
void slub_log(const struct slub_log *l, bt_logging_level level, const char *fmt, ...)
{
	static const char letters[] = "TDIWEF";
	struct timespec ts;
	struct tm tm;
	va_list ap;
	int i = level == BT_LOGGING_LEVEL_TRACE ? 0 : level == BT_LOGGING_LEVEL_DEBUG ? 1
		: level == BT_LOGGING_LEVEL_INFO ? 2 : level == BT_LOGGING_LEVEL_WARNING ? 3
		: level == BT_LOGGING_LEVEL_ERROR ? 4 : 5;

	if (!slub_log_on(l, level))
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	/* One line in one write, whatever else writes to stderr. */
	flockfile(stderr);
	fprintf(stderr, "%02d-%02d %02d:%02d:%02d.%03ld %d %ld %c %s [%s] ", tm.tm_mon + 1,
		tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000, (int)getpid(),
		(long)syscall(SYS_gettid), letters[i], l->tag, l->name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	funlockfile(stderr);
}

/* The component's level, tag and name, read once at initialization. */
static inline void slub_log_init(struct slub_log *l, bt_self_component *self)
{
	const bt_component *c = bt_self_component_as_component(self);
	const char *cls = bt_component_class_get_name(bt_component_borrow_class_const(c));
	size_t i;

	l->level = bt_component_get_logging_level(c);
	snprintf(l->tag, sizeof(l->tag), "PLUGIN/SINK.SLUB.%s", cls ? cls : "?");
	for (i = 0; l->tag[i]; i++)
		if (l->tag[i] >= 'a' && l->tag[i] <= 'z')
			l->tag[i] = (char)(l->tag[i] - 'a' + 'A');
	snprintf(l->name, sizeof(l->name), "%s", bt_component_get_name(c));
}

#endif /* SLUB_PLUGIN_LOG_H */
