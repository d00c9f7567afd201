// SPDX-License-Identifier: GPL-2.0
/*
 * make run's demo: the same return-address overwrite, once without and
 * once with a shadow stack.
 *
 * victim() has a bug that writes past a stack buffer into its own saved
 * return address, replacing it with the address of attacker(). Without a
 * shadow stack the RET goes to attacker(). With one, the CPU compares the
 * return address with the copy on the shadow stack, raises a
 * control-protection fault, and the kernel kills the process with
 * SIGSEGV / SEGV_CPERR before attacker() runs.
 *
 * Exit status 0 when the attack works without and is blocked with a
 * shadow stack (or, on a CPU without CET, works and cannot be blocked).
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#define ARCH_SHSTK_ENABLE	0x5001
#define ARCH_SHSTK_SHSTK	(1UL << 0)
#define SEGV_CPERR_CODE		10

enum { HIJACKED = 66, BLOCKED = 77, RETURNED = 88, NO_SHSTK = 99 };

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

static __attribute__((noreturn)) void run(int shadow_stack)
{
	struct sigaction sa = { .sa_sigaction = on_segv, .sa_flags = SA_SIGINFO };
	long ret = 0;

	sigaction(SIGSEGV, &sa, NULL);
	if (shadow_stack) {
		/* Inline: no function may return into the new shadow stack. */
		asm volatile("syscall" : "=a" (ret)
			     : "a" (SYS_arch_prctl), "D" (ARCH_SHSTK_ENABLE),
			       "S" (ARCH_SHSTK_SHSTK)
			     : "rcx", "r11", "memory");
		if (ret) {
			printf("      arch_prctl(ARCH_SHSTK_ENABLE): %s\n",
			       strerror(-ret));
			_exit(NO_SHSTK);
		}
		printf("      shadow stack enabled\n");
	}
	victim();
	printf("      victim() returned normally\n");
	_exit(RETURNED);
}

static int attempt(int shadow_stack)
{
	int status;
	pid_t pid;

	printf("%s shadow stack:\n", shadow_stack ? "With" : "Without");
	fflush(stdout);
	pid = fork();
	if (!pid)
		run(shadow_stack);
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

static const char *cpu_flag(const char *flag)
{
	char line[4096], word[64];
	FILE *f = fopen("/proc/cpuinfo", "r");
	const char *ret = "no";

	snprintf(word, sizeof(word), " %s", flag);
	while (f && fgets(line, sizeof(line), f)) {
		char *p = strstr(line, word);

		if (!strncmp(line, "flags", 5) && p &&
		    (p[strlen(word)] == ' ' || p[strlen(word)] == '\n')) {
			ret = "yes";
			break;
		}
	}
	if (f)
		fclose(f);
	return ret;
}

int main(void)
{
	struct utsname u;
	int without, with;

	uname(&u);
	printf("kernel %s; CPU flags: shstk %s, user_shstk %s\n", u.release,
	       cpu_flag("shstk"), cpu_flag("user_shstk"));
	printf("cet-lts demo: overwrite a return address on the stack\n\n");
	without = attempt(0);
	with = attempt(1);
	printf("\n");
	if (without != HIJACKED) {
		printf("RESULT: unexpected, the attack did not work without a shadow stack (%d)\n",
		       without);
		return 1;
	}
	if (with == BLOCKED) {
		printf("RESULT: attack BLOCKED by the shadow stack\n");
		return 0;
	}
	if (with == NO_SHSTK) {
		printf("RESULT: no user shadow stack on this CPU/kernel: the attack cannot be blocked here\n");
		return 0;
	}
	printf("RESULT: attack NOT blocked with shadow stack (%d)\n", with);
	return 1;
}
