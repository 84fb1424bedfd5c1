# build_name.sh - sourced by the tests that install or rebuild from a build
# directory (tests/install/test_install.sh, tests/docker/test_docker_files.sh):
# the make variables its name says made it, as the Makefile names it,
# build[-SANITIZER][-debug][-coverage][-faults] (SANITIZER a comma list such
# as address,undefined). A directory named otherwise says none of them.
#
#   build_name_vars DIR   sets build_san (the list, or empty), build_debug,
#                         build_faults and build_coverage (1 or empty)
build_name_vars() {
    build_rest=$(basename "$1")
    build_san= build_debug= build_faults= build_coverage=
    case $build_rest in
    build | build-*) build_rest=${build_rest#build} ;;
    *) return 0 ;;
    esac
    case $build_rest in
    *-faults) build_faults=1 build_rest=${build_rest%-faults} ;;
    esac
    case $build_rest in
    *-coverage) build_coverage=1 build_rest=${build_rest%-coverage} ;;
    esac
    case $build_rest in
    *-debug) build_debug=1 build_rest=${build_rest%-debug} ;;
    esac
    build_san=${build_rest#-}
}
