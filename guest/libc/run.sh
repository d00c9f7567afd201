#!/bin/sh
# run.sh LIBC SETTING...: inside a C library's userland (chroot), run each
# case of cetlibc under each SETTING and print one line per case:
#   CETLIBC-ROW LIBC SETTING CASE STATE RESULT [MESSAGE]
# STATE: the CET features the case ran with (cetlibc's own report);
# RESULT: what it printed, or how it died; MESSAGE: dlerror() of a
# refused dlopen(), its spaces made "_".  The overwrite case is the
# attack: "stopped" when a SIGSEGV ended it, "hijacked" when it worked.
# The host (scripts/libc.awk) makes the table and judges it.  The lines
# are printed at the end, all at once: on the console, the kernel's
# messages about the attack would otherwise land in the middle of one.
libc=$1; shift
rows=/tmp/cetlibc-rows
: > "$rows"
cases="startup longjmp context threads siglongjmp dlopen forkexec cxx-throw overwrite vdso"
export PATH=/bin:/usr/bin
for setting in "$@"; do
	case $setting in
	default) tun= ;;
	hwcaps) tun=glibc.cpu.hwcaps=SHSTK ;;
	shstk-on) tun=glibc.cpu.hwcaps=SHSTK:glibc.cpu.x86_shstk=on ;;
	shstk-permissive) tun=glibc.cpu.hwcaps=SHSTK:glibc.cpu.x86_shstk=permissive ;;
	*) echo "CETLIBC-ROW $libc $setting - ? unknown-setting" >> "$rows"; continue ;;
	esac
	for c in $cases; do
		prog=/usr/bin/cetlibc
		[ "$c" = cxx-throw ] && prog=/usr/bin/cetlibc-cxx
		if [ -n "$tun" ]; then
			out=$(GLIBC_TUNABLES=$tun "$prog" "$c" 2>&1 </dev/null)
		else
			out=$("$prog" "$c" 2>&1 </dev/null)
		fi
		rc=$?
		line=$(echo "$out" | grep "^CETLIBC $c " | tail -n 1)
		state=$(echo "$line" | cut -d' ' -f3)
		result=$(echo "$line" | cut -d' ' -f4)
		[ -n "$state" ] || state="?"
		if echo "$out" | grep -q '^CETLIBC-HIJACKED'; then
			result=hijacked
		elif [ $rc -gt 128 ]; then
			if [ "$c" = overwrite ] && [ $rc = 139 ]; then
				result=stopped
			else
				result=killed-sig$((rc - 128))
			fi
		elif [ $rc != 0 ] && [ "$result" != FAIL ]; then
			result=exit$rc
		fi
		# A refused dlopen() carries glibc's message (spaces made "_").
		detail=
		[ "$result" = refused ] && detail=" $(echo "$line" | cut -d' ' -f5)"
		echo "CETLIBC-ROW $libc $setting $c $state $result$detail" >> "$rows"
		# What the case said, for the log, when it went wrong.
		case $result in ok|loaded|refused|stopped|hijacked) ;;
		*) echo "$out" | sed 's/^/# /' >> "$rows" ;;
		esac
	done
done
cat "$rows"
