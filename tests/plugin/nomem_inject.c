/* SPDX-License-Identifier: MIT */
/*
 * Preloaded into slubtrace by nomem.sh: storing the parameter named by
 * NOMEM_KEY in a Babeltrace map fails as it does when memory runs out
 * (BT_VALUE_MAP_INSERT_ENTRY_STATUS_MEMORY_ERROR).  Every other call goes
 * to libbabeltrace2.  Which allocation fails is chosen by name, not by
 * count, so the failure is the same on every run.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include <babeltrace2/babeltrace.h>

static int fails(const char *key)
{
	const char *k = getenv("NOMEM_KEY");

	return k && key && !strcmp(k, key);
}

#define NEXT(name) ((__typeof__(&name))dlsym(RTLD_NEXT, #name))

bt_value_map_insert_entry_status bt_value_map_insert_string_entry(bt_value *map, const char *key,
								  const char *value)
{
	if (fails(key))
		return BT_VALUE_MAP_INSERT_ENTRY_STATUS_MEMORY_ERROR;
	return NEXT(bt_value_map_insert_string_entry)(map, key, value);
}

bt_value_map_insert_entry_status bt_value_map_insert_unsigned_integer_entry(bt_value *map,
									    const char *key,
									    uint64_t value)
{
	if (fails(key))
		return BT_VALUE_MAP_INSERT_ENTRY_STATUS_MEMORY_ERROR;
	return NEXT(bt_value_map_insert_unsigned_integer_entry)(map, key, value);
}

bt_value_map_insert_entry_status bt_value_map_insert_signed_integer_entry(bt_value *map,
									  const char *key,
									  int64_t value)
{
	if (fails(key))
		return BT_VALUE_MAP_INSERT_ENTRY_STATUS_MEMORY_ERROR;
	return NEXT(bt_value_map_insert_signed_integer_entry)(map, key, value);
}

bt_value_map_insert_entry_status bt_value_map_insert_entry(bt_value *map, const char *key,
							   bt_value *value)
{
	if (fails(key))
		return BT_VALUE_MAP_INSERT_ENTRY_STATUS_MEMORY_ERROR;
	return NEXT(bt_value_map_insert_entry)(map, key, value);
}
