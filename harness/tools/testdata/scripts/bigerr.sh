#!/bin/sh
# Floods stderr, then says why it failed on its last line.
yes "noise noise noise" | head -c 300000 >&2
echo "final: disk full" >&2
exit 1
