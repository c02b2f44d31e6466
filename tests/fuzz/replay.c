/* SPDX-License-Identifier: MIT */
/*
 * Replays inputs through a fuzz target's LLVMFuzzerTestOneInput without
 * libFuzzer, so that the seed corpora and every crash input ever found
 * (tests/fuzz/regress/<target>/) run as ordinary tests in every build,
 * with any compiler and under the sanitizer builds.
 *
 * Usage: replay-<target> PATH...  Each PATH is a file, or a directory whose
 * regular files (recursively, in name order) are replayed.  A violated
 * property traps inside the target, so the test fails with a signal; the
 * name of the input is printed before it runs.  Exit 1 when a path cannot
 * be read, or when no input at all was found (a corpus that went missing
 * must not pass as "nothing failed").
 */
#define _DEFAULT_SOURCE /* DT_DIR/DT_REG */
#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned long replayed;

static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0;

	if (!f) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	for (;;) {
		size_t r;

		if (len == cap) {
			uint8_t *nb = realloc(buf, cap ? 2 * cap : 4096);

			if (!nb) {
				free(buf);
				fclose(f);
				fprintf(stderr, "replay: %s: out of memory\n", path);
				return -1;
			}
			buf = nb;
			cap = cap ? 2 * cap : 4096;
		}
		r = fread(buf + len, 1, cap - len, f);
		len += r;
		if (r == 0)
			break;
	}
	if (ferror(f)) {
		fprintf(stderr, "replay: %s: read error\n", path);
		free(buf);
		fclose(f);
		return -1;
	}
	fclose(f);
	/* Flushed first: if the input traps, its name is already out. */
	printf("replay %s (%zu bytes)\n", path, len);
	fflush(stdout);
	/* An exact-size heap copy, so that ASan sees any overread. */
	{
		uint8_t *exact = malloc(len ? len : 1);

		if (!exact) {
			free(buf);
			return -1;
		}
		if (len)
			memcpy(exact, buf, len);
		LLVMFuzzerTestOneInput(exact, len);
		free(exact);
	}
	free(buf);
	replayed++;
	return 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int replay_path(const char *path)
{
	struct stat st;
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, cap = 0;
	int ret = 0;
	DIR *d;

	if (stat(path, &st) != 0) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return replay_file(path);
	d = opendir(path);
	if (!d) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	/* Sorted, so that runs are reproducible. */
	while ((de = readdir(d)) != NULL) {
		char *full;

		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			char **nn = realloc(names, (cap ? 2 * cap : 64) * sizeof(*names));

			if (!nn) {
				ret = -1;
				break;
			}
			names = nn;
			cap = cap ? 2 * cap : 64;
		}
		full = malloc(strlen(path) + strlen(de->d_name) + 2);
		if (!full) {
			ret = -1;
			break;
		}
		sprintf(full, "%s/%s", path, de->d_name);
		names[n++] = full;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_names);
	for (size_t i = 0; i < n; i++) {
		if (ret == 0 && replay_path(names[i]) != 0)
			ret = -1;
		free(names[i]);
	}
	free(names);
	return ret;
}

int main(int argc, char **argv)
{
	int ret = 0;

	for (int i = 1; i < argc; i++)
		if (replay_path(argv[i]) != 0)
			ret = 1;
	printf("replayed %lu inputs\n", replayed);
	if (replayed == 0) {
		fprintf(stderr, "replay: no inputs\n");
		return 1;
	}
	return ret;
}
