// SPDX-License-Identifier: GPL-2.0
/*
 * cetlibc-cxx: C++ exceptions on the kernel under test.  An exception
 * thrown six frames down is caught at the top: the unwinder must move
 * the shadow stack pointer with the stack (libgcc's unwinder does, when
 * shadow stack is on).  Prints "CETLIBC cxx-throw STATE ok|FAIL", as
 * cetlibc does.
 */
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "cetstate.h"

__attribute__((noinline)) static int thrower(int n)
{
	if (!n)
		throw std::runtime_error("from the bottom");
	volatile int r = thrower(n - 1) + 1;
	return r;
}

__attribute__((noinline)) static int nest(int n)
{
	volatile int r = n ? nest(n - 1) + 1 : 0;
	return r;
}

int main()
{
	char state[128];
	const char *result = "FAIL", *detail = "nothing thrown";
	int caught = 0;

	for (int round = 0; round < 3; round++) {
		try {
			thrower(6);
		} catch (const std::runtime_error &e) {
			if (!std::strcmp(e.what(), "from the bottom"))
				caught++;
		}
	}
	if (caught != 3)
		detail = "not every throw was caught";
	else if (nest(100) != 100)
		detail = "nest(100) != 100 after the catches";
	else
		result = "ok", detail = "";
	cet_state("/proc/self/status", state, sizeof(state));
	std::printf("CETLIBC cxx-throw %s %s%s%s\n", state, result, *detail ? " " : "", detail);
	return std::strcmp(result, "ok") != 0;
}
