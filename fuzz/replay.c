/* SPDX-License-Identifier: MIT */
/* Runs a fuzz target once per saved input, without libFuzzer, so that
 * `make check` replays the seed corpus and every kept crash with the
 * ordinary compiler (and the sanitizers when configured with them).
 *
 *   fuzz/replay_NAME             every file of fuzz/corpus/NAME and
 *                                fuzz/regress/NAME under $srcdir
 *   fuzz/replay_NAME FILE...     those files */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

/* Reads path into an allocation of exactly its size, so that reading past
 * the input is an error the sanitizers see, as under libFuzzer. */
static int replay_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	struct stat st;
	if (!f || fstat(fileno(f), &st) != 0) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		if (f)
			fclose(f);
		return -1;
	}
	size_t len = (size_t)st.st_size;
	unsigned char *input = malloc(len ? len : 1);
	bool ok = input && fread(input, 1, len, f) == len && getc(f) == EOF && !ferror(f);
	fclose(f);
	if (!ok) {
		fprintf(stderr, "replay: %s: cannot read it whole\n", path);
		free(input);
		return -1;
	}
	/* the name is out before the target can abort */
	printf("%s (%zu bytes)\n", path, len);
	if (fflush(stdout) != 0) {
		free(input);
		return -1;
	}
	LLVMFuzzerTestOneInput(input, len);
	free(input);
	return 0;
}

static int skip_hidden(const struct dirent *entry)
{
	return entry->d_name[0] != '.';
}

/* Every file of srcdir/fuzz/kind/NAME, in name order; a missing directory
 * has none.  Returns the number replayed, or -1. */
static int replay_dir(const char *srcdir, const char *kind)
{
	char dir[4096];
	snprintf(dir, sizeof dir, "%s/fuzz/%s/%s", srcdir, kind, fuzz_target_name);
	struct dirent **names;
	int n = scandir(dir, &names, skip_hidden, alphasort);
	if (n < 0) {
		if (errno == ENOENT)
			return 0;
		fprintf(stderr, "replay: %s: %s\n", dir, strerror(errno));
		return -1;
	}
	int done = 0;
	for (int i = 0; i < n; i++) {
		char path[8192];
		snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name);
		if (done >= 0 && replay_file(path) == 0)
			done++;
		else
			done = -1;
		free(names[i]);
	}
	free(names);
	return done;
}

int main(int argc, char **argv)
{
	int total = 0;

	if (argc > 1) {
		for (int i = 1; i < argc; i++) {
			if (replay_file(argv[i]) != 0)
				return 1;
			total++;
		}
	} else {
		const char *srcdir = getenv("srcdir");
		if (!srcdir)
			srcdir = ".";
		int corpus = replay_dir(srcdir, "corpus");
		int regress = replay_dir(srcdir, "regress");
		if (corpus < 0 || regress < 0)
			return 1;
		if (corpus == 0) {
			fprintf(stderr, "replay: no inputs in %s/fuzz/corpus/%s\n", srcdir,
				fuzz_target_name);
			return 1;
		}
		total = corpus + regress;
	}
	printf("%s: %d inputs, every oracle held\n", fuzz_target_name, total);
	return 0;
}
