/* SPDX-License-Identifier: MIT */
/* A hash map of files by (device, inode): each file once, with a number of the caller's. */
#ifndef PAGESTAT_DEVINO_H
#define PAGESTAT_DEVINO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* What devino_put returns for a file that was not in the map. */
#define DEVINO_NEW SIZE_MAX

struct devino_map {
	struct devino_slot {
		dev_t dev;
		ino_t ino; /* 0: an empty slot */
		size_t value;
	} *slots;
	size_t cap; /* a power of two, or 0 */
	size_t count;
};

/* The value stored for (dev, ino), or DEVINO_NEW after storing value.
 * Inode 0 marks an empty slot: a file system that uses it is never
 * stored, each of its files new. */
size_t devino_put(struct devino_map *map, dev_t dev, ino_t ino, size_t value);

/* True when (dev, ino) was not in the map (it is now). */
bool devino_add(struct devino_map *map, dev_t dev, ino_t ino);

bool devino_has(const struct devino_map *map, dev_t dev, ino_t ino);

/* Empties the map, keeping its memory for the next use. */
void devino_clear(struct devino_map *map);

void devino_free(struct devino_map *map);

#endif
