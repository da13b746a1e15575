#!/bin/sh
# Prints the arguments object it reads on stdin.
cat
