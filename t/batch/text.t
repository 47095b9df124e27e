#!/bin/sh
# C unit tests: see t/text_test.c
b=${TTV_BUILD:-build}
case $b in /*) ;; *) b=$(dirname "$0")/../../$b ;; esac
exec "$b/t/text_test"
