// SPDX-License-Identifier: GPL-2.0
/* libcetlibc-unmarked.so: a library built without CET (no property
 * note), as most of a distribution's libraries are; cetlibc dlopen()s it. */
int unmarked_twice(int x)
{
	return 2 * x;
}
