/* SPDX-License-Identifier: GPL-2.0 */
/*
 * make bench: the small static program the exec benchmark runs.  No C
 * library and no CET marker: it only calls exit(0).
 */
	.text
	.globl	_start
_start:
	movl	$60, %eax	/* __NR_exit */
	xorl	%edi, %edi
	syscall
	hlt

	.section .note.GNU-stack, "", @progbits
