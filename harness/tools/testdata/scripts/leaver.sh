#!/bin/sh
# Exits at once, leaving behind a grandchild that holds stdout open; its
# pid (the machine's, from /proc/self/stat) goes to grandchild.pid.
sh -c 'read -r p _ < /proc/self/stat; echo "$p" > grandchild.pid.tmp && mv grandchild.pid.tmp grandchild.pid; exec sleep 600' &
while [ ! -e grandchild.pid ]; do sleep 0.01; done
echo done
