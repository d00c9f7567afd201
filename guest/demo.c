// SPDX-License-Identifier: GPL-2.0
/*
 * make run's demo: one return-address overwrite, three ways.
 *
 * This file is built twice: "demo" as usual, and "demo-shstk" with
 * -fcf-protection=return -Wl,-z,shstk, which marks the program in its
 * ELF property note as built for shadow stacks. Neither contains code
 * that enables a shadow stack, and the static C library they are built
 * with never does: the kernel does it at exec for the marked one, when
 * the exec policy says to follow the marker. By default it does not (the
 * C library decides), so the launcher asks for it, as an administrator
 * opting one service in would: arch_prctl(ARCH_CET_EXEC,
 * CET_EXEC_ELF_PROPERTY) between fork() and exec.
 *
 * Run without arguments, demo is the launcher: it starts the victim
 * ("--victim") three times in a child process: unmarked, marked under
 * CET_EXEC_ELF_PROPERTY, and marked under CET_EXEC_ALWAYS_OFF.
 *
 * The victim's victim() has a bug that writes past a stack buffer into
 * its own saved return address, replacing it with the address of
 * attacker(). Without a shadow stack the RET goes to attacker(). With
 * one, the CPU compares the return address with the copy on the shadow
 * stack, raises a control-protection fault, and the kernel kills the
 * process with SIGSEGV / SEGV_CPERR before attacker() runs.
 *
 * Exit status: 0 when the attack works on the unmarked and the
 * ALWAYS_OFF runs and is blocked on the marked one; 4 (skipped) on a
 * CPU or kernel without user shadow stacks, where it cannot be blocked;
 * 1 otherwise.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#define ARCH_CET_EXEC		0x3011
#define ARCH_CET_SHSTK		(1ULL << 1)
#define CET_EXEC_ELF_PROPERTY	0
#define CET_EXEC_ALWAYS_OFF	1
#define NO_POLICY		-1
#define ARCH_SHSTK_STATUS	0x5005
#define SEGV_CPERR_CODE		10

enum { HIJACKED = 66, BLOCKED = 77, RETURNED = 88 };

/* Reached by a RET, not a call: keep to plain system calls. */
static void attacker(void)
{
	static const char msg[] = "      attacker() runs: control flow HIJACKED\n";

	write(1, msg, sizeof(msg) - 1);
	_exit(HIJACKED);
}

/* The bug: a copy that runs past buf[] into the saved return address. */
static void __attribute__((noipa)) victim(void)
{
	char buf[16];
	void **frame = __builtin_frame_address(0);
	unsigned long evil = (unsigned long)attacker;
	size_t len = (char *)&frame[1] - buf + sizeof(evil);
	static char input[256];

	if (len > sizeof(input))
		_exit(1);
	memset(input, 'A', sizeof(input));
	memcpy(input + len - sizeof(evil), &evil, sizeof(evil));
	printf("      victim() copies %zu bytes into a %zu-byte buffer\n",
	       len, sizeof(buf));
	fflush(stdout);
	memcpy(buf, input, len);
	asm volatile("" ::: "memory");
}

static void on_segv(int sig, siginfo_t *si, void *uc)
{
	char msg[128];
	int n;

	n = snprintf(msg, sizeof(msg),
		     "      SIGSEGV, si_code %d%s: the return was stopped\n",
		     si->si_code,
		     si->si_code == SEGV_CPERR_CODE ? " (SEGV_CPERR, control protection)" : "");
	write(1, msg, n);
	_exit(si->si_code == SEGV_CPERR_CODE ? BLOCKED : 1);
}

static int run_victim(void)
{
	struct sigaction sa = { .sa_sigaction = on_segv, .sa_flags = SA_SIGINFO };
	unsigned long features = 0;

	sigaction(SIGSEGV, &sa, NULL);
	if (syscall(SYS_arch_prctl, ARCH_SHSTK_STATUS, &features))
		features = 0;
	printf("      shadow stack: %s\n", features & 1 ? "ON" : "off");
	victim();
	printf("      victim() returned normally\n");
	return RETURNED;
}

/* Exec @path --victim in a child, under exec policy @policy if not NO_POLICY. */
static int attempt(const char *path, int policy)
{
	unsigned long long arg[3] = { ARCH_CET_SHSTK, policy, 0 };
	char *argv[] = { (char *)path, "--victim", NULL };
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (!pid) {
		if (policy != NO_POLICY && syscall(SYS_arch_prctl, ARCH_CET_EXEC, arg)) {
			printf("      arch_prctl(ARCH_CET_EXEC): %s\n", strerror(errno));
			_exit(2);
		}
		execv(path, argv);
		printf("      cannot run %s: %s\n", path, strerror(errno));
		_exit(3);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

static int cpu_flag(const char *flag)
{
	char line[4096], word[64];
	FILE *f = fopen("/proc/cpuinfo", "r");
	int ret = 0;

	snprintf(word, sizeof(word), " %s", flag);
	while (f && fgets(line, sizeof(line), f)) {
		char *p = strstr(line, word);

		if (!strncmp(line, "flags", 5) && p &&
		    (p[strlen(word)] == ' ' || p[strlen(word)] == '\n')) {
			ret = 1;
			break;
		}
	}
	if (f)
		fclose(f);
	return ret;
}

int main(int argc, char **argv)
{
	char dir[4096], marked[4096];
	const char *self = argv[0];
	int plain, with, off = -1, cet;
	struct utsname u;

	if (argc > 1 && !strcmp(argv[1], "--victim"))
		return run_victim();

	/* demo-shstk lives next to demo, or in /bin in the guest. */
	snprintf(dir, sizeof(dir), "%s", self);
	snprintf(marked, sizeof(marked), "%s/demo-shstk", dirname(dir));
	if (access(marked, X_OK))
		snprintf(marked, sizeof(marked), "/bin/demo-shstk");

	uname(&u);
	cet = cpu_flag("user_shstk");
	printf("kernel %s; CPU flags: shstk %s, user_shstk %s\n", u.release,
	       cpu_flag("shstk") ? "yes" : "no", cet ? "yes" : "no");
	printf("cet-lts demo: a stack buffer overflow overwrites a return address\n\n");

	printf("1. demo: built without CET marker\n");
	plain = attempt(self, NO_POLICY);
	printf("2. demo-shstk: the same code, built with -fcf-protection=return -Wl,-z,shstk,\n"
	       "   started under arch_prctl(ARCH_CET_EXEC, ELF_PROPERTY)\n");
	with = attempt(marked, cet ? CET_EXEC_ELF_PROPERTY : NO_POLICY);
	if (cet) {
		printf("3. demo-shstk again, under arch_prctl(ARCH_CET_EXEC, ALWAYS_OFF)\n");
		off = attempt(marked, CET_EXEC_ALWAYS_OFF);
	}
	printf("\n");

	if (plain != HIJACKED) {
		printf("RESULT: unexpected, the attack did not work on the unmarked program (%d)\n",
		       plain);
		return 1;
	}
	if (!cet) {
		printf("RESULT: no user shadow stack on this CPU/kernel: the marked program runs unprotected (%s)\n",
		       with == HIJACKED ? "hijacked" : "unexpected status");
		return with == HIJACKED ? 4 : 1;
	}
	if (with != BLOCKED) {
		printf("RESULT: attack NOT blocked in the marked program (%d)\n", with);
		return 1;
	}
	if (off != HIJACKED) {
		printf("RESULT: unexpected, ALWAYS_OFF did not start the marked program without shadow stack (%d)\n",
		       off);
		return 1;
	}
	printf("RESULT: attack BLOCKED by the shadow stack the kernel enabled for the marked program\n");
	return 0;
}
