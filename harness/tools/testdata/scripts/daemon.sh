#!/bin/sh
# Starts a grandchild in a session of its own (outside the tool's process
# group, re-parented when the tool exits), prints its pid and exits. Pids
# are read from /proc/self/stat: in a PID namespace of its own, the tool's
# $$ and $! are the namespace's, not the machine's.
cat > /dev/null
setsid sh -c 'read -r p _ < /proc/self/stat; echo "$p" > .daemon.pid; exec sleep 300' > /dev/null 2>&1 < /dev/null &
while [ ! -s .daemon.pid ]; do sleep 0.01; done
cat .daemon.pid
rm -f .daemon.pid
