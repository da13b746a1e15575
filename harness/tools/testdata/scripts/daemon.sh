#!/bin/sh
# Starts a grandchild in a session of its own (outside the tool's process
# group, re-parented when the tool exits), prints its pid and exits.
cat > /dev/null
setsid sleep 300 > /dev/null 2>&1 < /dev/null &
echo $!
