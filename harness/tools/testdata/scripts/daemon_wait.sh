#!/bin/sh
# Starts a grandchild in a session of its own, writes its pid and waits.
cat > /dev/null
setsid sleep 300 > /dev/null 2>&1 < /dev/null &
echo $! > daemon.pid.tmp && mv daemon.pid.tmp daemon.pid
sleep 300
