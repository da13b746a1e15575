#!/bin/sh
# Exits at once, leaving behind a grandchild that holds stdout open.
sleep 600 &
echo $! > grandchild.pid.tmp && mv grandchild.pid.tmp grandchild.pid
echo done
