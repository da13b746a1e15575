#!/bin/sh
# Fails with a message on stderr after printing part of a result.
cat > /dev/null
echo "partial result"
echo "warming up" >&2
echo "error: account 42 not found" >&2
exit 3
