// SPDX-License-Identifier: GPL-2.0
/*
 * make bench, guest side: guest TSC cycles per operation in a process
 * without shadow stack, then (where the kernel and CPU have it) in one
 * that enables it with arch_prctl(ARCH_SHSTK_ENABLE, ARCH_SHSTK_SHSTK).
 * The program runs each of the two in a fresh image of itself.
 *
 *   bench [REPS]        (default 11; "bench REPS 0|1" is one mode alone)
 *
 * Each operation runs one untimed warm-up batch, then REPS timed batches
 * of a fixed number of iterations; a batch's cycles divided by its
 * iterations is one sample, and the median of the samples is the result.
 * Output, one line per operation and mode, parsed by scripts/bench.sh:
 *
 *   BENCH <operation> <shadow_stack 0|1> <median> <sample> ...
 *   BENCH-SHSTK on|absent|error <why>
 *   BENCH-DONE ok|error
 *
 * Built static with -fcf-protection=none: no CET marker, so no kernel
 * turns the shadow stack on at exec.  Debian 12's libc knows nothing of
 * shadow stacks, so mode_main() enables it itself from an inline system
 * call and never returns (it exits): the frames above it are not on the
 * shadow stack.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <asm/prctl.h>

#ifndef __NR_map_shadow_stack
#define __NR_map_shadow_stack	453
#endif
#ifndef SHADOW_STACK_SET_TOKEN
#define SHADOW_STACK_SET_TOKEN	(1ULL << 0)
#endif

#define MAX_REPS	31
#define FAULT_PAGES	64
#define SETTLE_US	200000
#define EXIT_PROG	"/bin/bench-exit"

static int reps = 11;
static int failed;
static int have_map;	/* the kernel and CPU have map_shadow_stack */

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;

	asm volatile("lfence; rdtsc" : "=a" (lo), "=d" (hi) :: "memory");
	return ((uint64_t)hi << 32) | lo;
}

/* No call: usable in main() just before the shadow stack starts. */
static __always_inline long inline_arch_prctl(long option, unsigned long arg)
{
	long ret;

	asm volatile("syscall"
		     : "=a" (ret)
		     : "a" (__NR_arch_prctl), "D" (option), "S" (arg)
		     : "rcx", "r11", "memory");
	return ret;
}

static unsigned long shstk_features(void)
{
	unsigned long features = 0;

	if (syscall(SYS_arch_prctl, ARCH_SHSTK_STATUS, &features))
		return 0;
	return features;
}

static void fail(const char *what)
{
	printf("BENCH-ERROR %s: %s\n", what, strerror(errno));
	fflush(stdout);
	failed = 1;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * One operation: @batch runs @iters iterations and returns 0, or -1 when
 * an iteration failed (errno set).  @per divides a batch's cycles into
 * operations when one iteration holds several (pages per mapping).
 */
struct op {
	const char *name;
	int iters, per;
	int (*batch)(int iters);
};

static void run_op(const struct op *op, int shstk)
{
	uint64_t samples[MAX_REPS], sorted[MAX_REPS], t0;
	int r;

	/*
	 * Let the work the previous operation left to the kernel (RCU
	 * callbacks, workqueues) run now, not in this one's samples.
	 */
	usleep(SETTLE_US);
	if (op->batch(op->iters)) {		/* warm-up */
		fail(op->name);
		return;
	}
	for (r = 0; r < reps; r++) {
		t0 = rdtsc();
		if (op->batch(op->iters)) {
			fail(op->name);
			return;
		}
		samples[r] = (rdtsc() - t0) / ((uint64_t)op->iters * op->per);
	}
	memcpy(sorted, samples, sizeof(samples));
	qsort(sorted, reps, sizeof(sorted[0]), cmp_u64);
	printf("BENCH %s %d %llu", op->name, shstk,
	       (unsigned long long)sorted[reps / 2]);
	for (r = 0; r < reps; r++)
		printf(" %llu", (unsigned long long)samples[r]);
	printf("\n");
	fflush(stdout);
}

/*
 * How the guest TSC relates to instructions: cycles for a loop of
 * 2 x @n instructions (Bochs: one tick per instruction at a fixed ips).
 */
static void calibrate(unsigned long n)
{
	uint64_t t0 = rdtsc();

	asm volatile("1: dec %0; jnz 1b" : "+r" (n));
	printf("BENCH-CALIBRATE %llu cycles for 2000000 instructions\n",
	       (unsigned long long)(rdtsc() - t0));
}

static int b_getppid(int iters)
{
	while (iters--)
		syscall(SYS_getppid);
	return 0;
}

/* Ping-pong one byte between two processes: two switches per round. */
static int b_pipe(int iters)
{
	int ping[2], pong[2], status, ret = 0;
	char c = 0;
	pid_t pid;

	if (pipe(ping) || pipe(pong))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		close(ping[1]);
		close(pong[0]);
		while (read(ping[0], &c, 1) == 1 && write(pong[1], &c, 1) == 1)
			;
		_exit(0);
	}
	while (iters--) {
		if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1) {
			ret = -1;
			break;
		}
	}
	close(ping[0]);
	close(pong[1]);
	close(ping[1]);		/* the child sees EOF and exits */
	close(pong[0]);
	if (waitpid(pid, &status, 0) != pid || status)
		ret = -1;
	return ret;
}

/* The child of the fork and exec batches must exit cleanly. */
static int reap(pid_t pid)
{
	int status;

	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	if (status) {
		printf("BENCH-ERROR child status %#x\n", status);
		errno = ECHILD;
		return -1;
	}
	return 0;
}

static int b_fork(int iters)
{
	pid_t pid;

	while (iters--) {
		pid = fork();
		if (!pid)
			_exit(0);
		if (reap(pid))
			return -1;
	}
	return 0;
}

static void *thread_fn(void *arg)
{
	return arg;
}

static int b_thread(int iters)
{
	static int token;
	pthread_t t;
	void *ret;

	while (iters--) {
		errno = pthread_create(&t, NULL, thread_fn, &token);
		if (errno)
			return -1;
		if (pthread_join(t, &ret) || ret != &token)
			return -1;
	}
	return 0;
}

static volatile int signals_seen;

static void on_usr1(int sig)
{
	signals_seen++;
}

static int b_signal(int iters)
{
	int want = signals_seen + iters;

	while (iters--)
		raise(SIGUSR1);
	if (signals_seen != want) {
		errno = EINTR;
		return -1;
	}
	return 0;
}

static int b_exec(int iters)
{
	char *argv[] = { EXIT_PROG, NULL }, *envp[] = { NULL };
	pid_t pid;

	while (iters--) {
		pid = fork();
		if (!pid) {
			execve(EXIT_PROG, argv, envp);
			_exit(127);
		}
		if (reap(pid))
			return -1;
	}
	return 0;
}

/* The control for map_shadow_stack: the same with an ordinary page. */
static int b_mmap(int iters)
{
	char *p;

	while (iters--) {
		p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return -1;
		*(volatile char *)p = 1;
		if (munmap(p, 4096))
			return -1;
	}
	return 0;
}

static long map_shadow_stack(unsigned long size, unsigned int flags)
{
	return syscall(__NR_map_shadow_stack, 0, size, flags);
}

static int b_map(int iters)
{
	long addr;

	while (iters--) {
		addr = map_shadow_stack(4096, SHADOW_STACK_SET_TOKEN);
		if (addr == -1)
			return -1;
		if (munmap((void *)addr, 4096))
			return -1;
	}
	return 0;
}

/*
 * First touch of shadow stack pages: a WRSS (a shadow stack access, the
 * same fault as a CALL into an unpopulated page) into each page of a new
 * mapping.  Needs ARCH_SHSTK_WRSS, which only the child that runs this
 * batch enables.
 */
static int b_fault(int iters)
{
	unsigned long size = FAULT_PAGES * 4096UL;
	long addr;
	int i;

	while (iters--) {
		addr = map_shadow_stack(size, 0);
		if (addr == -1)
			return -1;
		for (i = 0; i < FAULT_PAGES; i++) {
			unsigned long *p = (unsigned long *)(addr + i * 4096UL);

			asm volatile("wrssq %[v], (%[p])"
				     :: [p] "r" (p), [v] "r" (0UL) : "memory");
		}
		if (munmap((void *)addr, size))
			return -1;
	}
	return 0;
}

static const struct op ops[] = {
	{ "getppid",  4000, 1, b_getppid },
	{ "pipe",      400, 1, b_pipe },
	{ "fork",       60, 1, b_fork },
	{ "thread",    200, 1, b_thread },
	{ "signal",    400, 1, b_signal },
	{ "exec",       30, 1, b_exec },
	{ "mmap",      200, 1, b_mmap },
	{ "map_shadow_stack", 200, 1, b_map },
};
static const struct op fault_op = { "shstk_fault", 4, FAULT_PAGES, b_fault };

static void run_all(int shstk)
{
	unsigned int i;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		/* map_shadow_stack needs the kernel and CPU feature only */
		if (ops[i].batch == b_map && !have_map)
			continue;
		run_op(&ops[i], shstk);
	}
}

/* The fault batch in a child with WRSS on (the parent's state stays). */
static void run_fault(void)
{
	pid_t pid = fork();

	if (!pid) {
		if (syscall(SYS_arch_prctl, ARCH_SHSTK_ENABLE, ARCH_SHSTK_WRSS) ||
		    !(shstk_features() & ARCH_SHSTK_WRSS)) {
			fail("enabling WRSS");
			_exit(1);
		}
		run_op(&fault_op, 1);
		_exit(failed);
	}
	if (reap(pid))
		fail("shstk_fault child");
}

/*
 * Each mode runs in a fresh image of this program (exec of
 * /proc/self/exe), so that both start from the same process state: in
 * one process, the second mode would fork a process the first mode's
 * threads had grown (cached thread stacks), and fork and exec would
 * look more expensive with shadow stack than they are.
 */
static int run_mode(const char *self, int shstk)
{
	char r[16], m[4];
	char *argv[] = { (char *)self, r, m, NULL };
	int status;
	pid_t pid;

	snprintf(r, sizeof(r), "%d", reps);
	snprintf(m, sizeof(m), "%d", shstk);
	pid = fork();
	if (!pid) {
		execv("/proc/self/exe", argv);
		printf("BENCH-ERROR exec of /proc/self/exe: %s\n", strerror(errno));
		_exit(1);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || status) {
		printf("BENCH-ERROR mode %d ended with status %#x\n", shstk, status);
		return 1;
	}
	return 0;
}

/* One mode, in its own process: without (0) or with (1) shadow stack. */
static void mode_main(int shstk)
{
	long ret;

	ret = map_shadow_stack(4096, 0);
	have_map = ret > 0 && !munmap((void *)ret, 4096);
	if (!have_map && errno != ENOSYS && errno != EOPNOTSUPP)
		fail("map_shadow_stack");
	if (!shstk) {
		run_all(0);
		exit(failed);
	}

	ret = inline_arch_prctl(ARCH_SHSTK_ENABLE, ARCH_SHSTK_SHSTK);
	if (ret) {
		/* The -off kernel, or a CPU without shadow stacks. */
		printf("BENCH-SHSTK absent %s\n", strerror(-ret));
		exit(failed);
	}
	if (!(shstk_features() & ARCH_SHSTK_SHSTK)) {
		printf("BENCH-SHSTK error enabled but the status says off\n");
		exit(1);
	}
	printf("BENCH-SHSTK on\n");
	run_all(1);
	run_fault();
	/* Never return: the frames above this one are not on the shadow stack. */
	exit(failed);
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	unsigned int i;

	if (argc > 1)
		reps = atoi(argv[1]);
	if (reps < 1 || reps > MAX_REPS || (argc > 2 && strcmp(argv[2], "0") &&
					    strcmp(argv[2], "1"))) {
		fprintf(stderr, "usage: bench [REPS 1..%d]\n", MAX_REPS);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (sigaction(SIGUSR1, &sa, NULL))
		fail("sigaction");
	if (shstk_features() & ARCH_SHSTK_SHSTK) {
		printf("BENCH-ERROR the shadow stack is on at start (marked binary?)\n");
		return 1;
	}
	if (argc > 2)
		mode_main(atoi(argv[2]));

	printf("BENCH-CONFIG reps=%d\n", reps);
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		printf("BENCH-OP %s %d\n", ops[i].name, ops[i].iters);
	printf("BENCH-OP %s %d x %d pages\n", fault_op.name, fault_op.iters,
	       fault_op.per);
	calibrate(1000000);
	failed |= run_mode(argv[0], 0);
	failed |= run_mode(argv[0], 1);
	printf("BENCH-DONE %s\n", failed ? "error" : "ok");
	return failed;
}
