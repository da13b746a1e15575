#!/bin/sh
# Starts a grandchild with an empty environment in a session of its own,
# through a parent that exits a moment later; writes its pid and runs on.
cat > /dev/null
sh -c 'setsid env -i sleep 300 > /dev/null 2>&1 < /dev/null & echo $! > daemon.pid.tmp && mv daemon.pid.tmp daemon.pid; sleep 0.5'
sleep 0.3
echo done
