#!/bin/sh
# Leaves behind, through parents that exit at once, daemons that exit on
# their own a moment later, prints their pids and runs on until they have.
cat > /dev/null
for i in 1 2 3; do
  sh -c 'setsid sleep 0.3 > /dev/null 2>&1 < /dev/null & echo $!'
done
sleep 1
