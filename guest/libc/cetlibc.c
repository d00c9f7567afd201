// SPDX-License-Identifier: GPL-2.0
/*
 * cetlibc: what a real C library built with CET does on the kernel it
 * runs on, one case per run.  Built against each glibc under test
 * (scripts/libc.sh), -fcf-protection=full, dynamically linked; the
 * runner (guest/libc/run.sh) runs it under each setting.
 *
 *   cetlibc CASE
 *
 * prints "CETLIBC CASE STATE RESULT [DETAIL]".  STATE is what
 * /proc/self/status says of the thread's CET features after the case
 * ran ("shstk+wrss", "-" for none, "n/a" when the kernel has no such
 * line); RESULT is ok, FAIL, or what the case observed (dlopen: loaded
 * or refused; overwrite: hijacked).  A case that dies of a signal
 * prints nothing more: the runner reports the signal.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "cetstate.h"

#define NOINLINE __attribute__((noinline))

static const char *this_case;

static int report(const char *result, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int report(const char *result, const char *fmt, ...)
{
	char state[128], detail[256] = "";
	va_list ap;

	cet_state("/proc/self/status", state, sizeof(state));
	if (fmt) {
		va_start(ap, fmt);
		vsnprintf(detail, sizeof(detail), fmt, ap);
		va_end(ap);
	}
	printf("CETLIBC %s %s %s%s%s\n", this_case, state, result,
	       *detail ? " " : "", detail);
	fflush(stdout);
	return strcmp(result, "FAIL") ? 0 : 1;
}

/* Calls and returns N deep: every return is checked by the shadow stack. */
static NOINLINE int nest(int n)
{
	volatile int r = n ? nest(n - 1) + 1 : 0;

	return r;
}

static jmp_buf jb;
static volatile int jump = 1;

static NOINLINE int sink(int n)
{
	if (!n) {
		if (jump)
			longjmp(jb, 7);
		return 0;
	}
	return sink(n - 1) + 1;
}

/* longjmp() out of 500 frames, then return through fresh ones. */
static int case_longjmp(void)
{
	volatile int depth = 500;
	int v = setjmp(jb);

	if (!v) {
		sink(depth);
		return report("FAIL", "longjmp did not happen");
	}
	if (v != 7)
		return report("FAIL", "setjmp returned %d, not 7", v);
	if (nest(200) != 200)
		return report("FAIL", "nest(200) != 200 after longjmp");
	return report("ok", "from %d frames", depth);
}

static ucontext_t uc_main, uc_func;
static volatile int ctx_steps;

static void ctx_func(int a)
{
	ctx_steps = nest(a);
	swapcontext(&uc_func, &uc_main);	/* back to main, resumed later */
	ctx_steps += 1000;
	/* returning goes to uc_link */
}

/* makecontext() on a stack of our own, swapcontext() in and out, then
 * the context's function returns to uc_link. */
static int case_context(void)
{
	static char stack[256 * 1024];

	if (getcontext(&uc_func))
		return report("FAIL", "getcontext: %s", strerror(errno));
	uc_func.uc_stack.ss_sp = stack;
	uc_func.uc_stack.ss_size = sizeof(stack);
	uc_func.uc_link = &uc_main;
	makecontext(&uc_func, (void (*)(void))ctx_func, 1, 50);
	if (swapcontext(&uc_main, &uc_func))
		return report("FAIL", "first swapcontext: %s", strerror(errno));
	if (ctx_steps != 50)
		return report("FAIL", "context ran %d steps, not 50", ctx_steps);
	if (swapcontext(&uc_main, &uc_func))
		return report("FAIL", "second swapcontext: %s", strerror(errno));
	if (ctx_steps != 1050)
		return report("FAIL", "context ended with %d, not 1050", ctx_steps);
	if (nest(100) != 100)
		return report("FAIL", "nest(100) != 100 after the contexts");
	return report("ok", NULL);
}

#define NTHREADS 50

static char main_state[128];

struct thr {
	pthread_t t;
	int depth, got;
	char state[128];
};

static void *thr_main(void *arg)
{
	struct thr *t = arg;

	t->got = nest(t->depth);
	cet_state("/proc/thread-self/status", t->state, sizeof(t->state));
	return NULL;
}

/* 50 threads, each with its own calls and returns, each with the same
 * CET state as the thread that made it. */
static int case_threads(void)
{
	static struct thr t[NTHREADS];
	int i, err;

	cet_state("/proc/self/status", main_state, sizeof(main_state));
	for (i = 0; i < NTHREADS; i++) {
		t[i].depth = 100 + i;
		err = pthread_create(&t[i].t, NULL, thr_main, &t[i]);
		if (err)
			return report("FAIL", "pthread_create %d: %s", i, strerror(err));
	}
	for (i = 0; i < NTHREADS; i++) {
		pthread_join(t[i].t, NULL);
		if (t[i].got != t[i].depth)
			return report("FAIL", "thread %d: nest gave %d", i, t[i].got);
		if (strcmp(t[i].state, main_state))
			return report("FAIL", "thread %d: state %s, main %s", i,
				      t[i].state, main_state);
	}
	return report("ok", "%d threads", NTHREADS);
}

static sigjmp_buf sjb;

static void on_usr1(int sig)
{
	siglongjmp(sjb, sig);
}

static NOINLINE int raise_deep(int n)
{
	if (!n) {
		raise(SIGUSR1);
		return 0;
	}
	return raise_deep(n - 1) + 1;
}

/* A signal handler siglongjmp()s out of the handler and 100 frames. */
static int case_siglongjmp(void)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	int v;

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL))
		return report("FAIL", "sigaction: %s", strerror(errno));
	v = sigsetjmp(sjb, 1);
	if (!v) {
		raise_deep(100);
		return report("FAIL", "the handler returned");
	}
	if (v != SIGUSR1)
		return report("FAIL", "sigsetjmp returned %d", v);
	if (nest(100) != 100)
		return report("FAIL", "nest(100) != 100 after siglongjmp");
	/* The signal mask came back: a second round works. */
	if (!sigsetjmp(sjb, 1)) {
		raise_deep(10);
		return report("FAIL", "the handler returned the second time");
	}
	return report("ok", NULL);
}

/* dlopen() of a library built without CET (no property note). */
static int case_dlopen(void)
{
	void *h = dlopen("libcetlibc-unmarked.so", RTLD_NOW);
	int (*fn)(int);
	const char *e;

	if (!h) {
		char msg[200];
		char *p;

		e = dlerror();
		snprintf(msg, sizeof(msg), "%s", e ? e : "?");
		for (p = msg; *p; p++)
			if (*p == ' ')
				*p = '_';
		return report("refused", "%s", msg);
	}
	fn = (int (*)(int))dlsym(h, "unmarked_twice");
	if (!fn)
		return report("FAIL", "dlsym: %s", dlerror());
	if (fn(21) != 42)
		return report("FAIL", "unmarked_twice(21) != 42");
	if (nest(50) != 50)
		return report("FAIL", "nest(50) != 50 after the call");
	return report("loaded", NULL);
}

/* fork(), and the child execs a marked program (this one, via the
 * shell, itself marked): the row shows the exec'ed program's state. */
static int case_forkexec(void)
{
	char line[256], child_state[128] = "?", mine[128];
	int fd[2], status;
	FILE *f;
	pid_t pid;

	if (pipe(fd))
		return report("FAIL", "pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		return report("FAIL", "fork: %s", strerror(errno));
	if (!pid) {
		dup2(fd[1], 1);
		close(fd[0]);
		execl("/bin/sh", "sh", "-c", "exec /usr/bin/cetlibc startup", (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	f = fdopen(fd[0], "r");
	while (f && fgets(line, sizeof(line), f))
		sscanf(line, "CETLIBC startup %127s", child_state);
	if (f)
		fclose(f);
	if (waitpid(pid, &status, 0) != pid)
		return report("FAIL", "waitpid: %s", strerror(errno));
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return report("FAIL", "child: status 0x%x", status);
	if (nest(50) != 50)
		return report("FAIL", "nest(50) != 50 after fork");
	cet_state("/proc/self/status", mine, sizeof(mine));
	/* STATE is the child's: print it in place of ours. */
	printf("CETLIBC forkexec %s ok parent=%s\n", child_state, mine);
	fflush(stdout);
	return 0;
}

/* Where a hijacked return lands: no stack frame it can trust, so no
 * stdio, only write(2). */
static NOINLINE void hijacked(void)
{
	static const char msg[] = "CETLIBC-HIJACKED\n";

	write(1, msg, sizeof(msg) - 1);
	_exit(3);
}

static NOINLINE void victim(void)
{
	/* The return address, right above the saved frame pointer (built
	 * with -fno-omit-frame-pointer); volatile, or the compiler drops a
	 * store to a frame it is about to leave. */
	void *volatile *ra = (void **)__builtin_frame_address(0) + 1;

	*ra = (void *)hijacked;
}

/* The attack: overwrite a return address.  The shadow stack must stop
 * it (SIGSEGV, reported by the runner); without one it works. */
static int case_overwrite(void)
{
	report("armed", NULL);
	victim();
	return report("FAIL", "victim() returned normally");
}

/* The vDSO's time functions, reached through glibc's pointers to them:
 * indirect calls, which IBT checks for an ENDBR64 at each entry. */
static int case_vdso(void)
{
	struct timespec a, b;
	struct timeval tv;
	unsigned int cpu = ~0U;
	time_t t;

	if (!getauxval(AT_SYSINFO_EHDR))
		return report("FAIL", "no vDSO (AT_SYSINFO_EHDR is 0)");
	if (clock_gettime(CLOCK_MONOTONIC, &a) || clock_gettime(CLOCK_MONOTONIC, &b))
		return report("FAIL", "clock_gettime: %s", strerror(errno));
	if (b.tv_sec < a.tv_sec || (b.tv_sec == a.tv_sec && b.tv_nsec < a.tv_nsec))
		return report("FAIL", "CLOCK_MONOTONIC went back");
	if (gettimeofday(&tv, NULL))
		return report("FAIL", "gettimeofday: %s", strerror(errno));
	t = time(NULL);
	if (t < tv.tv_sec - 1 || t > tv.tv_sec + 1)
		return report("FAIL", "time() %ld, gettimeofday() %ld", (long)t, (long)tv.tv_sec);
	if (clock_getres(CLOCK_REALTIME, &a))
		return report("FAIL", "clock_getres: %s", strerror(errno));
	if (getcpu(&cpu, NULL) || cpu != 0)
		return report("FAIL", "getcpu: cpu %u", cpu);
	return report("ok", NULL);
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(void);
	} cases[] = {
		{ "longjmp", case_longjmp },
		{ "context", case_context },
		{ "threads", case_threads },
		{ "siglongjmp", case_siglongjmp },
		{ "dlopen", case_dlopen },
		{ "forkexec", case_forkexec },
		{ "overwrite", case_overwrite },
		{ "vdso", case_vdso },
	};
	size_t i;

	if (argc != 2) {
		fprintf(stderr, "usage: cetlibc startup|CASE\n");
		return 2;
	}
	this_case = argv[1];
	if (!strcmp(this_case, "startup"))
		return report("ok", NULL);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (!strcmp(this_case, cases[i].name))
			return cases[i].fn();
	fprintf(stderr, "cetlibc: no case %s\n", this_case);
	return 2;
}
