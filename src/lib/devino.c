/* SPDX-License-Identifier: MIT */
/* A hash map of files by (device, inode): open addressing, linear probing. */
#include <config.h>

#include "lib/devino.h"

#include <stdlib.h>
#include <string.h>

#include "lib/xalloc.h"

/* The slot of (dev, ino), or the empty one where it would go; the map
 * has one empty slot at least. */
static struct devino_slot *slot_of(const struct devino_map *map, dev_t dev, ino_t ino)
{
	uint64_t h = (uint64_t)ino * 0x9e3779b97f4a7c15u ^ (uint64_t)dev * 0xc2b2ae3d27d4eb4fu;
	size_t mask = map->cap - 1;

	for (size_t i = (size_t)(h ^ (h >> 29)) & mask;; i = (i + 1) & mask)
		if (map->slots[i].ino == 0 ||
		    (map->slots[i].dev == dev && map->slots[i].ino == ino))
			return &map->slots[i];
}

/* Kept at most three quarters full, so that probing stays short. */
static void grow(struct devino_map *map)
{
	struct devino_map bigger = { .cap = map->cap ? map->cap * 2 : 64, .count = map->count };

	bigger.slots = xcalloc(bigger.cap, sizeof *bigger.slots);
	for (size_t i = 0; i < map->cap; i++)
		if (map->slots[i].ino != 0)
			*slot_of(&bigger, map->slots[i].dev, map->slots[i].ino) = map->slots[i];
	free(map->slots);
	*map = bigger;
}

size_t devino_put(struct devino_map *map, dev_t dev, ino_t ino, size_t value)
{
	if (ino == 0)
		return DEVINO_NEW;
	if ((map->count + 1) * 4 > map->cap * 3)
		grow(map);
	struct devino_slot *slot = slot_of(map, dev, ino);
	if (slot->ino != 0)
		return slot->value;
	*slot = (struct devino_slot){ dev, ino, value };
	map->count++;
	return DEVINO_NEW;
}

bool devino_add(struct devino_map *map, dev_t dev, ino_t ino)
{
	return devino_put(map, dev, ino, 0) == DEVINO_NEW;
}

bool devino_has(const struct devino_map *map, dev_t dev, ino_t ino)
{
	return map->cap && ino != 0 && slot_of(map, dev, ino)->ino != 0;
}

void devino_clear(struct devino_map *map)
{
	if (map->cap)
		memset(map->slots, 0, map->cap * sizeof *map->slots);
	map->count = 0;
}

void devino_free(struct devino_map *map)
{
	free(map->slots);
	*map = (struct devino_map){ 0 };
}
