#!/bin/sh
# A one-node Slurm cluster on this machine, for the sweep tests and for trying `icsim sweep --slurm`
# without a real cluster (Debian's slurm-wlm 22.05).
#
#   tests/slurm/cluster.sh start DIR   configure and start slurmctld + slurmd in DIR, print the
#                                      line to paste: export SLURM_CONF=DIR/slurm.conf
#   tests/slurm/cluster.sh stop DIR    stop them (by their pid files)
#
# Everything lives in DIR: configuration, state, spool, logs, pid files; the ports are picked per
# DIR so that several clusters (parallel test runs) do not meet. Authentication is auth/none (the
# daemons and clients are one user on one host: no munge key), process tracking linuxproc and no
# task plugin, so it runs without cgroups (containers). Exit 77 when the daemons cannot run here.
set -eu
cmd=${1:-}; dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || { echo "usage: $0 start|stop DIR" >&2; exit 2; }

stop() {
  for d in slurmd slurmctld; do
    [ -f "$dir/$d.pid" ] || continue
    pid=$(cat "$dir/$d.pid")
    kill "$pid" 2>/dev/null || true
    i=0; while kill -0 "$pid" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
    kill -9 "$pid" 2>/dev/null || true
    rm -f "$dir/$d.pid"
  done
}

case "$cmd" in
stop) stop; exit 0 ;;
start) ;;
*) echo "usage: $0 start|stop DIR" >&2; exit 2 ;;
esac

for b in slurmctld slurmd sbatch sinfo; do
  command -v $b >/dev/null 2>&1 || [ -x /usr/sbin/$b ] || { echo "$b not installed (apt-get install slurm-wlm)" >&2; exit 77; }
done
PATH=$PATH:/usr/sbin
mkdir -p "$dir/state" "$dir/spool" "$dir/log"
dir=$(cd "$dir" && pwd)
host=$(hostname -s)
user=$(id -un)
# ports from the folder's name, in 20000-59999: two clusters of different folders do not collide
port=$((20000 + $(printf '%s' "$dir" | cksum | cut -d' ' -f1) % 20000 * 2))
cat > "$dir/slurm.conf" <<CONF
ClusterName=icsimtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/none
CredType=cred/none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
NodeName=$host NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$dir/slurm.conf"
if ! slurmctld -i >"$dir/log/start.log" 2>&1 || ! slurmd >>"$dir/log/start.log" 2>&1; then
  stop
  echo "the Slurm daemons do not start here:" >&2
  cat "$dir/log/start.log" "$dir/log/"slurm*.log 2>/dev/null | tail -5 >&2
  exit 77
fi
# ready when the node takes jobs
i=0
until sinfo -h -o %t 2>/dev/null | grep -q idle; do
  i=$((i + 1))
  if [ $i -gt 100 ]; then
    stop
    echo "the Slurm node did not become idle in 20 s:" >&2
    tail -5 "$dir/log/slurmctld.log" "$dir/log/slurmd.log" >&2 2>/dev/null || true
    exit 77
  fi
  sleep 0.2
done
echo "export SLURM_CONF=$dir/slurm.conf"
