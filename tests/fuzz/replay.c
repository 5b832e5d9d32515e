/* SPDX-License-Identifier: MIT */
/*
 * replay_decode / replay_model DIR...: a fuzz target's regression inputs
 * and seeds without libFuzzer (any compiler, the main build): every file
 * of each DIR but OPEN and those OPEN lists (open bugs, "NAME KIND: why" a
 * line) goes through LLVMFuzzerTestOneInput once.  A failure aborts, as under the
 * fuzzer; the test's timeout catches a hang.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int listed_open(const char *dir, const char *name)
{
	char path[4096], line[1024];
	size_t n = strlen(name);
	FILE *f;
	int found = 0;

	snprintf(path, sizeof(path), "%s/OPEN", dir);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		found = !strncmp(line, name, n) && line[n] == ' ';
	fclose(f);
	return found;
}

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static size_t replay(const char *dir);

int main(int argc, char **argv)
{
	size_t ran = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s DIR...\n", argv[0]);
		return 2;
	}
	for (int i = 1; i < argc; i++)
		ran += replay(argv[i]);
	printf("%zu input(s) passed\n", ran);
	return ran ? 0 : 1;
}

static size_t replay(const char *dir)
{
	DIR *d;
	struct dirent *e;
	char **names = NULL;
	size_t nr = 0, ran = 0;

	d = opendir(dir);
	if (!d) {
		perror(dir);
		exit(2);
	}
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || !strcmp(e->d_name, "OPEN"))
			continue;
		names = realloc(names, (nr + 1) * sizeof(*names));
		names[nr++] = strdup(e->d_name);
	}
	closedir(d);
	qsort(names, nr, sizeof(*names), cmp);
	for (size_t i = 0; i < nr; i++) {
		char path[4096];
		uint8_t *buf;
		long size;
		FILE *f;

		if (listed_open(dir, names[i])) {
			printf("%s/%s: left out, an open bug (OPEN)\n", dir, names[i]);
			free(names[i]);
			continue;
		}
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		f = fopen(path, "rb");
		if (!f || fseek(f, 0, SEEK_END) || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
			perror(path);
			exit(2);
		}
		buf = malloc((size_t)size + 1);
		if (fread(buf, 1, (size_t)size, f) != (size_t)size) {
			perror(path);
			exit(2);
		}
		fclose(f);
		printf("%s/%s: %ld bytes\n", dir, names[i], size);
		fflush(stdout);
		LLVMFuzzerTestOneInput(buf, (size_t)size);
		free(buf);
		free(names[i]);
		ran++;
	}
	free(names);
	return ran;
}
