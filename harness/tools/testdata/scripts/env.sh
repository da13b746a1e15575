#!/bin/sh
# Prints its working folder, then its environment.
cat > /dev/null
pwd
env
