#!/bin/sh
# Starts a grandchild that holds stdout open, records its pid, and waits
# forever.
sleep 600 &
echo $! > grandchild.pid.tmp && mv grandchild.pid.tmp grandchild.pid
echo started
wait
