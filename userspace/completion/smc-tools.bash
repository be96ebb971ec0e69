# SPDX-License-Identifier: GPL-2.0
# bash completion for smcss, smc_pnet, smcd, smcr, smc_chk, smc_rnics and smc_dbg
# (smc-linux).

_smc_netdevs() { ls /sys/class/net 2>/dev/null; }
_smc_ibdevs() { ls /sys/class/infiniband 2>/dev/null; ls /sys/class/ism 2>/dev/null; }

_smcss()
{
	local cur=${COMP_WORDS[COMP_CWORD]}
	COMPREPLY=($(compgen -W '-a --all -l --listening -d --debug -D --smcd -R --smcr
		-W --wide -j --json -p --pretty -v --version -h --help' -- "$cur"))
}

_smc_pnet()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
	case $prev in
	-I|--interface) COMPREPLY=($(compgen -W "$(_smc_netdevs)" -- "$cur")); return ;;
	-D|--ibdevice) COMPREPLY=($(compgen -W "$(_smc_ibdevs)" -- "$cur")); return ;;
	-P|--ibport) COMPREPLY=($(compgen -W '1 2' -- "$cur")); return ;;
	esac
	COMPREPLY=($(compgen -W '-a --add -d --delete -s --show -f --flush -I --interface
		-D --ibdevice -P --ibport -j --json -p --pretty -v --version -h --help' -- "$cur"))
}

_smcd_smcr()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
	local prog=${COMP_WORDS[0]##*/} i word object='' command=''
	case $prev in
	-t|--type|-type) COMPREPLY=($(compgen -W 'smcd smcr' -- "$cur")); return ;;
	netdev) COMPREPLY=($(compgen -W "$(_smc_netdevs)" -- "$cur")); return ;;
	ibdev) COMPREPLY=($(compgen -W "$(_smc_ibdevs)" -- "$cur")); return ;;
	esac
	for ((i = 1; i < COMP_CWORD; i++)); do
		word=${COMP_WORDS[i]}
		case $word in
		-t|--type|-type) if [ -n "${COMP_WORDS[i+1]}" ]; then prog=${COMP_WORDS[i+1]}; fi; ((i++)); continue ;;
		-*) continue ;;
		esac
		if [ -z "$object" ]; then object=$word; elif [ -z "$command" ]; then command=$word; fi
	done
	if [ -z "$object" ]; then
		local objects='info device linkgroup stats ueid help'
		[ "$prog" = smcd ] && objects="$objects seid"
		COMPREPLY=($(compgen -W "$objects -d --details -dd -a --absolute -j --json -p --pretty
			-t --type -v --version -h --help" -- "$cur"))
		return
	fi
	local words=''
	case $object in
	i*) words='show help' ;;
	d*) words='show all help'; [ "$prog" = smcr ] && words="$words netdev ibdev" ;;
	l*) words='show all help'; [ "$prog" = smcr ] && words="$words link-show netdev ibdev" ;;
	st*|s) words='show reset json help' ;;
	u*) [ -z "$command" ] && words='show add del flush help' ;;
	se*) [ -z "$command" ] && words='show enable disable help' ;;
	esac
	COMPREPLY=($(compgen -W "$words" -- "$cur"))
}

_smc_chk()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
	case $prev in
	-i|--interface) COMPREPLY=($(compgen -W "$(_smc_netdevs)" -- "$cur")); return ;;
	-C|--connect) COMPREPLY=($(compgen -A hostname -- "$cur")); return ;;
	-p|--port|-t|--timeout) return ;;
	esac
	COMPREPLY=($(compgen -W '-S --server -C --connect -p --port -6 --ipv6 -i --interface
		-t --timeout -d --debug --no-rdma --rdma-always --reject -v --version -h --help' -- "$cur"))
}

_smc_rnics()
{
	local cur=${COMP_WORDS[COMP_CWORD]}
	COMPREPLY=($(compgen -W '-r --rdma -I --ism -j --json -p --pretty -v --version
		-h --help' -- "$cur"))
}

_smc_dbg()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
	case $prev in
	-o|--output) COMPREPLY=($(compgen -f -- "$cur")); return ;;
	esac
	COMPREPLY=($(compgen -W '-o --output -v --version -h --help' -- "$cur"))
}

complete -F _smcss smcss
complete -F _smc_pnet smc_pnet
complete -F _smcd_smcr smcd smcr
complete -F _smc_chk smc_chk
complete -F _smc_rnics smc_rnics
complete -F _smc_dbg smc_dbg
