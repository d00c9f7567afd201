#!/bin/sh
# make run's second demo, inside the glibc 2.41 userland (chroot): a small
# system whose every process runs with a shadow stack, because the C
# library was asked to (GLIBC_TUNABLES, set for the whole userland by
# /tests/libc-demo) and the kernel gives it one, as on mainline.  Then the
# return-address overwrite, with and without the tunable.
# Exit status: 0 when every process of the userland has shadow stack on,
# the attack is stopped with it and works without it; 1 otherwise.
ok=0
echo "GLIBC_TUNABLES=$GLIBC_TUNABLES"
echo
# A few processes that stay a while: a pipeline, a shell, a subshell.
sleep 5 | cat &
sh -c 'sleep 5; :' &
(sleep 5; :) &
sleep 1

# Is PID this shell or one of its descendants?
ours() {
	p=$1
	while [ -n "$p" ] && [ "$p" -gt 1 ]; do
		[ "$p" = $$ ] && return 0
		p=$(sed -n 's/^PPid:[[:space:]]*//p' "/proc/$p/status" 2>/dev/null)
	done
	return 1
}
echo "Every process of the userland, and its shadow stack (/proc/PID/status):"
printf '%6s  %-10s  %s\n' PID COMMAND x86_Thread_features
n=0
for d in /proc/[0-9]*; do
	pid=${d#/proc/}
	ours "$pid" || continue
	name=$(sed -n 's/^Name:[[:space:]]*//p' "$d/status" 2>/dev/null)
	feat=$(sed -n 's/^x86_Thread_features:[[:space:]]*//p' "$d/status" 2>/dev/null)
	[ -n "$name" ] || continue
	printf '%6s  %-10s  %s\n' "$pid" "$name" "${feat:-(none)}"
	n=$((n + 1))
	case " $feat " in *" shstk "*) ;; *) ok=1 ;; esac
done
echo "($n processes)"
echo

attack() {
	out=$("$@" /usr/bin/cetlibc overwrite 2>&1)
	rc=$?
	if echo "$out" | grep -q CETLIBC-HIJACKED; then
		echo "hijacked: the overwritten return address was followed"
		return 3
	elif [ $rc = 139 ]; then
		echo "stopped: killed by SIGSEGV before the overwritten return address was used"
		return 0
	fi
	echo "neither: exit status $rc: $out"
	return 1
}
echo "The return-address overwrite (cetlibc overwrite), shadow stack on:"
attack env || ok=1
dmesg | grep -i 'control protection' | tail -n 1 | sed 's/^<[0-9]*>//; s/^/  kernel: /'
echo "The same program, the tunable unset (glibc leaves shadow stack off):"
attack env -u GLIBC_TUNABLES
[ $? = 3 ] || ok=1
echo
if [ $ok = 0 ]; then
	echo "Shadow stack on in every process; the attack was stopped (and works without it)."
else
	echo "NOT as expected: see above."
fi
exit $ok
