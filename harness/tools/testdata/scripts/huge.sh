#!/bin/sh
# Prints about 4 MB.
yes 0123456789abcdef | head -c 4000000
