# tests/sh/slurm_lib.sh — a throwaway single-node Slurm for tests: munged, slurmctld and
# slurmd (Debian's packages) configured in a temporary folder, on TCP ports found free at
# run time, everything on 127.0.0.1, as root. Sourced by tests/sh/test_slurm.sh.
#   slurm_start DIR   start the three daemons with state, logs and sockets under DIR;
#                     exports SLURM_CONF; returns 1 (reason in $slurm_why) if they do not come up
#   slurm_stop        stop the daemons started here (by their pids), call it from an EXIT trap
slurm_pids=()
slurm_why=""

# free_port: a TCP port on 127.0.0.1 nobody listens on (the kernel picks it).
free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()' 2>/dev/null \
    || /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

slurm_start() {
  local d=$1 i
  mkdir -p "$d/munge" "$d/state" "$d/spool" "$d/log"
  chmod 700 "$d/munge"
  # munged insists on a private key file and private folders
  dd if=/dev/urandom bs=1 count=1024 of="$d/munge/munge.key" 2>/dev/null
  chmod 400 "$d/munge/munge.key"
  munged --force --socket="$d/munge/munge.sock" --key-file="$d/munge/munge.key" \
    --pid-file="$d/munge/munged.pid" --log-file="$d/log/munged.log" \
    --seed-file="$d/munge/seed" 2>"$d/log/munged.err" \
    || { slurm_why="munged did not start: $(cat "$d/log/munged.err")"; return 1; }
  slurm_pids+=("$(cat "$d/munge/munged.pid")")
  local cport dport cpus
  cport=$(free_port); dport=$(free_port)
  while [ "$dport" = "$cport" ]; do dport=$(free_port); done
  cat >"$d/slurm.conf" <<CONF
ClusterName=dlbt$$
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$cport
SlurmdPort=$dport
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$d/munge/munge.sock
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool/%n
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd.pid
SlurmctldLogFile=$d/log/slurmctld.log
SlurmdLogFile=$d/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SchedulerType=sched/builtin
SchedulerParameters=sched_interval=1
SlurmdParameters=config_overrides
ReturnToService=2
MpiDefault=none
JobRequeue=1
MaxArraySize=1001
KillWait=5
MinJobAge=600
SlurmctldTimeout=30
SlurmdTimeout=30
InactiveLimit=0
NodeName=dlbt NodeHostname=$(hostname -s) NodeAddr=127.0.0.1 CPUs=4 State=UNKNOWN
PartitionName=test Nodes=dlbt Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF
  export SLURM_CONF=$d/slurm.conf
  slurmctld -c -f "$d/slurm.conf" 2>"$d/log/slurmctld.err" \
    || { slurm_why="slurmctld did not start: $(tail -3 "$d/log/slurmctld.err")"; return 1; }
  for i in $(seq 50); do [ -s "$d/slurmctld.pid" ] && break; sleep 0.1; done
  slurm_pids+=("$(cat "$d/slurmctld.pid")")
  slurmd -f "$d/slurm.conf" -N dlbt 2>"$d/log/slurmd.err" \
    || { slurm_why="slurmd did not start: $(tail -3 "$d/log/slurmd.err")"; return 1; }
  for i in $(seq 50); do [ -s "$d/slurmd.pid" ] && break; sleep 0.1; done
  slurm_pids+=("$(cat "$d/slurmd.pid")")
  # the node is up when sinfo says idle
  for i in $(seq 100); do
    sinfo -h -N -o %t 2>/dev/null | grep -q idle && return 0
    sleep 0.1
  done
  slurm_why="the node never became idle: $(sinfo -N 2>&1 | tail -2); $(tail -3 "$d/log/slurmctld.log" 2>/dev/null)"
  return 1
}

slurm_stop() {
  local p i
  for p in "${slurm_pids[@]}"; do [ -n "$p" ] && kill "$p" 2>/dev/null; done
  for p in "${slurm_pids[@]}"; do # wait (5 s at most) so their files can be removed
    for i in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
  done
  slurm_pids=()
}
