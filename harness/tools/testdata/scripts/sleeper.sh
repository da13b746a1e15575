#!/bin/sh
# Starts a grandchild that holds stdout open, records its pid (the
# machine's, from /proc/self/stat), and waits forever.
sh -c 'read -r p _ < /proc/self/stat; echo "$p" > grandchild.pid.tmp && mv grandchild.pid.tmp grandchild.pid; exec sleep 600' &
while [ ! -e grandchild.pid ]; do sleep 0.01; done
echo started
wait
