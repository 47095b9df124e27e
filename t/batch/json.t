#!/bin/sh
# C unit tests: see t/json_test.c (the JSON reader of ATF manifests)
b=${TTV_BUILD:-build}
case $b in /*) ;; *) b=$(dirname "$0")/../../$b ;; esac
exec "$b/t/json_test"
