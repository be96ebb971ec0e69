# SPDX-License-Identifier: GPL-2.0
# bash completion for smc_run (smc-linux): its options, then the program
# and that program's own arguments, completed as bash would complete them.

_smc_run()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} i
	case $prev in
	-f) mapfile -t COMPREPLY < <(compgen -W 'smc inet auto' -- "$cur"); return ;;
	# Ports, program names and sizes: nothing to offer.
	-p|-P|-r|-t) COMPREPLY=(); return ;;
	esac
	# The first word that is neither an option nor an option's argument is
	# the program: from there on, complete the program's command line.
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		-f|-p|-P|-r|-t) i=$((i + 1)) ;;
		--) i=$((i + 1)); break ;;
		-*) ;;
		*) break ;;
		esac
	done
	if [ "$i" -lt "$COMP_CWORD" ]; then
		# bash-completion's helper for wrappers such as sudo or env.
		if declare -F _command_offset >/dev/null; then
			_command_offset "$i"
		fi
		return
	fi
	if [[ $cur == -* ]]; then
		mapfile -t COMPREPLY < <(compgen -W '-d -f -p -P -r -t -v -h --' -- "$cur")
	else
		mapfile -t COMPREPLY < <(compgen -c -- "$cur")
	fi
}
complete -F _smc_run smc_run
