/* SPDX-License-Identifier: MIT */
/* One file inspected: opened (safe_open), acted on when an action is
 * asked (action.c), then measured (probe.c). */
#include <config.h>

#include "walk/inspect.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

void inspector_init(struct inspector *ins, const struct probe_setup *setup,
		    struct rate_limit *limit)
{
	prober_init(&ins->prober, setup);
	actor_init(&ins->actor, limit);
}

void inspector_init_like(struct inspector *ins, const struct inspector *model)
{
	inspector_init(ins, model->prober.setup, model->actor.limit);
}

void inspector_free(struct inspector *ins)
{
	actor_free(&ins->actor);
	prober_free(&ins->prober);
}

/* where: the name fd was opened by, or NULL */
static int inspect_open(struct inspector *ins, int fd, const struct stat *st,
			const struct file_ref *where, const struct file_request *req,
			struct probe_out *out)
{
	if (req->action != ACTION_NONE)
		return action_fd(&ins->actor, &ins->prober, fd, st, where, req, out);
	return probe_measure(&ins->prober, fd, st, &req->measure, out);
}

int inspect_fd(struct inspector *ins, int fd, const struct stat *st,
	       const struct file_request *req, struct probe_out *out)
{
	return inspect_open(ins, fd, st, NULL, req, out);
}

/* The identity of a file the walk made no stat of, when not even its
 * O_PATH open worked (out of descriptors, say): from a stat of its name;
 * else none, and why the name cannot be stat()ed, which the walk's stat
 * would have said. */
static int ident_by_name(struct file_ref *ref, int open_err)
{
	struct stat st;
	if (fstatat(ref->dirfd, ref->name, &st, ref->follow ? 0 : AT_SYMLINK_NOFOLLOW) != 0)
		return errno;
	ref->id = file_ident_of(&st);
	return open_err;
}

int inspect_at(struct inspector *ins, struct file_ref *ref, const struct file_request *req,
	       struct probe_out *out)
{
	struct stat st;
	int err;
	int fd = safe_open(&ins->prober.opener, ref, &st, &err);
	if (fd < 0)
		return ref->id.known ? err : ident_by_name(ref, err);
	err = inspect_open(ins, fd, &st, ref, req, out);
	close(fd);
	return err;
}

const char *inspect_failure_what(const struct file_request *req)
{
	switch (req->action) {
	case ACTION_EVICT:
		return "cannot evict";
	case ACTION_WARM:
	case ACTION_LISTED:
		return "cannot warm";
	case ACTION_LOCK:
		return "cannot lock";
	default:
		return "cannot inspect";
	}
}

unsigned inspect_known(const struct inspector *ins)
{
	return probe_known(ins->prober.setup);
}

uint64_t inspect_page_size(const struct inspector *ins)
{
	return ins->prober.setup->page_size;
}
