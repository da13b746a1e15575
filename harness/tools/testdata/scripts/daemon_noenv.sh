#!/bin/sh
# Starts a grandchild with an empty environment in a session of its own,
# through a parent that exits a moment later; writes its pid (the
# machine's, from /proc/self/stat) and runs on.
cat > /dev/null
sh -c 'setsid env -i /bin/sh -c "read -r p _ < /proc/self/stat; echo \$p > daemon.pid.tmp && mv daemon.pid.tmp daemon.pid; exec sleep 300" > /dev/null 2>&1 < /dev/null & sleep 0.5'
sleep 0.3
echo done
