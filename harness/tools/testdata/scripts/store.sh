#!/bin/sh
# Writes the skill's store through the path it is given.
cat > /dev/null
printf '{"from":"command"}\n' > "$SKILLET_STORE"
echo "stored"
