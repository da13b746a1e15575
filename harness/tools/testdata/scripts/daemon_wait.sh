#!/bin/sh
# Starts a grandchild in a session of its own, writes its pid (the
# machine's, from /proc/self/stat) and waits.
cat > /dev/null
setsid sh -c 'read -r p _ < /proc/self/stat; echo "$p" > daemon.pid.tmp && mv daemon.pid.tmp daemon.pid; exec sleep 300' > /dev/null 2>&1 < /dev/null &
sleep 300
