// SPDX-License-Identifier: GPL-2.0
/*
 * cetdiff: what the CPU does with a user shadow stack, as a program sees
 * it.  make test runs it on Bochs and on QEMU-CET (scripts/test.sh) and
 * compares the two outputs; emulator/differences lists the differences
 * that are known, with the emulator that is wrong.
 *
 * Each case runs in a child of its own, which turns its shadow stack on
 * (arch_prctl(ARCH_SHSTK_ENABLE), from main(), which never returns),
 * runs a few instructions and notes what it can observe: SSP before and
 * after (RDSSP), which address a return went to, what it read back, and
 * the signal that ended it (the kernel's translation of the exception:
 * #UD is SIGILL, #GP SIGSEGV with SI_KERNEL, #PF SIGSEGV with
 * SEGV_MAPERR or SEGV_ACCERR, #CP SIGSEGV with SEGV_CPERR).  Each KTAP
 * line names the case and what was seen; it is "ok" when that is what
 * the SDM's pseudo-code for the instruction gives (the expectation is
 * printed after "# SDM:" when it is not).  The calls below that are
 * meant to push have a non-zero displacement (an INT3 between the CALL
 * and its target): a CALL to the next instruction pushes nothing.
 *
 * What the program sees depends on the kernel too (the signal codes, the
 * shadow stack's layout): both emulators run the same kernel, so a
 * difference between them is the CPU's.
 *
 * Without user shadow stacks (CPU or kernel) every case is skipped.
 * Exit status 0 when every case matched, 1 otherwise, 4 when skipped.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ucontext.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#define ARCH_SHSTK_ENABLE	0x5001
#define ARCH_SHSTK_SHSTK	(1UL << 0)
#define ARCH_SHSTK_WRSS		(1UL << 1)
#define NR_map_shadow_stack	453
#define SHADOW_STACK_SET_TOKEN	(1UL << 0)
#define SEGV_CPERR_CODE		10
#define USER_CS			0x33

static char obs[512];
/* Shared with the instructions below (named in the asm). */
unsigned long cd_mark, cd_recover, cd_value;
static long pf_delta;
static int pf_seen;

static void note(const char *fmt, ...)
{
	size_t n = strlen(obs);
	va_list ap;

	if (n && n < sizeof(obs) - 2) {
		strcpy(obs + n, ", ");
		n += 2;
	}
	va_start(ap, fmt);
	vsnprintf(obs + n, sizeof(obs) - n, fmt, ap);
	va_end(ap);
}

/* The child's one line, then its end: it has no frame to return to. */
static void __attribute__((noreturn)) finish(void)
{
	strcat(obs, "\n");
	write(1, obs, strlen(obs));
	syscall(SYS_exit_group, 0);
	for (;;)
		;
}

static inline unsigned long rdssp(void)
{
	unsigned long v = 0;

	asm volatile("rdsspq %0" : "+r" (v));
	return v;
}

static const char *signal_name(int sig, int code)
{
	static char buf[48];

	if (sig == SIGSEGV && code == SEGV_CPERR_CODE)
		return "SIGSEGV(CPERR)";
	if (sig == SIGSEGV && code == SEGV_MAPERR)
		return "SIGSEGV(MAPERR)";
	if (sig == SIGSEGV && code == SEGV_ACCERR)
		return "SIGSEGV(ACCERR)";
	if (sig == SIGSEGV && code == SI_KERNEL)
		return "SIGSEGV(kernel)";
	if (sig == SIGILL && code == ILL_ILLOPN)
		return "SIGILL(ILLOPN)";
	snprintf(buf, sizeof(buf), "signal %d code %d", sig, code);
	return buf;
}

/*
 * The signal that ends a case.  With cd_recover set it is the control
 * page fault of probe_pf() instead: note how far below the SSP of the
 * faulting instruction the handler runs, and resume at cd_recover.
 */
static void on_signal(int sig, siginfo_t *si, void *ctx)
{
	long delta = (long)(cd_mark - rdssp());
	ucontext_t *uc = ctx;

	if (cd_recover) {
		pf_delta = delta;
		pf_seen = 1;
		uc->uc_mcontext.gregs[REG_RIP] = cd_recover;
		cd_recover = 0;
		return;
	}
	note("%s", signal_name(sig, si->si_code));
	if (pf_seen) {
		if (delta == pf_delta)
			note("SSP kept");
		else
			note("SSP %+ld", pf_delta - delta);
	}
	finish();
}

/*
 * A page fault with SSP in cd_mark: the handler's SSP for a fault that
 * leaves SSP alone, to compare another fault's with.
 */
static void probe_pf(void)
{
	asm volatile("lea 1f(%%rip), %%rax\n\t"
		     "mov %%rax, cd_recover(%%rip)\n\t"
		     "rdsspq %%rcx\n\t"
		     "mov %%rcx, cd_mark(%%rip)\n\t"
		     "movq $0, 0\n"
		     "1:\n\t"
		     ::: "rax", "rcx", "memory");
	if (!pf_seen)
		note("no page fault");
}

static void enable_wrss(void)
{
	if (syscall(SYS_arch_prctl, ARCH_SHSTK_ENABLE, ARCH_SHSTK_WRSS))
		note("ARCH_SHSTK_WRSS: %s", strerror(errno));
}

/* A new shadow stack of one page, a restore token at its top if @token. */
static unsigned long new_shstk(int token)
{
	long p = syscall(NR_map_shadow_stack, 0, 4096,
			 token ? SHADOW_STACK_SET_TOKEN : 0);

	if (p == -1) {
		note("map_shadow_stack: %s", strerror(errno));
		finish();
	}
	return p + 4096;
}

static void c_no_shstk(void)
{
	note("RDSSP %s", rdssp() ? "set its register" : "left its register");
	asm volatile("mov $1, %%eax\n\tincsspq %%rax" ::: "rax");
	note("INCSSP ran");
}

static void c_call_ret(void)
{
	unsigned long a = 0, b = 0, c = 0;

	asm volatile("rdsspq %0\n\t"
		     "call 1f\n\t"
		     "jmp 2f\n"
		     "1:\trdsspq %1\n\t"
		     "ret\n"
		     "2:\trdsspq %2\n\t"
		     : "+r" (a), "+r" (b), "+r" (c) :: "memory");
	note("CALL %+ld, RET %+ld", (long)(b - a), (long)(c - b));
}

static void c_call_pushes(void)
{
	unsigned long top = 0, ret = 0;

	asm volatile("call 1f\n\t"
		     "int3\n"
		     "1:\tpop %1\n\t"
		     "rdsspq %0\n\t"
		     "incsspq %2\n\t"
		     : "+r" (top), "+r" (ret) : "r" (1UL) : "memory");
	note("the entry is %s", *(unsigned long *)top == ret ?
	     "the return address" : "not the return address");
}

/* The SDM's CALL: "IF ShadowStackEnabled(CPL) AND DEST != 0". */
static void c_call_next(void)
{
	unsigned long a = 0, b = 0;

	asm volatile("rdsspq %0\n\t"
		     "call 1f\n"
		     "1:\tpop %%rcx\n\t"
		     "rdsspq %1\n\t"
		     : "+r" (a), "+r" (b) :: "rcx", "memory");
	note("SSP %+ld", (long)(b - a));
}

static void c_ret_imm(void)
{
	unsigned long a = 0, b = 0, d;

	asm volatile("mov %%rsp, %%r8\n\t"
		     "rdsspq %0\n\t"
		     "sub $16, %%rsp\n\t"
		     "call 1f\n\t"
		     "jmp 2f\n"
		     "1:\tret $16\n"
		     "2:\trdsspq %1\n\t"
		     "sub %%rsp, %%r8\n\t"
		     "mov %%r8, %2\n\t"
		     : "+r" (a), "+r" (b), "=r" (d) :: "r8", "memory");
	note("SSP %+ld, RSP %+ld", (long)(b - a), (long)d);
}

static void c_ret_mismatch(void)
{
	probe_pf();
	asm volatile("lea 3f(%%rip), %%rax\n\t"
		     "call 1f\n\t"
		     "jmp 3f\n"
		     "1:\trdsspq %%rcx\n\t"
		     "mov %%rcx, cd_mark(%%rip)\n\t"
		     "mov %%rax, (%%rsp)\n\t"
		     "ret\n"
		     "3:\n\t"
		     ::: "rax", "rcx", "memory");
	note("RET went to the overwritten address");
}

static void c_incssp(void)
{
	unsigned long a = 0, b = 0, c = 0;

	asm volatile("rdsspq %0\n\t"
		     "call 1f\n\t"
		     "int3\n"
		     "1:\tcall 2f\n\t"
		     "int3\n"
		     "2:\tmov $0x102, %%ecx\n\t"
		     "incsspd %%ecx\n\t"
		     "rdsspq %1\n\t"
		     "mov $1, %%ecx\n\t"
		     "incsspq %%rcx\n\t"
		     "rdsspq %2\n\t"
		     "add $16, %%rsp\n\t"
		     : "+r" (a), "+r" (b), "+r" (c) :: "rcx", "memory");
	note("INCSSPD 0x102 %+ld, INCSSPQ 1 %+ld, %s", (long)(b - (a - 16)),
	     (long)(c - b), c == a ? "back" : "not back");
}

static void c_incssp_zero(void)
{
	unsigned long a = 0, b = 0, c = 0;

	asm volatile("rdsspq %0\n\t"
		     "xor %%ecx, %%ecx\n\t"
		     "incsspq %%rcx\n\t"
		     "rdsspq %1\n\t"
		     "mov $0x100, %%ecx\n\t"
		     "incsspq %%rcx\n\t"
		     "rdsspq %2\n\t"
		     : "+r" (a), "+r" (b), "+r" (c) :: "rcx", "memory");
	note("INCSSPQ 0 %+ld, INCSSPQ 0x100 %+ld", (long)(b - a), (long)(c - b));
}

static void c_incssp_beyond(void)
{
	probe_pf();
	asm volatile("rdsspq %%rcx\n\t"
		     "mov %%rcx, cd_mark(%%rip)\n\t"
		     "mov $255, %%ecx\n\t"
		     "incsspq %%rcx\n\t"
		     ::: "rcx", "memory");
	note("INCSSPQ 255 ran");
}

static void c_rdsspd(void)
{
	unsigned long q = 0, d = 0;

	asm volatile("rdsspq %0\n\t"
		     "rdsspd %k1\n\t"
		     : "+r" (q), "+r" (d));
	note("RDSSPD %s", d == (q & 0xffffffffUL) ? "the low half" : "other");
}

static void c_write_shstk(void)
{
	asm volatile("rdsspq %%rcx\n\t"
		     "mov (%%rcx), %%rax\n\t"
		     "mov %%rax, cd_value(%%rip)\n\t"
		     ::: "rax", "rcx", "memory");
	note("MOV from it ran");
	asm volatile("rdsspq %%rcx\n\t"
		     "mov (%%rcx), %%rax\n\t"
		     "mov %%rax, (%%rcx)\n\t"
		     ::: "rax", "rcx", "memory");
	note("MOV to it ran");
}

static void c_wrss_off(void)
{
	asm volatile("rdsspq %%rcx\n\t"
		     "mov (%%rcx), %%rax\n\t"
		     "wrssq %%rax, (%%rcx)\n\t"
		     ::: "rax", "rcx", "memory");
	note("WRSS ran");
}

static void c_wrss_ret(void)
{
	unsigned long where = 0;

	enable_wrss();
	asm volatile("call 1f\n\t"
		     "mov $1, %0\n\t"
		     "jmp 3f\n"
		     "1:\tlea 2f(%%rip), %%rax\n\t"
		     "rdsspq %%rcx\n\t"
		     "wrssq %%rax, (%%rcx)\n\t"
		     "mov %%rax, (%%rsp)\n\t"
		     "ret\n"
		     "2:\tmov $2, %0\n"
		     "3:\n\t"
		     : "+r" (where) :: "rax", "rcx", "memory");
	note("RET went to %s", where == 2 ? "the written address" :
	     where == 1 ? "the call's return address" : "?");
}

static void c_wrss_memory(void)
{
	unsigned long *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	enable_wrss();
	*p = 1;
	asm volatile("wrssq %1, (%0)" :: "r" (p), "r" (2UL) : "memory");
	note("WRSS to a writable page ran");
}

static void c_wrss_misaligned(void)
{
	enable_wrss();
	asm volatile("rdsspq %%rcx\n\t"
		     "mov (%%rcx), %%rax\n\t"
		     "wrssq %%rax, 4(%%rcx)\n\t"
		     ::: "rax", "rcx", "memory");
	note("WRSSQ to SSP+4 ran");
}

static void c_wruss(void)
{
	asm volatile("rdsspq %%rcx\n\t"
		     "mov (%%rcx), %%rax\n\t"
		     "wrussq %%rax, (%%rcx)\n\t"
		     ::: "rax", "rcx", "memory");
	note("WRUSS ran");
}

static void c_setssbsy(void)
{
	asm volatile("setssbsy" ::: "memory");
	note("SETSSBSY ran");
}

static void c_clrssbsy(void)
{
	asm volatile("rdsspq %%rcx\n\t"
		     "clrssbsy (%%rcx)\n\t"
		     ::: "rcx", "memory", "cc");
	note("CLRSSBSY ran");
}

/*
 * RSTORSSP to a new shadow stack's restore token and SAVEPREVSSP there,
 * then back the same way: what the C library's swapcontext does.
 */
static void c_rstorssp(void)
{
	unsigned long top = new_shstk(1), old = rdssp();
	unsigned long on_new = 0, after_save = 0, tok_new = 0, tok_old = 0;
	unsigned long back = 0, cf = 0, old_slot;

	old_slot = (old & ~7UL) - 8;
	asm volatile("rstorssp (%[tok])\n\t"
		     "setc %b[cf]\n\t"
		     "rdsspq %[on_new]\n\t"
		     "mov (%[tok]), %[tok_new]\n\t"
		     "saveprevssp\n\t"
		     "rdsspq %[after_save]\n\t"
		     "mov (%[old_slot]), %[tok_old]\n\t"
		     "rstorssp (%[old_slot])\n\t"
		     "saveprevssp\n\t"
		     "rdsspq %[back]\n\t"
		     : [on_new] "+r" (on_new), [after_save] "+r" (after_save),
		       [tok_new] "+r" (tok_new), [tok_old] "+r" (tok_old),
		       [back] "+r" (back), [cf] "+q" (cf)
		     : [tok] "r" (top - 8), [old_slot] "r" (old_slot)
		     : "memory", "cc");
	note("RSTORSSP: SSP top%+ld, CF %lu, token %s", (long)(on_new - top), cf,
	     tok_new == (old | 3) ? "old SSP|3" : "other");
	note("SAVEPREVSSP: SSP top%+ld, old stack %s", (long)(after_save - top),
	     tok_old == (old | 1) ? "restore token" : "other");
	note("back %s", back == old ? "at the old SSP" : "elsewhere");
}

static void c_rstorssp_no_token(void)
{
	unsigned long top = new_shstk(0);

	asm volatile("rstorssp (%0)" :: "r" (top - 8) : "memory", "cc");
	note("RSTORSSP ran");
}

static void c_rstorssp_mode(void)
{
	unsigned long top = new_shstk(0);

	enable_wrss();
	/* A token for the right address, but for 32-bit code (bit 0 clear). */
	asm volatile("wrssq %1, (%0)\n\t"
		     "rstorssp (%0)\n\t"
		     :: "r" (top - 8), "r" (top) : "memory", "cc");
	note("RSTORSSP ran");
}

static void c_rstorssp_misaligned(void)
{
	unsigned long top = new_shstk(1);

	asm volatile("rstorssp (%0)" :: "r" (top - 12) : "memory", "cc");
	note("RSTORSSP ran");
}

static void c_saveprevssp_no_token(void)
{
	enable_wrss();
	/* On top: an entry with bit 1 clear, not a previous-SSP token. */
	asm volatile("call 1f\n\t"
		     "int3\n"
		     "1:\trdsspq %%rcx\n\t"
		     "movq $0x1000, %%rax\n\t"
		     "wrssq %%rax, (%%rcx)\n\t"
		     "saveprevssp\n\t"
		     "incsspq %%rdx\n\t"
		     "pop %%rax\n\t"
		     :: "d" (1UL) : "rax", "rcx", "memory");
	note("SAVEPREVSSP ran");
}

/* A far CALL and far RET within CPL 3 (through CS 0x33 itself). */
static void c_far_call(void)
{
	unsigned long a = 0, in = 0, b = 0, e_ssp = 0, e_lip = 0, e_cs = 0, lip = 0;
	struct { unsigned long rip; unsigned short cs; } __attribute__((packed)) fp;

	asm volatile("lea 1f(%%rip), %%rax\n\t"
		     "mov %%rax, %[fp]\n\t"
		     "movw %[cs], 8+%[fp]\n\t"
		     "rdsspq %[a]\n\t"
		     "rex64 lcall *%[fp]\n"
		     "2:\tjmp 3f\n"
		     "1:\trdsspq %[in]\n\t"
		     "mov (%[in]), %[e_ssp]\n\t"
		     "mov 8(%[in]), %[e_lip]\n\t"
		     "mov 16(%[in]), %[e_cs]\n\t"
		     "lretq\n"
		     "3:\trdsspq %[b]\n\t"
		     "lea 2b(%%rip), %[lip]\n\t"
		     : [a] "+r" (a), [in] "+r" (in), [b] "+r" (b),
		       [e_ssp] "+r" (e_ssp), [e_lip] "+r" (e_lip),
		       [e_cs] "+r" (e_cs), [lip] "+r" (lip), [fp] "=m" (fp)
		     : [cs] "i" (USER_CS)
		     : "rax", "memory");
	note("far CALL %+ld, frame %s %s %s, far RET %+ld", (long)(in - a),
	     e_cs == USER_CS ? "CS" : "?", e_lip == lip ? "LIP" : "?",
	     e_ssp == a ? "SSP" : "?", (long)(b - in));
}

static void c_far_ret_alone(void)
{
	probe_pf();
	asm volatile("push %0\n\t"
		     "lea 1f(%%rip), %%rax\n\t"
		     "push %%rax\n\t"
		     "rdsspq %%rcx\n\t"
		     "mov %%rcx, cd_mark(%%rip)\n\t"
		     "lretq\n"
		     "1:\n\t"
		     :: "i" ((unsigned long)USER_CS) : "rax", "rcx", "memory");
	note("far RET ran");
}

static void c_iret(void)
{
	probe_pf();
	asm volatile("mov %%ss, %%eax\n\t"
		     "push %%rax\n\t"
		     "lea 8(%%rsp), %%rax\n\t"
		     "push %%rax\n\t"
		     "pushfq\n\t"
		     "push %0\n\t"
		     "lea 1f(%%rip), %%rax\n\t"
		     "push %%rax\n\t"
		     "rdsspq %%rcx\n\t"
		     "mov %%rcx, cd_mark(%%rip)\n\t"
		     "iretq\n"
		     "1:\n\t"
		     :: "i" ((unsigned long)USER_CS) : "rax", "rcx", "memory");
	note("IRET ran");
}

struct cdcase {
	const char *name;
	void (*run)(void);
	int shstk;		/* run with the shadow stack on */
	const char *sdm;	/* what the SDM's pseudo-code gives */
};

static const struct cdcase cases[] = {
	{ "no shadow stack: RDSSP, INCSSP", c_no_shstk, 0,
	  "RDSSP left its register, SIGILL(ILLOPN)" },
	{ "CALL, RET", c_call_ret, 1, "CALL -8, RET +8" },
	{ "CALL's entry", c_call_pushes, 1, "the entry is the return address" },
	{ "CALL to the next instruction", c_call_next, 1, "SSP +0" },
	{ "RET imm16", c_ret_imm, 1, "SSP +0, RSP +0" },
	{ "RET to another address", c_ret_mismatch, 1,
	  "SIGSEGV(CPERR), SSP kept" },
	{ "INCSSPD, INCSSPQ", c_incssp, 1,
	  "INCSSPD 0x102 +8, INCSSPQ 1 +8, back" },
	{ "INCSSP of 0", c_incssp_zero, 1, "INCSSPQ 0 +0, INCSSPQ 0x100 +0" },
	{ "INCSSP beyond the top", c_incssp_beyond, 1,
	  "SIGSEGV(MAPERR), SSP kept" },
	{ "RDSSPD", c_rdsspd, 1, "RDSSPD the low half" },
	{ "MOV to the shadow stack", c_write_shstk, 1,
	  "MOV from it ran, SIGSEGV(ACCERR)" },
	{ "WRSS without WR_SHSTK_EN", c_wrss_off, 1, "SIGILL(ILLOPN)" },
	{ "WRSS, RET", c_wrss_ret, 1, "RET went to the written address" },
	{ "WRSS to a writable page", c_wrss_memory, 1, "SIGSEGV(ACCERR)" },
	{ "WRSS misaligned", c_wrss_misaligned, 1, "SIGSEGV(kernel)" },
	{ "WRUSS at CPL 3", c_wruss, 1, "SIGSEGV(kernel)" },
	{ "SETSSBSY at CPL 3", c_setssbsy, 1, "SIGILL(ILLOPN)" },
	{ "CLRSSBSY at CPL 3", c_clrssbsy, 1, "SIGILL(ILLOPN)" },
	{ "RSTORSSP, SAVEPREVSSP", c_rstorssp, 1,
	  "RSTORSSP: SSP top-8, CF 0, token old SSP|3, "
	  "SAVEPREVSSP: SSP top+0, old stack restore token, back at the old SSP" },
	{ "RSTORSSP without a token", c_rstorssp_no_token, 1, "SIGSEGV(CPERR)" },
	{ "RSTORSSP to a 32-bit token", c_rstorssp_mode, 1, "SIGSEGV(CPERR)" },
	{ "RSTORSSP misaligned", c_rstorssp_misaligned, 1, "SIGSEGV(kernel)" },
	{ "SAVEPREVSSP without a token", c_saveprevssp_no_token, 1,
	  "SIGSEGV(kernel)" },
	{ "far CALL, far RET", c_far_call, 1,
	  "far CALL -24, frame CS LIP SSP, far RET +24" },
	{ "far RET without far CALL", c_far_ret_alone, 1,
	  "SIGSEGV(CPERR), SSP kept" },
	{ "IRET at CPL 3", c_iret, 1, "SIGSEGV(CPERR), SSP kept" },
};
#define NCASES (sizeof(cases) / sizeof(cases[0]))

/* Turn the shadow stack on inline: this frame must never return. */
static inline __attribute__((always_inline)) long enable_shstk(void)
{
	long rc;

	asm volatile("syscall"
		     : "=a" (rc)
		     : "0" ((long)SYS_arch_prctl), "D" ((long)ARCH_SHSTK_ENABLE),
		       "S" (ARCH_SHSTK_SHSTK)
		     : "rcx", "r11", "memory");
	return rc;
}

/*
 * Call @fn @n frames down, so that reads a few entries above SSP (a far
 * RET's or IRET's frame) stay on the shadow stack.
 */
static void __attribute__((noinline)) deep(int n, void (*fn)(void))
{
	if (n)
		deep(n - 1, fn);
	else
		fn();
	asm volatile("" ::: "memory");
}

/* Run case @i (-1: only try to turn the shadow stack on); its line. */
static int run(int i, char *line, size_t size)
{
	int fd[2], status;
	ssize_t n, got = 0;
	pid_t pid;

	if (pipe(fd))
		return -1;
	pid = fork();
	if (pid == 0) {
		struct sigaction sa = { .sa_sigaction = on_signal,
					.sa_flags = SA_SIGINFO };

		close(fd[0]);
		dup2(fd[1], 1);
		if (i < 0 || cases[i].shstk) {
			if (enable_shstk())
				syscall(SYS_exit_group, 4);
			if (i < 0)
				syscall(SYS_exit_group, 0);
		}
		sigaction(SIGSEGV, &sa, NULL);
		sigaction(SIGILL, &sa, NULL);
		sigaction(SIGBUS, &sa, NULL);
		deep(4, cases[i].run);
		finish();
	}
	close(fd[1]);
	while (got < (ssize_t)size - 1 &&
	       (n = read(fd[0], line + got, size - 1 - got)) > 0)
		got += n;
	line[got] = 0;
	line[strcspn(line, "\n")] = 0;
	close(fd[0]);
	if (waitpid(pid, &status, 0) != pid)
		return -1;
	if (WIFSIGNALED(status))
		snprintf(line + strlen(line), size - strlen(line),
			 "%skilled by signal %d", *line ? ", " : "",
			 WTERMSIG(status));
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int main(void)
{
	char line[600];
	int fails = 0;
	size_t i;

	setvbuf(stdout, NULL, _IONBF, 0);
	printf("TAP version 13\n1..%zu\n", NCASES);
	if (run(-1, line, sizeof(line)) != 0) {
		for (i = 0; i < NCASES; i++)
			printf("ok %zu %s # SKIP no user shadow stack\n", i + 1,
			       cases[i].name);
		return 4;
	}
	for (i = 0; i < NCASES; i++) {
		int ok;

		run(i, line, sizeof(line));
		ok = !strcmp(line, cases[i].sdm);
		fails += !ok;
		printf("%s %zu %s: %s", ok ? "ok" : "not ok", i + 1,
		       cases[i].name, line);
		if (!ok)
			printf(" # SDM: %s", cases[i].sdm);
		printf("\n");
	}
	return fails ? 1 : 0;
}
