/* SPDX-License-Identifier: GPL-2.0 */
/* cet_state(): the CET features a thread runs with, for cetlibc and
 * cetlibc-cxx (C and C++). */
#ifndef CETSTATE_H
#define CETSTATE_H
#include <stdio.h>
#include <string.h>

/* The "x86_Thread_features:" value in FILE (a /proc status file) with
 * '+' for spaces ("shstk+wrss"), "-" for none, "n/a" without the line. */
static void cet_state(const char *file, char *buf, size_t len)
{
	static const char key[] = "x86_Thread_features:";
	char line[256];
	FILE *f = fopen(file, "r");

	snprintf(buf, len, "n/a");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *v, *o;

		if (strncmp(line, key, sizeof(key) - 1))
			continue;
		v = line + sizeof(key) - 1;
		while (*v == ' ' || *v == '\t')
			v++;
		for (o = v; *o && *o != '\n'; o++)
			if (*o == ' ')
				*o = '+';
		*o = '\0';
		while (o > v && o[-1] == '+')
			*--o = '\0';
		snprintf(buf, len, "%s", *v ? v : "-");
		break;
	}
	fclose(f);
}
#endif
