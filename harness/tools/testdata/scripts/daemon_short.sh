#!/bin/sh
# Leaves behind, through parents that exit at once, daemons that exit on
# their own a moment later, prints their pids (the machine's, from
# /proc/self/stat) and runs on until they have.
cat > /dev/null
for i in 1 2 3; do
  sh -c 'setsid sh -c "read -r p _ < /proc/self/stat; echo \$p; exec sleep 0.3" < /dev/null 2>&1 &' | head -n 1
done
sleep 1
