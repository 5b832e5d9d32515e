/* A program built against an installed slubtrace (find_package / pkg-config). */
#include <slub/slub.h>
#include <stdio.h>
#include <string.h>

int main(void)
{
	struct slub_cache *s = slub_cache_create("consumer", 40, 8, SLUB_F_CONSISTENCY, NULL);
	char *p = s ? slub_cache_alloc(s) : NULL;

	if (!p)
		return 1;
	strcpy(p, "installed");
	slub_cache_free(s, p);
	printf("consumer: %s, validate %ld, destroy %ld\n", slub_cache_name(s), slub_validate(s),
	       slub_cache_destroy(s));
	return 0;
}
